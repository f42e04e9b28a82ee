import { Router, type ErrorRequestHandler, type Request, type RequestHandler } from 'express';
import { NotFoundError, RateLimitedError } from '../../common/errors';
import { languageOf } from '../../common/language';
import { text } from '../../common/messages';
import type { Logger } from '../../common/logger';
import type { CredentialBudgets, RatePolicy } from '../../common/rate-budget';
import { presentedCredentials } from '../../contracts/credentials';
import type { GraphClient } from '../graph-client';
import { bodyIn, errorHandler, routeNotFound } from '../http-errors';
import { inputGuard } from '../input-guard';
import { PLAN_ROUTES } from '../plans/plans.routes';
import { credentialLimit } from '../rate-limit';
import { registerRoutes, type RestRoute } from '../route-table';
import { cvOpenApi, type CvDescriptions } from './cv.openapi';
import { CV_TEMPLATE } from './cv.operations';
import { ACCOUNT_ROUTES } from './routes/account.routes';
import { refuse, type CvRoute } from './routes/cv-route';
import { CV_COLLECTION_ROUTES, CV_ITEM_ROUTES } from './routes/cvs.routes';
import { EXPORT_ROUTES } from './routes/exports.routes';
import { JSON_RESUME_EXPORT_ROUTE, JSON_RESUME_IMPORT_ROUTE } from './routes/json-resume.routes';
import { OPENAPI_ROUTES } from './routes/openapi.routes';
import { PHOTO_ROUTES } from './routes/photo.routes';
import { TEMPLATE_ROUTES } from './routes/templates.routes';

/** What the CV router counts against and describes itself with. */
export interface CvRoutesOptions {
  /** The platform's budgets per credential: every CV route counts against its account's. */
  counts: CredentialBudgets;
  /** The account budget (cv-api.md's requests a minute per account), as the document states it. */
  policy: RatePolicy;
  /** Where clients reach the platform; the OpenAPI document's server is under it. */
  publicBaseUrl: string;
  /**
   * What else the published document states that the configuration decides. A router built
   * without it, only to list its routes, has no document to serve.
   */
  openApi?: { publicPolicy: RatePolicy; renderTimeoutMs: number };
}

/**
 * The CV document's routes that need `X-API-Key`, in the document's order; each is one graph
 * operation. Each resource's routes are in their own file under routes/; the router registers
 * them and openapi.json lists them in this order.
 */
export const CV_ROUTES: readonly CvRoute[] = [
  ...ACCOUNT_ROUTES,
  ...TEMPLATE_ROUTES,
  ...CV_COLLECTION_ROUTES,
  JSON_RESUME_IMPORT_ROUTE,
  ...CV_ITEM_ROUTES,
  ...PHOTO_ROUTES,
  ...EXPORT_ROUTES,
  JSON_RESUME_EXPORT_ROUTE,
  ...OPENAPI_ROUTES,
];

/** Every route cv-api.md's document describes: the CV routes and the plan catalogue. */
export const CV_DOCUMENT_ROUTES: readonly RestRoute<CvDescriptions, never>[] = [...CV_ROUTES, ...PLAN_ROUTES];

/** A refusal of the CV document's limits, in its error shape and the asked language. */
export function cvRateLimitRefusal(req: Request, retryAfterSeconds: number): Error {
  return new RateLimitedError(
    retryAfterSeconds,
    text('rate.too_many_attempts', languageOf(req.get('accept-language'))),
  );
}

/**
 * The limit is the account's, not the key's: two keys of one account share it, here and on the
 * gateway (CredentialBudgets); a key the graph refuses is counted by the client address (and
 * answered 401 by the route).
 */
function accountLimiter(options: CvRoutesOptions): RequestHandler {
  return credentialLimit(options.counts, {
    presented: (req) => presentedCredentials({ 'x-api-key': req.get('x-api-key') }),
    refusal: cvRateLimitRefusal,
  });
}

/** The router of the CV routes: the account's limit, the input guard, every route of the table, then the document's own 404 and error shape. */
export function cvRoutes(graph: GraphClient, logger: Logger, options: CvRoutesOptions): Router {
  const router = Router();
  router.use(CV_PATHS, accountLimiter(options));
  router.use(
    inputGuard({
      paths: CV_PATHS,
      // The import's path is listed first so that `import` is not read as a CV's UUID.
      routes: ['/cvs/import/json-resume', '/cvs/:uuid', '/templates/:id'],
      // A UUID or template id that cannot be one is that record's 404, in the graph's words and language.
      identifiers: ['uuid', 'id'],
      headers: ['accept-language', 'if-none-match'],
      refuse: async (req, { errors, params, unaddressable }) => {
        if (unaddressable && typeof params.id === 'string' && params.uuid === undefined) {
          await graph.execute(CV_TEMPLATE, { id: params.id }, req);
        }
        return refuse(graph, req, errors, params);
      },
    }),
  );
  const document =
    options.openApi === undefined
      ? undefined
      : cvOpenApi(CV_DOCUMENT_ROUTES, {
          publicBaseUrl: options.publicBaseUrl,
          policies: { cv: options.policy, public: options.openApi.publicPolicy },
          renderTimeoutMs: options.openApi.renderTimeoutMs,
        });
  registerRoutes(router, CV_ROUTES, { graph, document });
  // A path under the document's that no route takes (`/cvs//pdf`) is still answered in its shape.
  router.use(CV_PATHS, (req, _res, next) => next(new NotFoundError(routeNotFound(req))));
  // Inside this router, so only the CV document's routes answer in its error shape.
  router.use(cvErrorHandler(logger));
  return router;
}

/** Paths of the CV document, whose errors always carry `errors` and follow `Accept-Language`. */
export const CV_PATHS = ['/me', '/templates', '/cvs', '/cv'];

/** The CV document's error handler: field errors always present, messages in the asked language. */
export function cvErrorHandler(logger: Logger): ErrorRequestHandler {
  return errorHandler(logger, {
    alwaysFieldErrors: true,
    // The graph's own messages (401, 403, 404) arrive already in the asked language.
    localize: (mapped, req) => bodyIn(mapped, languageOf(req.get('accept-language'))),
  });
}
