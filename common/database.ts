import { MikroORM, type EntityManager, type Options } from '@mikro-orm/postgresql';
import type { EntityClass, EntitySchema, MigrationObject } from '@mikro-orm/core';
import type { Config, SubgraphName } from './config';
import type { Logger } from './logger';
import { CONNECT_TIMEOUT_MS, isConnectionError, START_POSTGRES_HINT, UnreachableError } from './postgres';

export type { EntityManager };
export type { MikroORM };

/** What a subgraph brings to its own Postgres schema: entities and its checked-in migrations. */
export interface SchemaModule {
  schema: SubgraphName;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- MikroORM's own entity list type
  entities: (EntityClass<any> | EntitySchema)[];
  /**
   * Loaded by `migrateSchema` alone: the migrations and the migrator they extend (umzug and its
   * file globbing) were a quarter of a serving process's start-up CPU, which only the migrating
   * process needs. A start is what a rolling restart and a replica replacing a dead one wait on.
   */
  migrations: () => Promise<MigrationObject[]>;
}

/** One MikroORM instance bound to one subgraph's schema; nothing else is visible through it. */
export async function openSchema(
  config: Config,
  module: SchemaModule,
  logger?: Logger,
  migrating?: { migrator: NonNullable<Options['extensions']>[number]; list: MigrationObject[] },
): Promise<MikroORM> {
  const options: Options = {
    clientUrl: config.databaseUrl,
    schema: module.schema,
    entities: module.entities,
    discovery: { warnWhenNoEntities: false },
    extensions: migrating === undefined ? [] : [migrating.migrator],
    migrations: {
      tableName: `${module.schema}.mikro_orm_migrations`,
      migrationsList: migrating?.list ?? [],
      // Each migration in its own transaction, committed before the next starts, so one that
      // builds an index CONCURRENTLY (outside any transaction) waits on no open migration of ours.
      transactional: true,
      allOrNothing: false,
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
  const [{ Migrator }, list] = await Promise.all([import('@mikro-orm/migrations'), module.migrations()]);
  const orm = await openSchema(config, module, logger, { migrator: Migrator, list });
  try {
    const applied = await orm.getMigrator().up();
    return applied.map((m) => m.name);
  } finally {
    await orm.close(true);
  }
}

/**
 * The readiness check of a process's Postgres pool: answered at once while the pool's own queries
 * have come back within `windowMs`, and by a `select 1` otherwise. Under a burst every pooled
 * connection is busy and a probe's `select 1` waits behind the queue past its timeout: a load
 * balancer would then take every busy replica out of service at once, though Postgres answers all
 * the while.
 */
export function postgresAnswering(orm: MikroORM, windowMs: number): () => Promise<unknown> {
  let answeredAt = 0;
  orm.em
    .getConnection()
    .getKnex()
    .on('query-response', () => {
      answeredAt = Date.now();
    });
  return () =>
    Date.now() - answeredAt < windowMs ? Promise.resolve() : orm.em.getConnection().execute('select 1');
}
