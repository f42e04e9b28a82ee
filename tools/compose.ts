import 'reflect-metadata';
import { relative } from 'node:path';
import { projectRoot } from '../common/paths';
import { describeFailure } from '../common/process';
import { generateSchemaFiles, staleSchemaFiles, writeSchemaFiles } from './supergraph';

/** `npm run compose` writes schema/*.graphql; `npm run compose -- --check` only compares. */
async function main(): Promise<number> {
  const check = process.argv.includes('--check');
  const files = await generateSchemaFiles();
  const stale = (await staleSchemaFiles(files)).map((path) => relative(projectRoot(), path));
  if (check) {
    if (stale.length === 0) return 0;
    process.stderr.write(`Out of date (run npm run compose): ${stale.join(', ')}\n`);
    return 1;
  }
  await writeSchemaFiles(files);
  process.stdout.write(stale.length === 0 ? 'schema/ is up to date\n' : `wrote ${stale.join(', ')}\n`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`compose: ${describeFailure(error)}\n`);
    process.exit(1);
  },
);
