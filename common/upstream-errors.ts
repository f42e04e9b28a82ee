import type { GraphQLError } from 'graphql';
import { UNAVAILABLE_MESSAGE } from './database-errors';
import { UnavailableError } from './errors';
import { UpstreamUnreachableError } from './json-http';

/** Seconds a caller should wait while a process of the platform restarts or is replaced. */
export const UPSTREAM_RETRY_AFTER_SECONDS = 5;

/**
 * A process of the platform that could not be reached (a subgraph killed, restarting or not
 * answering in time) becomes UNAVAILABLE with a retry time: the operation may well succeed a few
 * seconds later, which "Server error" would not tell the caller.
 */
export function translateUpstreamError(error: unknown): GraphQLError | undefined {
  let current = error as { originalError?: unknown; cause?: unknown } | null | undefined;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth += 1) {
    if (current instanceof UpstreamUnreachableError || isGatewayTimeoutOrUnavailable(current)) {
      return new UnavailableError(UNAVAILABLE_MESSAGE, UPSTREAM_RETRY_AFTER_SECONDS);
    }
    current = (current.originalError ?? current.cause) as typeof current;
  }
  return undefined;
}

/** HTTP answers that mean "no process could take it now", as a load balancer in front answers them. */
const UNAVAILABLE_STATUSES = new Set([502, 503, 504]);

/**
 * A subgraph behind a load balancer that answered 502, 503 or 504 (no replica up, a connection
 * cut mid-way): Apollo's data source reports it as an error carrying the response's status.
 */
function isGatewayTimeoutOrUnavailable(error: object): boolean {
  const status = (error as { extensions?: { response?: { status?: unknown } } }).extensions?.response?.status;
  return typeof status === 'number' && UNAVAILABLE_STATUSES.has(status);
}
