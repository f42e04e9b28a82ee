import type { ErrorRequestHandler, Request, RequestHandler } from 'express';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { httpStatusOf, isErrorCode, type FieldErrors } from '../common/errors';
import type { Logger } from '../common/logger';
import { currentRequestId } from '../common/request-context';
import { bytesInWords } from './figures';
import { GatewayUnavailableError, GraphOperationError } from './graph-client';

/** The largest JSON body the adapter's parser takes (rest-adapter.ts); larger is 413. */
export const JSON_BODY_LIMIT_BYTES = 1024 * 1024;

export interface HttpError {
  status: number;
  body: { message: string; errors?: FieldErrors; request_id?: string };
  headers: Record<string, string>;
}

const serverError = (requestId: string | undefined): HttpError => ({
  status: 500,
  body: { message: 'Server error', ...(requestId !== undefined ? { request_id: requestId } : {}) },
  headers: {},
});

function isFieldErrors(value: unknown): value is FieldErrors {
  return (
    typeof value === 'object' &&
    value !== null &&
    Object.values(value).every((v) => Array.isArray(v) && v.every((m) => typeof m === 'string'))
  );
}

/** The graph names fields as GraphQL does (externalId); the documents name them as REST does (external_id). */
function snakeCaseKeys(errors: FieldErrors): FieldErrors {
  return Object.fromEntries(
    Object.entries(errors).map(([key, messages]) => [
      key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`),
      messages,
    ]),
  );
}

/** Apollo rejects badly typed variables before any resolver runs; name the variable as the field. */
function variableErrors(error: GraphQLFormattedError): FieldErrors {
  const variable = /Variable "\$(\w+)"/.exec(error.message)?.[1];
  return { [variable ?? 'request']: [error.message] };
}

/** Maps the graph's typed error codes to the documented status and body; the only place that does. */
export function graphErrorToHttp(errors: readonly GraphQLFormattedError[], requestId?: string): HttpError {
  const error = errors.find((e) => isErrorCode(e.extensions?.code)) ?? errors[0];
  const code = error?.extensions?.code;
  if (error === undefined || !isErrorCode(code)) return serverError(requestId);
  const status = httpStatusOf(code);
  switch (code) {
    case 'BAD_USER_INPUT': {
      const fieldErrors = error.extensions?.errors;
      return {
        status,
        body: {
          message: error.message,
          errors: snakeCaseKeys(isFieldErrors(fieldErrors) ? fieldErrors : variableErrors(error)),
        },
        headers: {},
      };
    }
    case 'RATE_LIMITED':
    case 'UNAVAILABLE': {
      const retryAfter = Number(error.extensions?.retryAfter);
      return {
        status,
        body: { message: error.message },
        headers:
          Number.isFinite(retryAfter) && retryAfter > 0
            ? { 'Retry-After': String(Math.ceil(retryAfter)) }
            : {},
      };
    }
    case 'UNAUTHENTICATED':
    case 'FORBIDDEN':
    case 'PAYMENT_REQUIRED':
    case 'NOT_FOUND':
    case 'CONFLICT':
      return { status, body: { message: error.message }, headers: {} };
  }
}

/** Errors body-parser raises for the request itself, before any route runs. */
function requestBodyError(error: unknown): HttpError | undefined {
  const type = (error as { type?: unknown } | null)?.type;
  switch (type) {
    case 'entity.parse.failed':
      return { status: 400, body: { message: 'The request body is not valid JSON.' }, headers: {} };
    case 'entity.too.large':
      return {
        status: 413,
        body: { message: `The request body is larger than ${bytesInWords(JSON_BODY_LIMIT_BYTES)}.` },
        headers: {},
      };
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return { status: 415, body: { message: 'The request body encoding is not supported.' }, headers: {} };
    case 'request.aborted':
      return { status: 400, body: { message: 'The request was aborted.' }, headers: {} };
    default:
      return undefined;
  }
}

export function toHttpError(error: unknown, requestId: string | undefined): HttpError {
  if (error instanceof GraphOperationError) return graphErrorToHttp(error.errors, requestId);
  // The adapter's own shape checks throw the platform's typed errors too.
  if (error instanceof GraphQLError) return graphErrorToHttp([error.toJSON()], requestId);
  if (error instanceof GatewayUnavailableError) {
    return {
      status: 503,
      body: {
        message: 'Service temporarily unavailable',
        ...(requestId !== undefined ? { request_id: requestId } : {}),
      },
      headers: { 'Retry-After': '5' },
    };
  }
  return requestBodyError(error) ?? serverError(requestId);
}

/**
 * Answers a failed request with its mapped status and body. `alwaysFieldErrors` is the CV
 * document's shape, where every error body carries `errors` (empty when no field is at fault).
 */
export function errorHandler(
  logger: Logger,
  {
    alwaysFieldErrors = false,
    localize,
  }: {
    alwaysFieldErrors?: boolean;
    localize?: (body: HttpError['body'], req: Request) => HttpError['body'];
  } = {},
): ErrorRequestHandler {
  return (error: unknown, req, res, next) => {
    if (res.headersSent) {
      next(error);
      return;
    }
    const mapped = isUndecodablePath(error)
      ? { status: 404, body: { message: routeNotFoundMessage(req) }, headers: {} }
      : toHttpError(error, currentRequestId());
    // A dependency that is away (503) is expected to come back and is logged where it failed.
    if (mapped.status === 503) logger.warn({ err: error }, 'request failed: a dependency is unavailable');
    else if (mapped.status >= 500) logger.error({ err: error }, 'request failed');
    const body = alwaysFieldErrors ? { ...mapped.body, errors: mapped.body.errors ?? {} } : mapped.body;
    res
      .status(mapped.status)
      .set(mapped.headers)
      .json(localize === undefined ? body : localize(body, req));
  };
}

/**
 * Express could not decode a path parameter (`/t/%FF`): bytes that are not UTF-8 name no page and
 * no record, so the path is answered as an unknown route. The API documents' routers refuse such
 * paths earlier, naming the parameter (input-guard.ts); this is the floor beneath them.
 */
function isUndecodablePath(error: unknown): boolean {
  return error instanceof URIError && (error as URIError & { status?: unknown }).status === 400;
}

/** Laravel's wording, which legacy clients may match on; the path as the client sent it. */
export function routeNotFoundMessage(req: Request): string {
  const path = req.originalUrl.split('?')[0] ?? '';
  return `The route ${path.replace(/^\//, '')} could not be found.`;
}

export const unknownRoute: RequestHandler = (req, res) => {
  res.status(404).json({ message: routeNotFoundMessage(req) });
};
