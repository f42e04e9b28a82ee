import { maybeCacheControlFromInfo } from '@apollo/cache-control-types';
import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Info, Query, Resolver } from 'type-graphql';
import { CATALOGUE_FRESH_MS } from './plan.repository';
import { Product } from './plan.entity';
import { PlanService } from './plan.service';
import { PlanType, toPlanType } from './plan.type';

/**
 * The catalogue is the same for every caller and as fresh as this process's copy of it, so its
 * answer says so: `Cache-Control: max-age=60, public` when every field asked allows it (the scalar
 * fields of a plan do; `cv` and `tickets` are objects, which Apollo Server leaves uncacheable), and
 * the gateway may answer identical requests with it meanwhile (gateway/fetch/inflight-fetches.ts).
 */
const CATALOGUE_HINT = { maxAge: CATALOGUE_FRESH_MS / 1000, scope: 'PUBLIC' } as const;

@Resolver(() => PlanType)
export class PlanResolver {
  constructor(private readonly planService: PlanService) {}

  @Query(() => [PlanType], { description: 'The public plan catalogue, in selling order.' })
  async plans(
    @Arg('product', () => Product, { nullable: true, description: 'Only the plans of this product.' })
    product: Product | null | undefined,
    @Info() info: GraphQLResolveInfo,
  ): Promise<PlanType[]> {
    maybeCacheControlFromInfo(info)?.setCacheHint(CATALOGUE_HINT);
    return (await this.planService.list(product)).map(toPlanType);
  }

  @Query(() => PlanType, { nullable: true, description: 'One plan by its key.' })
  async plan(
    @Arg('key', () => String, { description: 'The plan’s key, e.g. "pro"; an unknown one answers null.' })
    key: string,
  ): Promise<PlanType | null> {
    const plan = await this.planService.findByKey(key);
    return plan ? toPlanType(plan) : null;
  }
}
