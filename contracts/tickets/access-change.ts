/**
 * The Redis channel on which the tickets side announces that cached access answers went wrong:
 * a key was revoked or a venue's plan changed. Tickets processes forget what they cached; the
 * gateway closes the live subscriptions that relied on it.
 */

/**
 * A change that makes cached access answers wrong: a revoked key (a board device's included), a
 * venue's new plan, a display revoked or given new settings, or a person whose sessions ended or
 * who left a venue (the identity and tickets subgraphs say so; live boards signed in as them are
 * checked again).
 */
export type AccessChange =
  { keyId: number } | { venueId: number } | { displayId: number } | { userId: number };

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
