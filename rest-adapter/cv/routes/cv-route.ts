import type { Request } from 'express';
import { ValidationError, type FieldMessages } from '../../../common/errors';
import type { GraphClient } from '../../graph-client';
import { routeFor, type RestRoute } from '../../route-table';
import type { CvDescriptions } from '../cv.openapi';
import { CV_AUTH, CV_OWNED } from '../cv.operations';

/** What a CV route's handler works with. */
export interface CvDependencies {
  graph: GraphClient;
  /** cv-api.md's openapi.json, built once from the tables and the configuration. */
  document: Record<string, unknown> | undefined;
}

/** One route of the CV document's table. */
export type CvRoute = RestRoute<CvDescriptions, CvDependencies>;

/** The entry maker of the CV table: each route file makes its entries with it. */
export const route = routeFor<CvDescriptions, CvDependencies>();

/** The key, the CV's existence and its owner are judged before the body: 401, 404, 403, then 422. */
export async function refuse(
  graph: GraphClient,
  req: Request,
  errors: FieldMessages,
  params: Record<string, string> = req.params as Record<string, string>,
): Promise<never> {
  if (typeof params.uuid === 'string') await graph.execute(CV_OWNED, { id: params.uuid }, req);
  else await graph.execute(CV_AUTH, {}, req);
  throw new ValidationError(errors);
}

/** Why a create or an import may be refused 403. */
export const PLAN_REFUSALS =
  'The plan’s cv_limit is reached, or the template is premium and the plan lacks them.';
