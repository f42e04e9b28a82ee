import 'reflect-metadata';
import { loadConfig, redactUrl } from '../common/config';
import { describeFailure } from '../common/process';
import { migrateAll } from './database-setup';

/** `npm run migrate`: creates the database if needed and applies every subgraph's migrations. */
async function main(): Promise<void> {
  const config = loadConfig();
  const report = await migrateAll(config);
  process.stdout.write(`${JSON.stringify({ database: redactUrl(config.databaseUrl), ...report })}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`migrate: ${describeFailure(error)}\n`);
  process.exit(1);
});
