import { billingMigrations } from '../../migrations/billing';
import type { SubgraphDefinition } from '../../common/subgraph';
import { Plan } from './plan.entity';
import { resolvePlanReference } from './plan.reference';
import { PlanResolver } from './plan.resolver';
import { PlanService } from './plan.service';
import { Subscription } from './subscription.entity';
import { SubscriptionService } from './subscription.service';
import { VenueBillingResolver } from './venue.resolver';
import { BillingVenue } from './venue.type';

/** Billing: the plan catalogue and who is subscribed to which plan. */
export const billingSubgraph: SubgraphDefinition = {
  name: 'billing',
  schemaModule: { schema: 'billing', entities: [Plan, Subscription], migrations: billingMigrations },
  resolvers: [PlanResolver, VenueBillingResolver],
  orphanedTypes: [BillingVenue],
  referenceResolvers: {
    Plan: { __resolveReference: resolvePlanReference },
    Venue: { __resolveReference: (reference: { id: string }) => ({ id: reference.id }) },
  },
  createResolvers: (scope) => [
    new PlanResolver(new PlanService(scope.em)),
    new VenueBillingResolver(new SubscriptionService(scope.em)),
  ],
};
