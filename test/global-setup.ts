import 'reflect-metadata';
import { loadConfig } from '../common/config';
import { quoteIdentifier } from '../common/database';
import { connectRedis } from '../common/redis';
import { migrateAll, seedReferenceData } from '../tools/database-setup';
import { adminQuery, serverUrl, TEMPLATE_DATABASE, TEST_DATABASE_PREFIX } from './support/database';

/**
 * Runs once before all test files: checks Postgres and Redis are there (failing within seconds,
 * naming the URL), drops databases left by earlier runs, and migrates and seeds the template
 * that each test file clones.
 */
export default async function globalSetup(): Promise<void> {
  const config = loadConfig();
  const redis = await connectRedis(config.redisUrl, 'test-setup');
  redis.disconnect();

  const stale = await adminQuery(async (client) => {
    const result = await client.query<{ datname: string }>(
      'SELECT datname FROM pg_database WHERE datname LIKE $1',
      [`${TEST_DATABASE_PREFIX}%`],
    );
    return result.rows.map((row) => row.datname);
  });
  for (const name of stale) {
    await adminQuery((client) =>
      client.query(`DROP DATABASE IF EXISTS ${quoteIdentifier(name)} WITH (FORCE)`),
    );
  }
  const templateConfig = loadConfig({ ...process.env, DATABASE_URL: serverUrl(TEMPLATE_DATABASE) });
  await migrateAll(templateConfig);
  await seedReferenceData(templateConfig);
}
