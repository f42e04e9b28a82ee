/**
 * Runs once before all test files: checks Postgres and Redis are there (failing within seconds,
 * naming the URL), drops databases left by earlier runs, and migrates and seeds the template
 * that each test file clones.
 */
export default async function globalSetup(): Promise<void> {
  // Each tier that needs Postgres names this setup; the first one in a run prepares for all.
  if (process.env.NIDA_TEST_TEMPLATE_READY === String(process.pid)) return;
  const globalsBefore = new Set(Object.getOwnPropertyNames(globalThis));
  try {
    await prepareTemplate();
  } finally {
    // Jest copies this realm's globals into a test file that runs in band; MikroORM and type-graphql
    // keep their registries on globalThis, and one from this realm breaks theirs in the sandbox.
    for (const name of Object.getOwnPropertyNames(globalThis)) {
      if (!globalsBefore.has(name)) Reflect.deleteProperty(globalThis, name);
    }
  }
}

async function prepareTemplate(): Promise<void> {
  // Loaded here, not at the top, so their global registries appear only inside the cleanup above.
  await import('reflect-metadata');
  const { quoteIdentifier } = await import('../common/postgres');
  const { adminQuery, runStillGoing, serverUrl, templateDatabase, TEST_DATABASE_PREFIX } =
    await import('./support/database');
  const { loadConfig } = await import('../common/config');
  const { connectRedis } = await import('../common/redis');
  const { migrateAll, seedReferenceData } = await import('../tools/database-setup');

  const config = loadConfig();
  const redis = await connectRedis(config.redis, 'test-setup');
  redis.disconnect();

  // Test files (in this process or its workers) name their databases after this run.
  process.env.NIDA_TEST_RUN = String(process.pid);
  const stale = await adminQuery(async (client) => {
    const result = await client.query<{ datname: string }>(
      'SELECT datname FROM pg_database WHERE datname LIKE $1',
      [`${TEST_DATABASE_PREFIX}%`],
    );
    // Only what runs that have ended left behind: another run on this machine keeps its databases.
    return result.rows.map((row) => row.datname).filter((name) => !runStillGoing(name));
  });
  for (const name of stale) {
    await adminQuery((client) =>
      client.query(`DROP DATABASE IF EXISTS ${quoteIdentifier(name)} WITH (FORCE)`),
    );
  }
  const templateConfig = loadConfig({ ...process.env, DATABASE_URL: serverUrl(templateDatabase()) });
  await migrateAll(templateConfig);
  await seedReferenceData(templateConfig);
  process.env.NIDA_TEST_TEMPLATE_READY = String(process.pid);
}
