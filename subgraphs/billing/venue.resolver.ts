import { FieldResolver, Resolver, Root } from 'type-graphql';
import { SubscriptionService } from './subscription.service';
import { PlanType, toPlanType } from './plan.type';
import { BillingVenue } from './venue.type';

@Resolver(() => BillingVenue)
export class VenueBillingResolver {
  constructor(private readonly subscriptions: SubscriptionService) {}

  @FieldResolver(() => PlanType, {
    nullable: true,
    description: 'The ticket-calling plan the venue is on; null without an active subscription.',
  })
  async plan(@Root() venue: BillingVenue): Promise<PlanType | null> {
    const plan = await this.subscriptions.activePlanOf('venue', Number(venue.id));
    return plan ? toPlanType(plan) : null;
  }
}
