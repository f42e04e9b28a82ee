import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/** Seals a secret with AES-256-GCM: nonce ‖ ciphertext ‖ tag, so the database never holds it in clear. */
export function seal(key: Buffer, plaintext: string): Buffer {
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([nonce, ciphertext, cipher.getAuthTag()]);
}

/** Opens what `seal` made with the same key; a wrong key or altered bytes throw. */
export function unseal(key: Buffer, sealed: Buffer): string {
  if (sealed.length < NONCE_BYTES + TAG_BYTES) throw new Error('sealed secret is too short');
  const nonce = sealed.subarray(0, NONCE_BYTES);
  const tag = sealed.subarray(sealed.length - TAG_BYTES);
  const decipher = createDecipheriv('aes-256-gcm', key, nonce);
  decipher.setAuthTag(tag);
  return Buffer.concat([
    decipher.update(sealed.subarray(NONCE_BYTES, sealed.length - TAG_BYTES)),
    decipher.final(),
  ]).toString('utf8');
}

/** The keys of a rotation: `secretKey` seals; `secondarySecretKey`, while set, also opens. */
export interface SealingKeys {
  secretKey: Buffer;
  secondarySecretKey: Buffer | null;
}

/**
 * Opens a secret sealed under either key of a rotation (docs/OPERATIONS.md "Rotating secrets"),
 * the sealing key first since after a reseal nearly every secret is under it; `current` says
 * whether it was, which is what the reseal asks. Throws when neither key opens it.
 */
export function unsealWithEither(keys: SealingKeys, sealed: Buffer): { secret: string; current: boolean } {
  try {
    return { secret: unseal(keys.secretKey, sealed), current: true };
  } catch (error) {
    if (keys.secondarySecretKey === null) throw error;
    return { secret: unseal(keys.secondarySecretKey, sealed), current: false };
  }
}
