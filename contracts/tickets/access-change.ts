/**
 * The Redis channel on which the tickets side announces that cached access answers went wrong:
 * a key was revoked or a venue's plan changed. Tickets processes forget what they cached; the
 * gateway closes the live subscriptions that relied on it.
 */

/**
 * A change that makes cached access answers wrong: a revoked key (a board device's included) with
 * its venue, a venue's new plan, a display revoked or given new settings, or a person whose
 * sessions ended or who left a venue (the identity and tickets subgraphs say so). The gateway holds
 * the live sockets the change may concern (by venue, or by person) until it has checked them again.
 */
export type AccessChange =
  { keyId: number; venueId: number } | { venueId: number } | { displayId: number } | { userId: number };

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
