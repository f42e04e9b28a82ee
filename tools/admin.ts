import 'reflect-metadata';
import { runCli } from '../common/cli';
import { loadConfig } from '../common/config';
import { createLogger } from '../common/logger';
import { SUBGRAPHS } from '../subgraphs';
import { ADMIN_COMMANDS } from './admin-commands';

runCli(
  process.argv.slice(2),
  ADMIN_COMMANDS,
  () => {
    const config = loadConfig();
    return {
      config,
      logger: createLogger({
        service: 'admin',
        level: config.logLevel === 'info' ? 'warn' : config.logLevel,
        toStderr: true,
      }),
      schemaModules: SUBGRAPHS.map((s) => s.schemaModule),
    };
  },
  { stdout: (text) => process.stdout.write(text), stderr: (text) => process.stderr.write(text) },
).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`admin: ${String(error)}\n`);
    process.exit(1);
  },
);
