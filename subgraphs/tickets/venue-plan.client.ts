import type { Redis } from '../../common/redis';
import { announceAccessChange } from './access-cache';
import { REQUEST_ID_HEADER } from '../../common/request-context';

/** What the venue's ticket plan allows, as billing says. */
export interface VenueEntitlements {
  planKey: string | null;
  apiAccess: boolean;
  sms: boolean;
}

const NO_PLAN: VenueEntitlements = { planKey: null, apiAccess: false, sms: false };
const CACHE_SECONDS = 60;

const VENUE_PLAN_QUERY = `query VenuePlan($representations: [_Any!]!) {
  _entities(representations: $representations) { ... on Venue { plan { key tickets { apiAccess sms } } } }
}`;

interface VenuePlanResponse {
  data?: {
    _entities: ({
      plan: { key: string; tickets: { apiAccess: boolean; sms: boolean } | null } | null;
    } | null)[];
  };
  errors?: { message: string }[];
}

export function venuePlanCacheKey(redisPrefix: string, venueId: number): string {
  return `${redisPrefix}tickets:venue-plan:${venueId}`;
}

/**
 * Reads a venue's plan through the graph: the tickets subgraph asks billing to resolve the
 * `Venue` entity's `plan` (federation's `_entities`), never billing's tables. Answers are cached
 * in Redis for a minute; changing a venue's plan drops the cached answer at once.
 */
export class VenuePlanClient {
  constructor(
    private readonly billingUrl: string,
    private readonly redis: Redis,
    private readonly redisPrefix: string,
    private readonly timeoutMs = 5_000,
  ) {}

  async entitlementsOf(venueId: number, requestId?: string): Promise<VenueEntitlements> {
    const key = venuePlanCacheKey(this.redisPrefix, venueId);
    const cached = await this.redis.get(key);
    if (cached !== null) return JSON.parse(cached) as VenueEntitlements;
    const entitlements = await this.fetch(venueId, requestId);
    await this.redis.set(key, JSON.stringify(entitlements), 'EX', CACHE_SECONDS);
    return entitlements;
  }

  /** Drops the Redis copy and tells every tickets process to drop its own. */
  async forget(venueId: number): Promise<void> {
    await this.redis.del(venuePlanCacheKey(this.redisPrefix, venueId));
    await announceAccessChange(this.redis, this.redisPrefix, { venueId });
  }

  private async fetch(venueId: number, requestId?: string): Promise<VenueEntitlements> {
    const response = await fetch(this.billingUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(requestId ? { [REQUEST_ID_HEADER]: requestId } : {}),
      },
      body: JSON.stringify({
        query: VENUE_PLAN_QUERY,
        variables: { representations: [{ __typename: 'Venue', id: String(venueId) }] },
      }),
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    const body = (await response.json()) as VenuePlanResponse;
    if (body.errors?.length || body.data === undefined) {
      throw new Error(
        `billing could not resolve the plan of venue ${venueId}: ${body.errors?.[0]?.message ?? response.status}`,
      );
    }
    const plan = body.data._entities[0]?.plan;
    if (plan === null || plan === undefined) return NO_PLAN;
    return {
      planKey: plan.key,
      apiAccess: plan.tickets?.apiAccess ?? false,
      sms: plan.tickets?.sms ?? false,
    };
  }
}
