import 'reflect-metadata';
import { runCli, type CommandSpec } from '../common/cli';
import { loadConfig } from '../common/config';
import { createLogger } from '../common/logger';
import { planCommands } from '../subgraphs/billing/plan.commands';
import { ticketsCommands } from '../subgraphs/tickets/tickets.commands';
import { SUBGRAPHS } from '../subgraphs';

/** Every noun of the admin CLI; each subgraph contributes the commands of its own domain. */
export const ADMIN_COMMANDS: readonly CommandSpec[] = [...planCommands, ...ticketsCommands];

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
