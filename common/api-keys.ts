import { createHash, randomBytes } from 'node:crypto';

/** Leading characters kept in clear, so an operator can tell keys apart without the secret. */
const SHOWN_PREFIX_LENGTH = 11;

/**
 * Only this is stored of a secret shown once: an API key, a session token, a mailed link's token.
 * They are long random strings, so a fast hash is enough; a password is not one of them.
 */
export function hashSecret(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

export const hashApiKey = hashSecret;

/** A new random secret of 32 bytes; `tag` (`ses_`, `inv_`, …) makes a leaked one recognisable. */
export function newSecret(tag: string): string {
  return `${tag}${randomBytes(32).toString('base64url')}`;
}

/**
 * A new key: `tag` (e.g. `tk_`, `cv_`) makes a leaked one recognisable in logs and scanners.
 * @param preset only for a local demo key that must stay the same across restarts
 */
export function newApiKey(tag: string, preset?: string): { key: string; prefix: string; hash: Buffer } {
  const key = preset ?? `${tag}${randomBytes(24).toString('base64url')}`;
  return { key, prefix: key.slice(0, SHOWN_PREFIX_LENGTH), hash: hashApiKey(key) };
}
