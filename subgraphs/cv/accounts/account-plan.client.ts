import type { Config } from '../../../common/config';
import { PlanClient } from '../../../common/plan-client';
import type { Redis } from '../../../common/redis';
import { SubgraphClient } from '../../../common/subgraph-call';
import { accountPlanCacheKey } from '../../../contracts/cv/plan-cache';

/** What the account's CV plan allows, as billing says; no plan allows what the free plan does not. */
export interface AccountEntitlements {
  planKey: string | null;
  cvLimit: number | null;
  downloadLimit: number | null;
  premiumTemplates: boolean;
  watermark: boolean;
}

/** An account's CV plan through the graph (see PlanClient), cached a minute. */
export function accountPlanClient(config: Config, redis: Redis): PlanClient<AccountEntitlements> {
  return new PlanClient(
    SubgraphClient.of(config, 'billing'),
    redis,
    { typename: 'Account', cacheKey: (id) => accountPlanCacheKey(config.redisPrefix, id) },
    (plan) => ({
      planKey: plan?.key ?? null,
      // Without a plan an account may hold and export nothing.
      cvLimit: plan?.cv ? plan.cv.cvLimit : 0,
      downloadLimit: plan?.cv ? plan.cv.downloadLimit : 0,
      premiumTemplates: plan?.cv?.premiumTemplates ?? false,
      watermark: plan?.cv?.watermark ?? true,
    }),
  );
}
