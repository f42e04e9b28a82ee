import { billingMigrations } from '../../migrations/billing';
import { AccountBillingResolver } from './account.resolver';
import { MeterResolver } from './meter.resolver';
import { BillingAccount } from './account.type';
import type { SubgraphDefinition } from '../../common/subgraph';
import { parseRecordId } from '../../common/input.rules';
import { Plan } from './plan.entity';
import { resolvePlanReference } from './plan.reference';
import { PlanResolver } from './plan.resolver';
import { PlanService } from './plan.service';
import { Subscription } from './subscription.entity';
import { SubscriptionService } from './subscription.service';
import { VenueBillingResolver } from './venue.resolver';
import { BillingVenue } from './venue.type';

/** Billing: the plan catalogue, who is subscribed to which plan, and metered usage. */
export const billingSubgraph: SubgraphDefinition = {
  name: 'billing',
  schemaModule: { schema: 'billing', entities: [Plan, Subscription], migrations: billingMigrations },
  resolvers: [PlanResolver, VenueBillingResolver, AccountBillingResolver, MeterResolver],
  orphanedTypes: [BillingVenue, BillingAccount],
  referenceResolvers: {
    Plan: { __resolveReference: resolvePlanReference },
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
  createResolvers: (scope) => [
    new PlanResolver(new PlanService(scope.em)),
    new VenueBillingResolver(new SubscriptionService(scope.em)),
    new AccountBillingResolver(new SubscriptionService(scope.em)),
    new MeterResolver(new SubscriptionService(scope.em)),
  ],
};
