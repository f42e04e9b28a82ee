import { Arg, Query, Resolver } from 'type-graphql';
import { Product } from './plan.entity';
import { PlanService } from './plan.service';
import { PlanType, toPlanType } from './plan.type';

@Resolver(() => PlanType)
export class PlanResolver {
  constructor(private readonly planService: PlanService) {}

  @Query(() => [PlanType], { description: 'The public plan catalogue, in selling order.' })
  async plans(
    @Arg('product', () => Product, { nullable: true, description: 'Only the plans of this product.' })
    product?: Product | null,
  ): Promise<PlanType[]> {
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
