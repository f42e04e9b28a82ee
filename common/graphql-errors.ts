import { unwrapResolverError } from '@apollo/server/errors';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import type { Logger } from './logger';
import { translateDatabaseError } from './database-errors';
import { isErrorCode } from './errors';
import { currentRequestId, currentWantsMessageIds } from './request-context';
import { translateUpstreamError } from './upstream-errors';

/** Codes Apollo itself gives to a caller's mistakes; they pass through like ours. */
const CLIENT_CODES = new Set([
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'BAD_REQUEST',
  'OPERATION_RESOLUTION_FAILURE',
  'PERSISTED_QUERY_NOT_FOUND',
  'PERSISTED_QUERY_NOT_SUPPORTED',
]);

export const SERVER_ERROR_MESSAGE = 'Server error';

/**
 * Apollo `formatError` for every GraphQL server of the platform: typed errors keep their code and
 * extensions; anything else is logged with its stack and reaches the caller only as "Server error"
 * with the request id, so internals never leak.
 */
export function formatGraphQLError(logger: Logger) {
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const { stacktrace: _stacktrace, messages, ...rest } = formatted.extensions ?? {};
    const extensions = currentWantsMessageIds() && messages !== undefined ? { ...rest, messages } : rest;
    const code = extensions.code;
    if (isErrorCode(code) || (typeof code === 'string' && CLIENT_CODES.has(code))) {
      return { ...formatted, extensions };
    }
    // A subgraph already masked and logged it; the gateway only passes it on.
    if (code === 'INTERNAL_SERVER_ERROR' && formatted.message === SERVER_ERROR_MESSAGE) {
      return { ...formatted, extensions };
    }
    // Apollo refuses some requests as a whole (a persisted query's hash that does not match, an
    // unknown version) with a 4xx status and no code; they are the caller's mistake, not ours.
    if (requestRefusalStatus(error) !== undefined) {
      return { ...formatted, extensions: { ...extensions, code: 'BAD_REQUEST' } };
    }
    const cause = unwrapResolverError(error);
    // A subgraph that cannot be reached says so before the socket error it wraps reads as Postgres'.
    const translated = translateUpstreamError(cause) ?? translateDatabaseError(cause);
    if (translated !== undefined) {
      logger.warn(
        { err: cause, path: formatted.path },
        'a dependency refused or could not serve the operation',
      );
      return {
        message: translated.message,
        ...(formatted.path !== undefined ? { path: formatted.path } : {}),
        extensions: withoutUnaskedMessages(translated.extensions),
      };
    }
    logger.error({ err: cause, path: formatted.path }, 'unexpected GraphQL error');
    return {
      message: SERVER_ERROR_MESSAGE,
      ...(formatted.path !== undefined ? { path: formatted.path } : {}),
      extensions: { code: 'INTERNAL_SERVER_ERROR', requestId: currentRequestId() },
    };
  };
}

function requestRefusalStatus(error: unknown): number | undefined {
  if (!(error instanceof GraphQLError)) return undefined;
  const status = (error.extensions.http as { status?: unknown } | undefined)?.status;
  return typeof status === 'number' && status >= 400 && status < 500 ? status : undefined;
}

function withoutUnaskedMessages(extensions: Record<string, unknown>): Record<string, unknown> {
  if (currentWantsMessageIds()) return extensions;
  const { messages: _messages, ...rest } = extensions;
  return rest;
}
