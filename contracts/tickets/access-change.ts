import { hashSecret } from '../../common/api-keys';
import { bearerKey } from '../authorization';

/**
 * The Redis channel on which the tickets side announces that cached access answers went wrong:
 * a key was revoked or a venue's plan changed. Tickets processes forget what they cached; the
 * gateway closes the live subscriptions that relied on it.
 */

/**
 * A change that makes cached access answers wrong: a revoked key (a board device's included) with
 * its venue, a venue's new plan, a display revoked or given new settings, or a person whose
 * sessions ended or who left a venue (the identity and tickets subgraphs say so). The gateway holds
 * the live sockets the change may concern (by key, by venue, or by person) until it has checked
 * them again.
 */
export type AccessChange = KeyRevoked | { venueId: number } | { displayId: number } | { userId: number };

/**
 * A revoked key or board device. The fingerprint lets the gateway recheck only the live sockets
 * that present this key, not every credential of the venue. Every process announces one; the
 * gateway reads an announcement without a valid one (from an older process) as its venue's.
 */
export interface KeyRevoked {
  keyId: number;
  venueId: number;
  keyFingerprint: string;
}

/**
 * The start of the SHA-256 the database keeps of a key: the gateway computes the same from a
 * socket's Bearer credential. 64 bits are plenty to tell a venue's keys apart, and a collision costs
 * no more than one credential checked again needlessly.
 */
export function keyFingerprint(keyHash: Buffer): string {
  return keyHash.subarray(0, 8).toString('hex');
}

export const KEY_FINGERPRINT_PATTERN = /^[0-9a-f]{16}$/;

/** The fingerprint of the key an Authorization header presents, or undefined when it presents none. */
export function bearerFingerprint(authorization: string | undefined): string | undefined {
  const key = bearerKey(authorization);
  return key === undefined ? undefined : keyFingerprint(hashSecret(key));
}

export function keyRevoked(keyId: number, venueId: number, keyHash: Buffer): KeyRevoked {
  return { keyId, venueId, keyFingerprint: keyFingerprint(keyHash) };
}

/**
 * Sent by the gateway (never taken from a client) when it checks a live socket's credential again
 * after an announcement: the tickets subgraph then answers from the database, not from what it
 * cached, since its own copy of the announcement may not have arrived yet.
 */
export const ACCESS_RECHECK_HEADER = 'x-access-recheck';

export function accessChannel(redisPrefix: string): string {
  return `${redisPrefix}tickets:access-changed`;
}

/**
 * Where tickets processes keep a venue's plan for a minute: billing drops it when the plan changes,
 * then announces the change on `accessChannel`.
 */
export function venuePlanCacheKey(redisPrefix: string, venueId: number): string {
  return `${redisPrefix}tickets:venue-plan:${venueId}`;
}
