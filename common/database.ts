import { Migrator } from '@mikro-orm/migrations';
import { MikroORM, type EntityManager, type Options } from '@mikro-orm/postgresql';
import type { EntityClass, EntitySchema, MigrationObject } from '@mikro-orm/core';
import { Client, Pool } from 'pg';
import type { Config, SubgraphName } from './config';
import { redactUrl } from './config';
import type { Logger } from './logger';

export type { EntityManager };
export type { MikroORM };

const CONNECT_TIMEOUT_MS = 3_000;

/** What a subgraph brings to its own Postgres schema: entities and its checked-in migrations. */
export interface SchemaModule {
  schema: SubgraphName;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- MikroORM's own entity list type
  entities: (EntityClass<any> | EntitySchema)[];
  migrations: MigrationObject[];
}

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
function isConnectionError(error: unknown): boolean {
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

/** One MikroORM instance bound to one subgraph's schema; nothing else is visible through it. */
export async function openSchema(config: Config, module: SchemaModule, logger?: Logger): Promise<MikroORM> {
  const options: Options = {
    clientUrl: config.databaseUrl,
    schema: module.schema,
    entities: module.entities,
    discovery: { warnWhenNoEntities: false },
    extensions: [Migrator],
    migrations: {
      tableName: `${module.schema}.mikro_orm_migrations`,
      migrationsList: module.migrations,
      transactional: true,
      allOrNothing: true,
      silent: true,
      // Migrations are written by hand and checked in; no schema snapshot files beside them.
      snapshot: false,
    },
    pool: { min: 0, max: config.databasePoolMax },
    driverOptions: {
      connection: { connectionTimeoutMillis: CONNECT_TIMEOUT_MS },
      // knex drops a pooled connection that died (a Postgres restart) and would say so on the
      // console; in the process's own log the lines carry the service and can be searched.
      log: {
        warn: (message: unknown) => logger?.warn({ orm: module.schema }, String(message)),
        error: (message: unknown) => logger?.error({ orm: module.schema }, String(message)),
        deprecate: (message: unknown) => logger?.debug({ orm: module.schema }, String(message)),
        debug: (message: unknown) => logger?.debug({ orm: module.schema }, String(message)),
      },
    },
    allowGlobalContext: false,
    debug: false,
    logger: (message) => logger?.debug({ orm: module.schema }, message),
  };
  let orm: MikroORM;
  try {
    orm = await MikroORM.init(options);
  } catch (error) {
    if (isConnectionError(error))
      throw new UnreachableError('PostgreSQL', config.databaseUrl, error, START_POSTGRES_HINT);
    throw error;
  }
  if (!(await orm.isConnected())) {
    await orm.close(true);
    throw new UnreachableError('PostgreSQL', config.databaseUrl, 'connection refused', START_POSTGRES_HINT);
  }
  return orm;
}

/** Applies the module's pending migrations; returns the names it applied. */
export async function migrateSchema(
  config: Config,
  module: SchemaModule,
  logger?: Logger,
): Promise<string[]> {
  const orm = await openSchema(config, module, logger);
  try {
    const applied = await orm.getMigrator().up();
    return applied.map((m) => m.name);
  } finally {
    await orm.close(true);
  }
}

/** A single-connection pool for processes that only need to know Postgres is there. */
export function createProbePool(url: string): Pool {
  const pool = new Pool({ connectionString: url, max: 1, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  // A server restart breaks the idle client; readiness reports it, the process must not crash.
  pool.on('error', () => undefined);
  return pool;
}
