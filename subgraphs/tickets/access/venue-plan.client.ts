import { PlanClient } from '../../../common/plan-client';
import type { Redis } from '../../../common/redis';
import type { SubgraphClient } from '../../../common/subgraph-call';
import { venuePlanCacheKey } from '../../../contracts/tickets/access-change';
import { announceAccessChange, type VenueEntitlements } from './access-cache';

export type { VenueEntitlements };

/** A venue's ticket plan through the graph (see PlanClient), cached a minute. */
export class VenuePlanClient {
  private readonly plans: PlanClient<VenueEntitlements>;

  constructor(
    billing: SubgraphClient,
    private readonly redis: Redis,
    private readonly redisPrefix: string,
  ) {
    this.plans = new PlanClient(
      billing,
      redis,
      { typename: 'Venue', cacheKey: (id) => venuePlanCacheKey(redisPrefix, id) },
      (plan) => ({
        planKey: plan?.key ?? null,
        apiAccess: plan?.tickets?.apiAccess ?? false,
        sms: plan?.tickets?.sms ?? false,
        whatsapp: plan?.tickets?.whatsapp ?? false,
      }),
    );
  }

  entitlementsOf(venueId: number, requestId?: string): Promise<VenueEntitlements> {
    return this.plans.of(venueId, requestId);
  }

  /** Drops the Redis copy and tells every tickets process to drop its own. */
  async forget(venueId: number): Promise<void> {
    await this.plans.forget(venueId);
    await announceAccessChange(this.redis, this.redisPrefix, { venueId });
  }
}
