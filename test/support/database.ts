import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { loadConfig, type Config } from '../../common/config';
import { openSchema, type EntityManager, type MikroORM, type SchemaModule } from '../../common/database';
import { quoteIdentifier, START_POSTGRES_HINT, UnreachableError } from '../../common/postgres';

export const TEST_DATABASE_PREFIX = 'nida_test_';

/**
 * The test run a database belongs to: jest's main process, whose pid test/global-setup.ts hands
 * to the workers. Runs on one machine keep apart by it, and a run's setup removes only what runs
 * that have ended left behind.
 */
export function testRun(): string {
  return process.env.NIDA_TEST_RUN ?? String(process.pid);
}

/** Migrated and seeded once per test run by test/global-setup.ts; every test file clones it. */
export function templateDatabase(run = testRun()): string {
  return `${TEST_DATABASE_PREFIX}${run}_template`;
}

/** The server the tests use: DATABASE_URL's host, or the local default. */
export function serverUrl(database: string): string {
  const url = new URL(loadConfig().databaseUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

export async function adminQuery<T>(fn: (client: Client) => Promise<T>): Promise<T> {
  const url = serverUrl('postgres');
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
  } catch (error) {
    throw new UnreachableError('PostgreSQL', url, error, START_POSTGRES_HINT);
  }
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export interface TestDatabase {
  name: string;
  url: string;
  /** Runs one statement on this database (to age a timestamp, say). */
  query(sql: string, params?: unknown[]): Promise<Record<string, unknown>[]>;
  drop(): Promise<void>;
}

/** Whether the run a test database belongs to (its pid is in the name) is still alive. */
export function runStillGoing(name: string): boolean {
  const pid = Number(/^(\d+)_/.exec(name.slice(TEST_DATABASE_PREFIX.length))?.[1]);
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A database of this test file's own: a copy of the migrated, seeded template. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `${TEST_DATABASE_PREFIX}${testRun()}_${randomBytes(5).toString('hex')}`;
  await adminQuery((client) =>
    client.query(`CREATE DATABASE ${quoteIdentifier(name)} TEMPLATE ${quoteIdentifier(templateDatabase())}`),
  );
  const url = serverUrl(name);
  return {
    name,
    url,
    async query(sql, params = []) {
      const client = new Client({ connectionString: url });
      await client.connect();
      try {
        return (await client.query<Record<string, unknown>>(sql, params)).rows;
      } finally {
        await client.end();
      }
    },
    drop: async () => {
      await adminQuery((client) =>
        client.query(`DROP DATABASE IF EXISTS ${quoteIdentifier(name)} WITH (FORCE)`),
      );
    },
  };
}

/** Config for in-process servers of one test file: its own database and Redis prefix, any free ports. */
/** One internal secret per test run, so no test passes on the public development value. */
const TEST_INTERNAL_SECRET = randomBytes(32).toString('base64url');

export function testConfig(database: TestDatabase, env: NodeJS.ProcessEnv = {}): Config {
  return loadConfig({
    ...process.env,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    DATABASE_URL: database.url,
    REDIS_PREFIX: `test:${database.name}:`,
    REST_PORT: '0',
    GATEWAY_PORT: '0',
    TICKETS_PORT: '0',
    CV_PORT: '0',
    BILLING_PORT: '0',
    IDENTITY_PORT: '0',
    EVENTS_PORT: '0',
    // Every process of a test platform shares this config; each takes a free metrics port.
    METRICS_PORT: '0',
    SHUTDOWN_TIMEOUT_MS: '5000',
    // No load balancer checks a test's processes: a stopping one closes at once, in production mode
    // too (whose default is 5 s of 503 on /readyz first, 30 s for a platform of six).
    SHUTDOWN_DELAY_MS: '0',
    INTERNAL_SECRET: TEST_INTERNAL_SECRET,
    ...env,
  });
}

/**
 * A spec file's own database with one subgraph's schema open on it through MikroORM: created before
 * the file's tests, closed and dropped after them. Read `orm` and `database` inside tests and hooks
 * declared after this call, once they exist.
 */
export function useSchemaDatabase(module: SchemaModule | string): {
  readonly orm: MikroORM;
  readonly database: TestDatabase;
} {
  let database: TestDatabase | undefined;
  let orm: MikroORM | undefined;
  beforeAll(async () => {
    database = await createTestDatabase();
    orm = await openSchema(
      testConfig(database),
      typeof module === 'string' ? await schemaOf(module) : module,
    );
  });
  afterAll(async () => {
    await orm?.close(true);
    await database?.drop();
  });
  const ready = <T>(value: T | undefined): T => {
    if (value === undefined)
      throw new Error('the schema database is opened in beforeAll; read it in a test or a later hook');
    return value;
  };
  return {
    get orm() {
      return ready(orm);
    },
    get database() {
      return ready(database);
    },
  };
}

/**
 * A subgraph's schema module by its name, so a spec inside a subgraph's folder opens its tables
 * without importing the subgraph's root module. Loaded on use: the global setup imports this file
 * and must not load every subgraph's registries.
 */
async function schemaOf(name: string): Promise<SchemaModule> {
  const { SUBGRAPHS } = await import('../../subgraphs');
  const subgraph = SUBGRAPHS.find((candidate) => candidate.name === name);
  if (subgraph === undefined) throw new Error(`no subgraph is named ${name}`);
  return subgraph.schemaModule;
}

/** Runs `work` and returns the SQL of every statement `em`'s connection sent meanwhile, in order. */
export async function statementsOf(em: EntityManager, work: () => Promise<unknown>): Promise<string[]> {
  const knex = em.getConnection().getKnex();
  const statements: string[] = [];
  const record = (query: { sql: string }) => statements.push(query.sql);
  knex.on('query', record);
  try {
    await work();
  } finally {
    knex.off('query', record);
  }
  return statements;
}
