import { billingMigrations } from '../../migrations/billing';
import type { SubgraphDefinition } from '../../common/subgraph';
import { Plan } from './plan.entity';
import { resolvePlanReference } from './plan.reference';
import { PlanResolver } from './plan.resolver';
import { PlanService } from './plan.service';

/** Billing: the plan catalogue (and, as products grow, subscriptions and usage). */
export const billingSubgraph: SubgraphDefinition = {
  name: 'billing',
  schemaModule: { schema: 'billing', entities: [Plan], migrations: billingMigrations },
  resolvers: [PlanResolver],
  referenceResolvers: { Plan: { __resolveReference: resolvePlanReference } },
  createResolvers: (scope) => [new PlanResolver(new PlanService(scope.em))],
};
