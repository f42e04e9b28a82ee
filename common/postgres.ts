import { Client, Pool } from 'pg';
import { redactUrl } from './config';

/*
 * Postgres without the ORM: reaching the server, creating a database, probing readiness. Kept
 * apart from database.ts so a process that only checks Postgres (the REST adapter, the gateway)
 * never loads MikroORM.
 */

export const CONNECT_TIMEOUT_MS = 3_000;

/** A failure to reach a backing service, worded for the person who has to start it. */
export class UnreachableError extends Error {
  constructor(what: string, url: string, cause: unknown, howToStart: string) {
    super(`Cannot reach ${what} at ${redactUrl(url)} (${describeCause(cause)}). ${howToStart}`);
    this.name = 'UnreachableError';
  }
}

export const START_POSTGRES_HINT =
  'Start it with `bash scripts/setup.sh` (or `pg_ctlcluster 15 main start`), or point DATABASE_URL at a running server.';

const CONNECTION_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'ECONNRESET',
  'EHOSTUNREACH',
]);

/** Refused, unresolvable, timed out, or turned away by the server (bad login, missing database). */
export function isConnectionError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (
    typeof code === 'string' &&
    (CONNECTION_ERROR_CODES.has(code) || code.startsWith('28') || code === '3D000')
  ) {
    return true;
  }
  return (
    error instanceof Error && /timeout|terminated unexpectedly|Connection terminated/i.test(error.message)
  );
}

function describeCause(cause: unknown): string {
  if (cause instanceof Error) {
    const code = (cause as NodeJS.ErrnoException).code;
    return code !== undefined ? `${code}: ${cause.message}` : cause.message;
  }
  return String(cause);
}

export function databaseName(url: string): string {
  return new URL(url).pathname.replace(/^\//, '');
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/** Creates the configured database when it does not exist yet (safe when several processes race). */
export async function ensureDatabase(url: string): Promise<boolean> {
  const name = databaseName(url);
  const client = new Client({
    connectionString: withDatabase(url, 'postgres'),
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
  });
  try {
    await client.connect();
  } catch (error) {
    throw new UnreachableError('PostgreSQL', url, error, START_POSTGRES_HINT);
  }
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount === 1) return false;
    try {
      await client.query(`CREATE DATABASE ${quoteIdentifier(name)}`);
      return true;
    } catch (error) {
      if ((error as { code?: string }).code === '42P04') return false; // created concurrently
      throw error;
    }
  } finally {
    await client.end();
  }
}

export function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** A single-connection pool for processes that only need to know Postgres is there. */
export function createProbePool(url: string): Pool {
  const pool = new Pool({ connectionString: url, max: 1, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  // A server restart breaks the idle client; readiness reports it, the process must not crash.
  pool.on('error', () => undefined);
  return pool;
}
