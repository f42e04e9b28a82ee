import type { ErrorRequestHandler, Request, RequestHandler } from 'express';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import {
  httpStatusOf,
  isErrorCode,
  type ErrorMessages,
  type FieldErrors,
  type FieldMessages,
} from '../common/errors';
import type { TextLanguage } from '../common/language';
import { isMessage, render, renderAll, say, type Message } from '../common/messages';
import type { Logger } from '../common/logger';
import { bodyRefusalStatus } from '../common/request-body';
import { currentRequestId } from '../common/request-context';
import { bytesInWords } from './figures';
import { GatewayUnavailableError, GraphOperationError } from './graph-client';

/** The largest JSON body the adapter's parser takes (rest-adapter.ts); larger is 413. */
export const JSON_BODY_LIMIT_BYTES = 1024 * 1024;

export interface HttpError {
  status: number;
  /** In English: the ticket document's language, and the CV document's without Accept-Language. */
  body: { message: string; errors?: FieldErrors; request_id?: string };
  headers: Record<string, string>;
  /** The ids of the body's sentences, when known, for a document that answers in other languages. */
  messages?: ErrorMessages;
}

/** An answer whose one sentence the adapter says itself. */
function said(status: number, sentence: Message, headers: Record<string, string> = {}): HttpError {
  return { status, body: { message: render(sentence, 'en') }, headers, messages: { message: [sentence] } };
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
function snakeCase(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

function snakeCaseKeys<T>(errors: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(errors).map(([key, messages]) => [snakeCase(key), messages]));
}

/** `extensions.messages` as another process sent it: taken only when every part is a known message. */
function errorMessagesOf(value: unknown): ErrorMessages | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { message: summary, errors } = value as { message?: unknown; errors?: unknown };
  if (!Array.isArray(summary) || !summary.every(isMessage)) return undefined;
  if (errors === undefined) return { message: summary };
  if (
    typeof errors !== 'object' ||
    errors === null ||
    !Object.values(errors).every((list) => Array.isArray(list) && list.every(isMessage))
  ) {
    return undefined;
  }
  return { message: summary, errors: snakeCaseKeys(errors as FieldMessages) };
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
  const messages = errorMessagesOf(error.extensions?.messages);
  const known = messages === undefined ? {} : { messages };
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
        ...known,
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
        ...known,
      };
    }
    case 'UNAUTHENTICATED':
    case 'FORBIDDEN':
    case 'PAYMENT_REQUIRED':
    case 'NOT_FOUND':
    case 'CONFLICT':
      return { status, body: { message: error.message }, headers: {}, ...known };
  }
}

/**
 * The body in another language, from the ids of its sentences. A sentence whose id did not travel
 * with it (a GraphQL variable error, a message a subgraph already said in the caller's language)
 * is kept as it is.
 */
export function bodyIn(mapped: HttpError, language: TextLanguage): HttpError['body'] {
  const { body, messages } = mapped;
  if (language === 'en' || messages === undefined) return body;
  const errors = body.errors;
  return {
    ...body,
    message: renderAll(messages.message, language),
    ...(errors === undefined
      ? {}
      : {
          errors: Object.fromEntries(
            Object.entries(errors).map(([field, english]) => {
              const said = messages.errors?.[field];
              return [
                field,
                said !== undefined && said.length === english.length
                  ? said.map((m) => render(m, language))
                  : english,
              ];
            }),
          ),
        }),
  };
}

/** Errors body-parser raises for the request itself, before any route runs. */
function requestBodyError(error: unknown): HttpError | undefined {
  const type = (error as { type?: unknown } | null)?.type;
  switch (type) {
    case 'entity.parse.failed':
      return said(400, say('request.invalid_json'));
    case 'entity.too.large':
      return said(413, say('request.too_large', { size: bytesInWords(JSON_BODY_LIMIT_BYTES) }));
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return said(415, say('request.encoding'));
    case 'request.aborted':
      return said(400, say('request.aborted'));
    default:
      // body-parser's other refusals of the body as sent (gzip that is not gzip, a length that is
      // not the Content-Length) carry only their status.
      return bodyRefusalStatus(error) === 400 ? said(400, say('request.unreadable')) : undefined;
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

/** What a request that failed with `error` is answered, logged as its severity asks. */
export function failedRequest(logger: Logger, error: unknown): HttpError {
  const mapped = toHttpError(error, currentRequestId());
  // A dependency that is away (503) is expected to come back and is logged where it failed.
  if (mapped.status === 503) logger.warn({ err: error }, 'request failed: a dependency is unavailable');
  else if (mapped.status >= 500) logger.error({ err: error }, 'request failed');
  return mapped;
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
    localize?: (mapped: HttpError, req: Request) => HttpError['body'];
  } = {},
): ErrorRequestHandler {
  return (error: unknown, req, res, next) => {
    if (res.headersSent) {
      next(error);
      return;
    }
    const mapped = isUndecodablePath(error) ? said(404, routeNotFound(req)) : failedRequest(logger, error);
    const body = localize === undefined ? mapped.body : localize(mapped, req);
    res
      .status(mapped.status)
      .set(mapped.headers)
      .json(alwaysFieldErrors ? { ...body, errors: body.errors ?? {} } : body);
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
export function routeNotFound(req: Request): Message {
  const path = req.originalUrl.split('?')[0] ?? '';
  return say('request.route_not_found', { path: path.replace(/^\//, '') });
}

export const unknownRoute: RequestHandler = (req, res) => {
  res.status(404).json({ message: render(routeNotFound(req), 'en') });
};
