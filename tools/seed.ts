import 'reflect-metadata';
import { loadConfig } from '../common/config';
import { describeFailure } from '../common/process';
import { seedReferenceData } from './database-setup';

/** `npm run seed`: writes the plan catalogue; running it again changes nothing. */
async function main(): Promise<void> {
  process.stdout.write(`${JSON.stringify(await seedReferenceData(loadConfig()))}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`seed: ${describeFailure(error)}\n`);
  process.exit(1);
});
