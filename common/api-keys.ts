import { createHash, randomBytes } from 'node:crypto';
import type { EntityManager } from './database';

/** Leading characters kept in clear, so an operator can tell keys apart without the secret. */
const SHOWN_PREFIX_LENGTH = 11;
const TOUCH_INTERVAL_MS = 60_000;

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

/** When this process last wrote last_used_at of a key; the SQL below re-checks across replicas. */
const lastTouched = new Map<string, number>();

/** Records a key's use without a write per request: at most once a minute per key and process. */
export async function touchApiKey(
  em: EntityManager,
  table: 'tickets.api_keys' | 'cv.account_api_keys',
  keyId: number,
): Promise<void> {
  const slot = `${table}:${keyId}`;
  const now = Date.now();
  if (now - (lastTouched.get(slot) ?? 0) < TOUCH_INTERVAL_MS) return;
  lastTouched.set(slot, now);
  if (lastTouched.size > 10_000) lastTouched.clear();
  await em.execute(
    `update ${table} set last_used_at = now()
      where id = ? and (last_used_at is null or last_used_at < now() - interval '1 minute')`,
    [keyId],
  );
}
