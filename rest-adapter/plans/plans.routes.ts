import { Router } from 'express';
import type { BilledPlan } from '../../common/plan-client';
import { sendCacheable } from '../cacheable';
import { operation, type GraphClient } from '../graph-client';

export interface PlanData {
  key: string;
  name: string;
  monthlyPriceIqd: number;
  /** The graph's `CvPlanLimits`, as every reader of a plan sees it. */
  cv: BilledPlan['cv'];
}

export const CV_PLANS = operation<{ plans: PlanData[] }>(
  'CvPlans',
  /* GraphQL */ `
    query CvPlans {
      plans(product: CV) {
        key
        name
        monthlyPriceIqd
        cv {
          cvLimit
          downloadLimit
          premiumTemplates
          watermark
        }
      }
    }
  `,
);

/** The plan record of the CV document (its shape is ours to choose: see docs/API-DECISIONS.md). */
export function toPlanRecord(plan: PlanData) {
  return {
    key: plan.key,
    name: plan.name,
    price: plan.monthlyPriceIqd,
    currency: 'IQD',
    interval: 'month',
    cv_limit: plan.cv?.cvLimit ?? null,
    download_limit: plan.cv?.downloadLimit ?? null,
    premium_templates: plan.cv?.premiumTemplates ?? false,
    watermark: plan.cv?.watermark ?? false,
  };
}

/** `GET /plans`: the public CV plan catalogue; needs no key. */
export function plansRoutes(graph: GraphClient): Router {
  const router = Router();
  router.get('/plans', async (req, res) => {
    const { plans } = await graph.execute(CV_PLANS, {}, req);
    // The same for everyone, so shared caches may keep it too.
    sendCacheable(req, res, { data: plans.map(toPlanRecord) }, 'public, max-age=3600');
  });
  return router;
}
