import { hash, verify } from '@node-rs/argon2';
import { dictionary } from '@zxcvbn-ts/language-common';
import type { FieldMessages } from '../../common/errors';
import { say } from '../../common/messages';

export const PASSWORD_MIN = 10;
/** Long enough for any passphrase, short enough that hashing it costs nothing extra. */
export const PASSWORD_MAX = 200;

/**
 * argon2id with OWASP's second recommended setting (19 MiB, 2 passes, 1 lane): about 15 ms here,
 * so a sign-in stays quick while a stolen hash stays slow to guess.
 */
const ARGON2 = {
  // 2 is Algorithm.Argon2id, a const enum that isolated modules cannot read.
  algorithm: 2,
  memoryCost: 19_456,
  timeCost: 2,
  parallelism: 1,
} as const;

/** 49,233 passwords people choose most (zxcvbn's list, lower case), refused whatever their case. */
const COMMON = new Set(dictionary['passwords-common'].map((word: string) => word.toLowerCase()));

/** What is wrong with a new password, under `field`; empty when it may be used. */
export function passwordProblems(password: string, field = 'password'): FieldMessages {
  const length = [...password].length;
  if (length < PASSWORD_MIN) return { [field]: [say('field.min_characters', { field, min: PASSWORD_MIN })] };
  if (length > PASSWORD_MAX) return { [field]: [say('field.max_characters', { field, max: PASSWORD_MAX })] };
  if (COMMON.has(password.toLowerCase())) return { [field]: [say('identity.password_common', { field })] };
  return {};
}

export function hashPassword(password: string): Promise<string> {
  return hash(password, ARGON2);
}

/**
 * A hash of nothing anyone knows, verified when the email is unknown, so an unknown address and a
 * wrong password cost the same time.
 */
let decoy: Promise<string> | undefined;

export async function passwordMatches(storedHash: string | null, password: string): Promise<boolean> {
  if (storedHash === null) {
    decoy ??= hashPassword(`decoy-${Math.random()}`);
    await verify(await decoy, password).catch(() => false);
    return false;
  }
  return verify(storedHash, password).catch(() => false);
}
