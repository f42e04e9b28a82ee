/**
 * The Redis channel on which the tickets side announces that cached access answers went wrong:
 * a key was revoked or a venue's plan changed. Tickets processes forget what they cached; the
 * gateway closes the live subscriptions that relied on it.
 */

/**
 * A change that makes cached access answers wrong: a revoked key (a board device's included), a
 * venue's new plan, or a display revoked or given new settings.
 */
export type AccessChange = { keyId: number } | { venueId: number } | { displayId: number };

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
