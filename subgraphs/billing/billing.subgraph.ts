import { AccountBillingResolver } from './account.resolver';
import { MeterResolver } from './meter.resolver';
import { BillingAccount } from './account.type';
import type { EntityManager } from '../../common/database';
import type { SubgraphDefinition } from '../../common/subgraph';
import { parseRecordId } from '../../common/input.rules';
import { Plan } from './plan.entity';
import { resolvePlanReference } from './plan.reference';
import { PlanRepository } from './plan.repository';
import { PlanResolver } from './plan.resolver';
import { PlanService } from './plan.service';
import { Subscription } from './subscription.entity';
import { SubscriptionRepository } from './subscription.repository';
import { SubscriptionResolver } from './subscription.resolver';
import { PlanChanges } from './plan-change';
import { SubgraphClient } from '../../common/subgraph-call';
import { CLIENT_ADDRESS_HEADER, SESSION_USER_HEADER } from '../../contracts/identity/session';
import { SubscriptionService } from './subscription.service';
import { UsageRepository } from './usage.repository';
import { VenueBillingResolver } from './venue.resolver';
import { BillingVenue } from './venue.type';

/** The billing services of one unit of work. */
export interface BillingServices {
  plans: PlanService;
  subscriptions: SubscriptionService;
}

/** Each billing service on its repositories, over one EntityManager: a request's, a command's or a seed's. */
export function billingServices(em: EntityManager): BillingServices {
  const plans = new PlanRepository(em);
  return {
    plans: new PlanService(plans),
    subscriptions: new SubscriptionService(new SubscriptionRepository(em), plans, new UsageRepository(em)),
  };
}

/** Billing: the plan catalogue, who is subscribed to which plan, and metered usage. */
export const billingSubgraph: SubgraphDefinition = {
  name: 'billing',
  schemaModule: {
    schema: 'billing',
    entities: [Plan, Subscription],
    migrations: () => import('../../migrations/billing').then((m) => m.billingMigrations),
  },
  resolvers: [
    PlanResolver,
    VenueBillingResolver,
    AccountBillingResolver,
    MeterResolver,
    SubscriptionResolver,
  ],
  orphanedTypes: [BillingVenue, BillingAccount],
  referenceResolvers: {
    Plan: {
      __resolveReference: (reference: { key: string }, { scope }) =>
        resolvePlanReference(reference, billingServices(scope.em).plans),
    },
    // An id that cannot be a record's is no entity: its fields resolve to null, not to a query on NaN.
    Venue: {
      __resolveReference: (reference: { id: string }) =>
        parseRecordId(reference.id) === null ? null : { id: reference.id },
    },
    Account: {
      __resolveReference: (reference: { id: string; cvCount?: number }) =>
        parseRecordId(reference.id) === null ? null : { id: reference.id, cvCount: reference.cvCount ?? 0 },
    },
  },
  createResolvers: (scope) => {
    const { plans, subscriptions } = billingServices(scope.em);
    return [
      new PlanResolver(plans),
      new VenueBillingResolver(subscriptions),
      new AccountBillingResolver(subscriptions),
      new MeterResolver(subscriptions),
      new SubscriptionResolver(
        subscriptions,
        new PlanChanges(
          subscriptions,
          SubgraphClient.of(scope.config, 'tickets'),
          SubgraphClient.of(scope.config, 'cv'),
          scope.redis,
          scope.config.redisPrefix,
          parseRecordId(scope.headers[SESSION_USER_HEADER]),
          scope.requestId,
          scope.headers[CLIENT_ADDRESS_HEADER] ?? null,
        ),
      ),
    ];
  },
};
