import { RING_INTERVAL_SECONDS } from '../../contracts/tickets/ticket.limits';
import type { RatePolicy } from '../../common/rate-budget';
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
} from '../openapi';
import { API_PREFIX, type RestRoute } from '../route-table';
import { TICKET_REQUEST_SCHEMA_IDS } from './tickets.requests';
import { TICKET_SCHEMA_IDS } from './tickets.resources';

/** What ticket-calling-api.md's description states that the adapter's configuration decides. */
export interface TicketsOpenApiSettings {
  /** Where clients reach the platform; the document's server is under it. */
  publicBaseUrl: string;
  /** The per-key budget every ticket route counts against. */
  policy: RatePolicy;
}

/** What the ticket routes' descriptions are made of, worded from the configured budget. */
export interface TicketsDescriptions {
  ok: ReturnType<typeof responses>['ok'];
  error: ReturnType<typeof responses>['error'];
  /** The answers every ticket route may give before its own: the key, the plan, the scope, the budget. */
  commonErrors: Record<string, unknown>;
  /** The JSON parser's refusals of a body, before the rate limiter and any route. */
  bodyErrors: Record<string, unknown>;
  /** The route's 422: its own reasons, if any, and text no field takes, which every route refuses. */
  validation: (reasons?: string) => Record<string, unknown>;
}

/** The descriptions' pieces for the budget `policy`. */
export function ticketsDescriptions(policy: RatePolicy): TicketsDescriptions {
  // The limiter answers for every ticket path before its route runs, refusals included.
  const { ok, error } = responses({ ...rateLimitHeaders(policy), ...requestIdHeader() }, 'Error');
  const bodyError = (description: string) => ({
    description,
    headers: requestIdHeader(),
    ...json(ref('Error')),
  });
  return {
    ok,
    error,
    commonErrors: {
      '401': error(
        'Wrong, missing or revoked key, or an Authorization that is not `Bearer <key>`: counted against the client address’s budget, which RateLimit then shows.',
      ),
      '402': error('The venue’s plan does not include the API.'),
      '403': error('The key lacks the required scope.'),
      '429': error(
        `More than ${policy.quota} requests ${perWindow(policy.windowSeconds)} for the key, or a ring within ${secondsInWords(RING_INTERVAL_SECONDS)}; without a valid key, the client address’s budget (RateLimit-Policy names it).`,
        'Error',
        retryAfter,
      ),
    },
    bodyErrors: {
      '400': bodyError('The body is not valid JSON.'),
      '413': bodyError(`The body is larger than ${bytesInWords(JSON_BODY_LIMIT_BYTES)}.`),
      '415': bodyError('The body’s character set or content encoding is not supported.'),
    },
    validation: (reasons) => ({
      '422': error(
        reasons === undefined
          ? `Text no field takes: ${TEXT_RULE}`
          : `${reasons} Or text no field takes: ${TEXT_RULE}`,
        'ValidationError',
      ),
    }),
  };
}

/** The OpenAPI 3.1 description of ticket-calling-api.md, assembled from its route table. */
export function ticketsOpenApi(
  routes: readonly RestRoute<TicketsDescriptions, never>[],
  settings: TicketsOpenApiSettings,
): Record<string, unknown> {
  return openApiDocument(
    {
      info: {
        title: 'Ticket-Calling Service API',
        version: '1.0.0',
        description: 'Order tickets that call customers. Every endpoint needs a branch API key.',
      },
      servers: [{ url: `${settings.publicBaseUrl}${API_PREFIX}` }],
      security: [{ bearer: [] }],
    },
    routes,
    ticketsDescriptions(settings.policy),
    {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'A branch API key.' } },
      schemas: components(TICKET_SCHEMA_IDS, TICKET_REQUEST_SCHEMA_IDS),
    },
  );
}
