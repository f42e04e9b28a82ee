import type { Redis } from './redis';
import type { SubgraphClient } from './subgraph-call';

/** The plan of an entity as billing resolves it, before each domain picks what it needs. */
export interface BilledPlan {
  key: string;
  cv: {
    cvLimit: number | null;
    downloadLimit: number | null;
    premiumTemplates: boolean;
    watermark: boolean;
  } | null;
  tickets: { apiAccess: boolean; sms: boolean; whatsapp: boolean } | null;
}

const CACHE_SECONDS = 60;

/**
 * Reads the plan of a venue or an account through the graph: the asking subgraph has billing
 * resolve the entity's `plan` (federation's `_entities`), never billing's tables. Answers are
 * cached in Redis for a minute; changing a plan drops the cached answer at once (`forget`).
 */
export class PlanClient<T> {
  constructor(
    private readonly billing: SubgraphClient,
    private readonly redis: Redis,
    private readonly entity: { typename: 'Venue' | 'Account'; cacheKey: (id: number) => string },
    private readonly entitlements: (plan: BilledPlan | null) => T,
  ) {}

  /**
   * The cache is only a saving: with Redis away (commands fail at once, see connectRedis) the
   * answer comes from billing every time instead of failing the request.
   */
  async of(id: number, requestId?: string): Promise<T> {
    const key = this.entity.cacheKey(id);
    const cached = await this.redis.get(key).catch(() => null);
    if (cached !== null) return JSON.parse(cached) as T;
    const entitlements = this.entitlements(await this.fetch(id, requestId));
    await this.redis.set(key, JSON.stringify(entitlements), 'EX', CACHE_SECONDS).catch(() => undefined);
    return entitlements;
  }

  async forget(id: number): Promise<void> {
    await this.redis.del(this.entity.cacheKey(id));
  }

  private async fetch(id: number, requestId?: string): Promise<BilledPlan | null> {
    const { typename } = this.entity;
    const data = await this.billing.call<{ _entities: ({ plan: BilledPlan | null } | null)[] }>(
      `billing's plan of ${typename} ${id}`,
      `query ${typename}Plan($representations: [_Any!]!) {
        _entities(representations: $representations) {
          ... on ${typename} { plan { key cv { cvLimit downloadLimit premiumTemplates watermark } tickets { apiAccess sms whatsapp } } }
        }
      }`,
      // Account's usage requires cvCount; the plan does not, but a representation must carry it.
      {
        representations: [
          { __typename: typename, id: String(id), ...(typename === 'Account' ? { cvCount: 0 } : {}) },
        ],
      },
      { requestId },
    );
    return data._entities[0]?.plan ?? null;
  }
}
