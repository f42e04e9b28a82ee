import type { SubgraphContext } from '../../common/subgraph';
import { PlanService } from './plan.service';
import { toPlanType, type PlanType } from './plan.type';

/** How the gateway fetches a Plan that another subgraph refers to by key. */
export async function resolvePlanReference(
  reference: { key: string },
  { scope }: SubgraphContext,
): Promise<PlanType | null> {
  const plan = await new PlanService(scope.em).findByKey(reference.key);
  return plan ? toPlanType(plan) : null;
}
