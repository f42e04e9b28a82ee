import type { GraphQLError } from 'graphql';
import { UnavailableError, ValidationError } from './errors';
import { say, type MessageId } from './messages';

/**
 * SQLSTATEs where Postgres refused a value the caller sent (a NUL in text, a number out of a
 * column's range, text that is not a number): the caller's mistake, never the server's fault.
 * The edges name the field first; this is the floor beneath them, so no such value becomes a 500.
 */
const REFUSED_VALUES: Record<string, MessageId> = {
  '22P05': 'database.text_character',
  // A NUL inside a text parameter breaks the wire protocol's C string before Postgres sees a value.
  '08P01': 'database.text_character',
  '22021': 'database.text_utf8',
  '22003': 'database.number_range',
  '22P02': 'database.type',
  '22007': 'database.date_invalid',
  '22008': 'database.date_range',
  '22001': 'database.text_too_long',
};

/** SQLSTATE classes and codes that mean the database is away, restarting or full of connections. */
const UNAVAILABLE_SQLSTATE = /^(08|57P0[123]|53300)/;

/** Socket-level failures of a connection to Postgres. */
const UNAVAILABLE_ERRNO = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND']);

/**
 * What node-postgres and knex say, without any code, when a connection dies under a query or the
 * pool cannot hand one out: the server went away mid-statement (a restart, a failover). knex
 * reports a transaction whose BEGIN failed on a pooled connection the server had just closed as
 * "Transaction query already complete" at its first query, the BEGIN's own error lost.
 */
const DEAD_CONNECTION_MESSAGE =
  /Connection terminated|Client has encountered a connection error|is not queryable|Timeout acquiring a connection|Transaction query already complete/;

/**
 * What a caller is told whatever is away (the database, a subgraph): which one is the platform's
 * business, and the wait differs by `retryAfter` only.
 */
export const UNAVAILABLE_MESSAGE = 'The service is temporarily unavailable; retry shortly.';

/** Seconds a caller should wait before retrying while the database comes back. */
export const DATABASE_RETRY_AFTER_SECONDS = 2;

type Wrapped = { code?: unknown; message?: unknown; originalError?: unknown; cause?: unknown };

/** The error and what it wraps (GraphQL's originalError, a cause), outermost first. */
function chainOf(error: unknown): Wrapped[] {
  const chain: Wrapped[] = [];
  let current = error as Wrapped | null | undefined;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth += 1) {
    chain.push(current);
    current = (current.originalError ?? current.cause) as Wrapped | null | undefined;
  }
  return chain;
}

/** The first string `code` on the error or on what it wraps. */
function codeOf(chain: Wrapped[]): string | undefined {
  return chain.find((e) => typeof e.code === 'string')?.code as string | undefined;
}

/** Whether the failure is the database being away (restarting, unreachable, out of connections). */
export function isDatabaseUnavailable(error: unknown): boolean {
  const chain = chainOf(error);
  const code = codeOf(chain);
  return (
    (code !== undefined && (UNAVAILABLE_SQLSTATE.test(code) || UNAVAILABLE_ERRNO.has(code))) ||
    chain.some((e) => typeof e.message === 'string' && DEAD_CONNECTION_MESSAGE.test(e.message))
  );
}

/** Whether the statement gave up waiting for a lock (`lock_timeout`, SQLSTATE 55P03). */
export function isLockTimeout(error: unknown): boolean {
  return codeOf(chainOf(error)) === '55P03';
}

/**
 * Translates a database failure into the platform's error model, once for every subgraph
 * (STYLE: MikroORM's exception converter, one level up): refused values become BAD_USER_INPUT,
 * a database that cannot be reached becomes UNAVAILABLE with a retry time. Anything else is left
 * for the caller to treat as unexpected.
 */
export function translateDatabaseError(error: unknown): GraphQLError | undefined {
  const chain = chainOf(error);
  const code = codeOf(chain);
  const refusedId = code === undefined ? undefined : REFUSED_VALUES[code];
  if (refusedId !== undefined) {
    const refused = say(refusedId);
    return new ValidationError({ request: [refused] }, refused);
  }
  if (isDatabaseUnavailable(error)) {
    return new UnavailableError(UNAVAILABLE_MESSAGE, DATABASE_RETRY_AFTER_SECONDS);
  }
  return undefined;
}
