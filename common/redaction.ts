import { createHash } from 'node:crypto';

/**
 * What must not leave a process in a log line or a span, because whoever holds it can use it: the
 * capability tokens in the public edge's paths (`/t/{token}`, `/display/{token}`, `/cv/{token}`),
 * the secret values of a query string (a signed link's `signature`), and the values MikroORM
 * writes into its SQL (a ticket's or a CV's token among them). The logger (common/logger.ts, the
 * access line of common/http-service.ts) and the tracing SDK (common/telemetry-sdk.ts) both go
 * through here, so one rule says what is hidden wherever it would have been written.
 */

/**
 * A path segment after `/t/`, `/display/` or `/cv/` is a capability, except the ticket page's own
 * assets and service worker; a route template (`/t/:token`, `/t/{token}`) is left as it is, so the
 * redacted form is never redacted again. Case-insensitive, as express matches routes.
 */
const CAPABILITY_SEGMENT =
  /(\/(?:t|display|cv)\/)(?![:{*]|(?:sw\.js|assets)(?=[/?#\s"'<>\\]|$))([^/?#\s"'<>\\]+)/gi;

/**
 * Query values that open something on their own: the platform's signed links (`signature`), the
 * names integrations commonly use for a secret in a URL, and a GraphQL request sent as GET, whose
 * document and variables may carry a token.
 */
export const SECRET_QUERY_PARAMETERS = [
  'signature',
  'token',
  'code',
  'secret',
  'password',
  'key',
  'api_key',
  'access_token',
  'query',
  'variables',
  'extensions',
] as const;

const SECRET_QUERY_VALUE = new RegExp(`(^|[?&])(${SECRET_QUERY_PARAMETERS.join('|')})=([^&#\\s"'<>]*)`, 'gi');

/** What a hidden query value reads as; the logger's own censor says the same. */
export const REDACTED = '[redacted]';

/** A single-quoted SQL literal as MikroORM (pg's `escapeLiteral`) writes it, quotes doubled inside. */
const SQL_LITERAL = /'(?:[^']|'')*'/g;

/** Postgres' detail of a constraint names the offending value: `Key (token)=(…) already exists`. */
const SQL_KEY_DETAIL = /(\bKey \([^)]*\)=)\(.*?\)(?= already exists| is not present)/g;

/** The span attributes that hold a statement's text (old and stable semantic conventions). */
const STATEMENT_ATTRIBUTES: ReadonlySet<string> = new Set(['db.query.text', 'db.statement']);

/**
 * The first 8 hex digits of the token's SHA-256: enough to tell one ticket's requests from
 * another's, nothing to open it with. A display's stored hash starts with the same digits, and
 * `printf %s TOKEN | sha256sum | cut -c1-8` finds a token's lines in the logs.
 */
export function tokenFingerprint(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex').slice(0, 8);
}

/**
 * A path, URL, query string or text holding any of them, with every capability segment replaced by
 * its fingerprint (`/t/{token:1a2b3c4d}/qr.png`) and every secret query value by `[redacted]`.
 * Text without either comes back as it was, after one pass of each pattern.
 */
export function redactUrl(text: string): string {
  return text
    .replace(CAPABILITY_SEGMENT, (_match, prefix: string, token: string) => {
      return `${prefix}{token:${tokenFingerprint(token)}}`;
    })
    .replace(SECRET_QUERY_VALUE, (_match, start: string, name: string) => `${start}${name}=${REDACTED}`);
}

/** A statement (or a database error quoting it) with every string literal and key value hidden. */
export function redactSql(text: string): string {
  return text.replace(SQL_LITERAL, "'?'").replace(SQL_KEY_DETAIL, '$1(?)');
}

/** A span attribute's string as it may be exported: statements lose their literals, all else its capabilities. */
export function redactAttribute(key: string, value: string): string {
  return redactUrl(STATEMENT_ATTRIBUTES.has(key) ? redactSql(value) : value);
}

/**
 * An error as pino serialised it (`message` and `stack` with their causes', own fields, errors it
 * holds), with the same values hidden.
 */
export function redactSerializedError(error: unknown, depth = 0): unknown {
  if (typeof error === 'string') return redactUrl(error);
  if (typeof error !== 'object' || error === null || depth > 3) return error;
  if (Array.isArray(error)) return error.map((item) => redactSerializedError(item, depth + 1));
  // Anything else (a Date, a Buffer, a socket) is written as its own JSON says, untouched.
  const serialised = typeof (error as { stack?: unknown }).stack === 'string';
  const prototype: unknown = Object.getPrototypeOf(error);
  if (!serialised && prototype !== Object.prototype && prototype !== null) return error;
  const fields = error as Record<string, unknown>;
  // node-postgres' errors, which MikroORM's carry on, quote the statement and the offending value.
  const fromPostgres = typeof fields.severity === 'string' && typeof fields.code === 'string';
  const redacted: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(fields)) {
    redacted[field] =
      typeof value === 'string'
        ? redactUrl(fromPostgres ? redactSql(value) : value)
        : redactSerializedError(value, depth + 1);
  }
  return redacted;
}
