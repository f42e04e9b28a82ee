import { Router } from 'express';
import { sendCacheable } from '../cacheable';
import type { CvDescriptions } from '../cv/cv.openapi';
import type { GraphClient } from '../graph-client';
import { json, ref, retryAfter } from '../openapi';
import { registerRoutes, routeFor, type RestRoute } from '../route-table';
import { CV_PLANS } from './plans.operations';
import { PLANS_CACHE_CONTROL, toPlanRecord } from './plans.resources';

/** What the plan route's handler works with. */
interface PlansDependencies {
  graph: GraphClient;
}

const route = routeFor<CvDescriptions, PlansDependencies>();

/** `GET /plans`: the public CV plan catalogue, described in cv-api.md's document; needs no key. */
export const PLAN_ROUTES: readonly RestRoute<CvDescriptions, PlansDependencies>[] = [
  route({
    method: 'get',
    path: '/plans',
    operations: [CV_PLANS],
    openapi: ({ publicLimited, cacheHeaders, notModified, data, ifNoneMatch }) => ({
      operationId: 'listPlans',
      summary: 'The public CV plan catalogue',
      description:
        'Needs no key and is not counted against any account: it counts against the client address’s public budget, like every request without a credential. null limits mean unlimited.',
      security: [],
      parameters: [ifNoneMatch],
      responses: {
        '200': {
          description: 'The plans, in selling order',
          headers: { ...publicLimited, ...cacheHeaders(PLANS_CACHE_CONTROL) },
          ...json(data({ type: 'array', items: ref('Plan') })),
        },
        '304': notModified({ ...publicLimited, ...cacheHeaders(PLANS_CACHE_CONTROL) }),
        '429': {
          description: 'Too many requests without a credential from this client address.',
          headers: {
            ...publicLimited,
            ...retryAfter,
          },
          ...json(ref('Error')),
        },
      },
    }),
    handler: async (req, res, { graph }) => {
      const { plans } = await graph.execute(CV_PLANS, {}, req);
      sendCacheable(req, res, { data: plans.map(toPlanRecord) }, PLANS_CACHE_CONTROL);
    },
  }),
];

/** The router of the plan catalogue, from its table. */
export function plansRoutes(graph: GraphClient): Router {
  return registerRoutes(Router(), PLAN_ROUTES, { graph });
}
