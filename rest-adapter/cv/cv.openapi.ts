import { z } from 'zod';
import type { RatePolicy } from '../../common/rate-budget';
import { EXPORTS_PER_MINUTE } from '../../contracts/cv/export.limits';
import { bytesInWords, perWindow, secondsInWords } from '../figures';
import { JSON_BODY_LIMIT_BYTES } from '../http-errors';
import {
  components,
  json,
  openApiDocument,
  rateLimitHeaders,
  ref,
  requestIdHeader,
  responses,
  retryAfter,
  TEXT_RULE,
  type SchemaRegistry,
} from '../openapi';
import { PLAN_SCHEMAS } from '../plans/plans.resources';
import { API_PREFIX, type RestRoute } from '../route-table';
import { CV_REQUEST_SCHEMAS, uuidParameter } from './cv.requests';
import { CV_RESOURCE_SCHEMAS, TEMPLATE_CACHE_CONTROL, TEMPLATE_VARY } from './cv.resources';

/** What cv-api.md's description states that the adapter's configuration decides. */
export interface CvOpenApiSettings {
  /** Where clients reach the platform; the document's server is under it. */
  publicBaseUrl: string;
  /** The account budget of the CV routes, and the client address's budget of GET /plans. */
  policies: { cv: RatePolicy; public: RatePolicy };
  /** How long the cv subgraph lets one export render (config.render.timeoutMs). */
  renderTimeoutMs: number;
}

type Headers = Record<string, unknown>;

/** What the CV and plan routes' descriptions are made of, worded from the configured limits. */
export interface CvDescriptions {
  ok: ReturnType<typeof responses>['ok'];
  error: ReturnType<typeof responses>['error'];
  /** The headers every counted CV answer carries: the budget's and the request id. */
  limited: Headers;
  /** The same for GET /plans, counted per client address. */
  publicLimited: Headers;
  /**
   * The answers every keyed route may give: no valid key, text no field takes (a route with a 422
   * of its own words replaces it), or over the account's budget.
   */
  authErrors: Record<string, unknown>;
  /** The JSON parser's refusals, before the rate limiter and any route. */
  bodyErrors: Record<string, unknown>;
  /** An export's own refusals: the plan's downloads, the export rate and the renderer. */
  exportErrors: Record<string, unknown>;
  /** The route's 422. */
  validation: (description: string) => Record<string, unknown>;
  /** A route on one CV: its parameters and the answers about the CV itself. */
  onCv: (
    operationId: string,
    summary: string,
    description: string,
    success: Record<string, unknown>,
    extra?: Record<string, unknown>,
  ) => {
    operationId: string;
    summary: string;
    description: string;
    parameters: unknown[];
    responses: Record<string, unknown>;
  };
  templateCache: Headers;
  cacheHeaders: (cacheControl: string, vary?: string) => Headers;
  notModified: (headers: Headers) => { description: string; headers: Headers };
  /** A success body, wrapped as cv-api.md wraps every one: {"data": …}. */
  data: (schemaRef: object) => object;
  acceptLanguage: object;
  ifNoneMatch: object;
}

type ErrorAnswer = CvDescriptions['error'];

/** An answer's caching headers: its strong ETag, its Cache-Control and, when it varies, Vary. */
function cacheHeaders(cacheControl: string, vary?: string): Headers {
  return {
    ETag: {
      description: 'A strong tag of the body’s bytes; send it back in If-None-Match.',
      required: true,
      schema: { type: 'string' },
    },
    'Cache-Control': { description: cacheControl, required: true, schema: { type: 'string' } },
    ...(vary === undefined
      ? {}
      : { Vary: { description: vary, required: true, schema: { type: 'string' } } }),
  };
}

/** The answers every keyed route may give (CvDescriptions.authErrors). */
function authErrorsOf(error: ErrorAnswer, perAccount: string): Record<string, unknown> {
  return {
    '401': error(
      'Missing, invalid or revoked X-API-Key: counted against the client address’s budget, which RateLimit then shows.',
    ),
    '422': error(`Text no field takes: ${TEXT_RULE}`),
    '429': error(
      `More than ${perAccount} for the account, all its keys together; without a valid key, the client address’s budget (RateLimit-Policy names it).`,
      'Error',
      retryAfter,
    ),
  };
}

/** The JSON parser's refusals, answered before the rate limiter: no budget headers. */
function bodyErrorsOf(): Record<string, unknown> {
  const bodyError = (description: string) => ({
    description,
    headers: requestIdHeader(),
    ...json(ref('Error')),
  });
  return {
    '400': bodyError('The body is not valid JSON.'),
    '413': bodyError(`The body is larger than ${bytesInWords(JSON_BODY_LIMIT_BYTES)}.`),
    '415': bodyError('The body’s character set or content encoding is not supported.'),
  };
}

/** An export's own refusals: the plan's downloads, the export rate and the renderer. */
function exportErrorsOf(
  error: ErrorAnswer,
  perAccount: string,
  renderTimeoutMs: number,
): Record<string, unknown> {
  return {
    '403': error('Another account’s CV, or the plan’s download_limit is reached (the message names it).'),
    '429': error(
      `More than ${EXPORTS_PER_MINUTE} exports a minute, or more than ${perAccount}.`,
      'Error',
      retryAfter,
    ),
    '503': error(
      `The renderer is saturated or a render took over ${secondsInWords(renderTimeoutMs / 1000)}.`,
      'Error',
      retryAfter,
    ),
  };
}

/** The descriptions' pieces for the configured limits. */
export function cvDescriptions({
  policies,
  renderTimeoutMs,
}: Omit<CvOpenApiSettings, 'publicBaseUrl'>): CvDescriptions {
  // The limiter answers for every CV path before its route runs, refusals included.
  const limited = { ...rateLimitHeaders(policies.cv), ...requestIdHeader() };
  const { ok, error } = responses(limited, 'Error');
  const perAccount = `${policies.cv.quota} requests ${perWindow(policies.cv.windowSeconds)}`;
  const acceptLanguage = { $ref: '#/components/parameters/AcceptLanguage' };
  const authErrors = authErrorsOf(error, perAccount);
  const cvErrors = {
    '403': error('The CV belongs to another account.'),
    '404': error('No CV has this UUID (or it is not a UUID).'),
  };
  return {
    ok,
    error,
    limited,
    publicLimited: { ...rateLimitHeaders(policies.public), ...requestIdHeader() },
    authErrors,
    bodyErrors: bodyErrorsOf(),
    exportErrors: exportErrorsOf(error, perAccount, renderTimeoutMs),
    validation: (description) => ({
      '422': error(`${description} Or text no field takes: ${TEXT_RULE}`),
    }),
    onCv: (operationId, summary, description, success, extra = {}) => ({
      operationId,
      summary,
      description,
      parameters: [uuidParameter, acceptLanguage],
      responses: { ...success, ...authErrors, ...cvErrors, ...extra },
    }),
    templateCache: cacheHeaders(
      `${TEMPLATE_CACHE_CONTROL}: availability follows the account’s plan.`,
      TEMPLATE_VARY,
    ),
    cacheHeaders,
    notModified: (headers) => ({
      description: 'The client’s copy (named in If-None-Match) is current; no body.',
      headers,
    }),
    data: (schemaRef) => ({
      type: 'object',
      properties: { data: schemaRef },
      required: ['data'],
      additionalProperties: false,
    }),
    acceptLanguage,
    ifNoneMatch: { $ref: '#/components/parameters/IfNoneMatch' },
  };
}

/**
 * The CV document's own registry: its component names (Error, Template…) would otherwise collide
 * with the ticket document's in the global one, where a second id silently replaces the first.
 */
const NAMED = { ...CV_RESOURCE_SCHEMAS, ...PLAN_SCHEMAS, ...CV_REQUEST_SCHEMAS };
const registry: SchemaRegistry = z.registry<{ id: string }>();
for (const [id, schema] of Object.entries(NAMED)) registry.add(schema, { id });

/** The OpenAPI 3.1 description of cv-api.md, assembled from its route tables (the CV routes and GET /plans). */
export function cvOpenApi(
  routes: readonly RestRoute<CvDescriptions, never>[],
  settings: CvOpenApiSettings,
): Record<string, unknown> {
  const { cv } = settings.policies;
  return openApiDocument(
    {
      info: {
        title: 'CV Service API',
        version: '1.0.0',
        description: `Accounts, templates and CVs of the CV service. Every endpoint except GET /plans needs the account’s X-API-Key; ${cv.quota} requests ${perWindow(cv.windowSeconds)} per account. Success bodies are {"data": …}; errors are {"message", "errors"}.`,
      },
      servers: [{ url: `${settings.publicBaseUrl}${API_PREFIX}` }],
      security: [{ apiKey: [] }],
    },
    routes,
    cvDescriptions(settings),
    {
      securitySchemes: {
        apiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'X-API-Key',
          description:
            'A key of the account, made in the API access section of its profile; shown once. Missing, invalid or revoked is 401.',
        },
      },
      parameters: {
        AcceptLanguage: {
          name: 'Accept-Language',
          in: 'header',
          required: false,
          schema: { type: 'string' },
          description: 'ar or en: the language of messages. English otherwise.',
        },
        IfNoneMatch: {
          name: 'If-None-Match',
          in: 'header',
          required: false,
          schema: { type: 'string' },
          description:
            'ETags the client holds (a list, weak or strong, or *); a match is 304 without a body.',
        },
      },
      schemas: components(Object.keys(NAMED), Object.keys(CV_REQUEST_SCHEMAS), registry),
    },
  );
}
