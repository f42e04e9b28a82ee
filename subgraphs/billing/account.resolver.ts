import { Directive, FieldResolver, Resolver, Root } from 'type-graphql';
import { AccountSubscriptionType, AccountUsageType, BillingAccount } from './account.type';
import { PlanType, toPlanType } from './plan.type';
import { SubscriptionService } from './subscription.service';

@Resolver(() => BillingAccount)
export class AccountBillingResolver {
  constructor(private readonly subscriptions: SubscriptionService) {}

  @FieldResolver(() => PlanType, {
    nullable: true,
    description: 'The CV plan the account is on; null without an active subscription.',
  })
  async plan(@Root() account: BillingAccount): Promise<PlanType | null> {
    const plan = await this.subscriptions.activePlanOf('account', Number(account.id));
    return plan ? toPlanType(plan) : null;
  }

  @FieldResolver(() => AccountSubscriptionType, {
    nullable: true,
    description: 'How the account pays for its plan; null when it has no subscription.',
  })
  async subscription(@Root() account: BillingAccount): Promise<AccountSubscriptionType | null> {
    const subscription = await this.subscriptions.subscriptionOf('account', Number(account.id));
    return subscription ? { status: subscription.status, endsAt: subscription.endsAt } : null;
  }

  @Directive('@requires(fields: "cvCount")')
  @FieldResolver(() => AccountUsageType, { description: 'What the account has used of its plan.' })
  async usage(@Root() account: BillingAccount): Promise<AccountUsageType> {
    return {
      cvs: account.cvCount,
      downloadsThisMonth: await this.subscriptions.downloadsThisMonth('account', Number(account.id)),
    };
  }
}
