import type { PlanService } from './plan.service';
import { toPlanType, type PlanType } from './plan.type';

/** How the gateway fetches a Plan that another subgraph refers to by key. */
export async function resolvePlanReference(
  reference: { key: string },
  plans: PlanService,
): Promise<PlanType | null> {
  const plan = await plans.findByKey(reference.key);
  return plan ? toPlanType(plan) : null;
}
