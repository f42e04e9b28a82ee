import type { BilledPlan } from '../../common/plan-client';
import { operation } from '../graph-client';

/** The graph operation the plan catalogue maps onto, and what it returns. */

export interface PlanData {
  key: string;
  name: string;
  monthlyPriceIqd: number;
  /** The graph's `CvPlanLimits`, as every reader of a plan sees it. */
  cv: BilledPlan['cv'];
}

/** GET /plans: the CV plans in selling order. */
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
