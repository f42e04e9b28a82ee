import { z } from 'zod';
import { describes } from '../openapi';
import type { PlanData } from './plans.operations';

/** The plan record of the CV document and its mapper (its shape is ours to choose: see docs/API-DECISIONS.md). */

/** A plan's allowance: a count, or null for unlimited. */
export const planLimit = z.number().int().min(0).nullable().describe('null: unlimited.');

/** A plan of the catalogue. */
export const plan = z
  .object({
    key: z.string(),
    name: z.string(),
    price: z.number().int().min(0).describe('Monthly, in whole Iraqi dinars.'),
    currency: z.literal('IQD'),
    interval: z.literal('month'),
    cv_limit: planLimit,
    download_limit: planLimit,
    premium_templates: z.boolean(),
    watermark: z.boolean(),
  })
  .strict();

/** The same for everyone, so shared caches may keep it too. */
export const PLANS_CACHE_CONTROL = 'public, max-age=3600';

/** The named schemas this domain adds to the CV document. */
export const PLAN_SCHEMAS = { Plan: plan } as const;

/** The plan record of the CV document. */
export function toPlanRecord(plan: PlanData) {
  return {
    key: plan.key,
    name: plan.name,
    price: plan.monthlyPriceIqd,
    currency: 'IQD' as const,
    interval: 'month' as const,
    cv_limit: plan.cv?.cvLimit ?? null,
    download_limit: plan.cv?.downloadLimit ?? null,
    premium_templates: plan.cv?.premiumTemplates ?? false,
    watermark: plan.cv?.watermark ?? false,
  };
}

describes(plan, toPlanRecord);
