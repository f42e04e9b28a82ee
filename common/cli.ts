import type { Config, SubgraphName } from './config';
import { openSchema, type EntityManager, type MikroORM, type SchemaModule } from './database';
import { GraphQLError } from 'graphql';
import { isErrorCode, ValidationError } from './errors';
import type { Logger } from './logger';
import { describeFailure } from './process';
import { connectRedis, type Redis } from './redis';
import { RECORD_ID } from './patterns';

export interface FlagSpec {
  description: string;
  type: 'string' | 'integer' | 'boolean';
  required?: boolean;
  choices?: readonly string[];
}

export type FlagValues = Record<string, string | number | boolean | undefined>;

/** What a command may use; each schema's ORM opens on first use and closes when the command ends. */
export interface CliContext {
  config: Config;
  logger: Logger;
  em(schema: SubgraphName): Promise<EntityManager>;
  redis(): Promise<Redis>;
}

/** One `<noun> <verb>` of the admin CLI; `run` returns the JSON value to print. */
export interface CommandSpec {
  noun: string;
  verb: string;
  summary: string;
  flags: Record<string, FlagSpec>;
  run(flags: FlagValues, context: CliContext): Promise<unknown>;
}

/** The caller's mistake: printed as is, exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

export interface CliEnvironment {
  config: Config;
  logger: Logger;
  schemaModules: readonly SchemaModule[];
}

function usage(commands: readonly CommandSpec[]): string {
  const lines = commands.map((c) => {
    const flags = Object.entries(c.flags)
      .map(([name, f]) => {
        const value = f.type === 'boolean' ? '' : ` ${f.choices ? f.choices.join('|') : name.toUpperCase()}`;
        return f.required ? `--${name}${value}` : `[--${name}${value}]`;
      })
      .join(' ');
    return `  ${c.noun} ${c.verb} ${flags}`.trimEnd() + `\n      ${c.summary}`;
  });
  return `usage: npm run -s admin -- <noun> <verb> [--flag value]...\n\n${lines.join('\n')}\n`;
}

export function parseFlags(spec: CommandSpec, args: readonly string[]): FlagValues {
  const values: FlagValues = {};
  const name = `${spec.noun} ${spec.verb}`;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    const match = /^--([a-z][a-z0-9-]*)(?:=(.*))?$/.exec(arg);
    if (!match) throw new UsageError(`${name}: unexpected argument ${JSON.stringify(arg)}`);
    const flag = match[1] ?? '';
    const flagSpec = spec.flags[flag];
    if (flagSpec === undefined) {
      const known = Object.keys(spec.flags).map((f) => `--${f}`);
      throw new UsageError(
        `${name}: unknown flag --${flag}${known.length ? ` (known: ${known.join(', ')})` : ' (it takes no flags)'}`,
      );
    }
    if (flag in values) throw new UsageError(`${name}: --${flag} given twice`);
    if (flagSpec.type === 'boolean') {
      if (match[2] !== undefined) throw new UsageError(`${name}: --${flag} takes no value`);
      values[flag] = true;
      continue;
    }
    const raw = match[2] ?? args[++i];
    if (raw === undefined || (match[2] === undefined && raw.startsWith('--'))) {
      throw new UsageError(`${name}: --${flag} needs a value`);
    }
    if (flagSpec.choices && !flagSpec.choices.includes(raw)) {
      throw new UsageError(
        `${name}: --${flag} must be one of ${flagSpec.choices.join(', ')} (got ${JSON.stringify(raw)})`,
      );
    }
    if (flagSpec.type === 'integer') {
      if (!RECORD_ID.test(raw)) {
        throw new UsageError(
          `${name}: --${flag} must be a positive whole number (got ${JSON.stringify(raw)})`,
        );
      }
      values[flag] = Number(raw);
    } else {
      values[flag] = raw;
    }
  }
  const missing = Object.entries(spec.flags)
    .filter(([flag, f]) => f.required && values[flag] === undefined)
    .map(([flag]) => `--${flag}`);
  if (missing.length) throw new UsageError(`${name}: missing ${missing.join(', ')}`);
  return values;
}

/**
 * Runs one admin command. Success prints exactly one JSON value on stdout and returns 0; a usage
 * mistake returns 2 and invalid data 1, each with a message on stderr naming what was wrong.
 */
export async function runCli(
  argv: readonly string[],
  commands: readonly CommandSpec[],
  env: () => CliEnvironment,
  io: CliIo,
): Promise<number> {
  const [noun, verb, ...args] = argv;
  if (noun === undefined || noun === 'help' || noun === '--help') {
    if (noun === undefined) {
      io.stderr(usage(commands));
      return 2;
    }
    io.stdout(
      `${JSON.stringify(commands.map((c) => ({ command: `${c.noun} ${c.verb}`, summary: c.summary, flags: c.flags })))}\n`,
    );
    return 0;
  }
  const spec = commands.find((c) => c.noun === noun && c.verb === verb);
  if (spec === undefined) {
    const verbs = commands.filter((c) => c.noun === noun).map((c) => c.verb);
    io.stderr(
      verbs.length
        ? `unknown command "${noun} ${verb ?? ''}"; ${noun} takes: ${verbs.join(', ')}\n`
        : `unknown command "${noun}"\n\n${usage(commands)}`,
    );
    return 2;
  }
  const orms = new Map<SubgraphName, MikroORM>();
  let redis: Promise<Redis> | undefined;
  try {
    const flags = parseFlags(spec, args);
    const { config, logger, schemaModules } = env();
    const context: CliContext = {
      config,
      logger,
      async em(schema) {
        let orm = orms.get(schema);
        if (orm === undefined) {
          const module = schemaModules.find((m) => m.schema === schema);
          if (module === undefined) throw new Error(`no schema module named ${schema}`);
          orm = await openSchema(config, module, logger);
          orms.set(schema, orm);
        }
        return orm.em.fork();
      },
      redis: () => (redis ??= connectRedis(config.redis, 'admin')),
    };
    const result = await spec.run(flags, context);
    io.stdout(`${JSON.stringify(result ?? null)}\n`);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`${error.message}\n`);
      return 2;
    }
    if (error instanceof ValidationError) {
      const details = Object.entries(error.fieldErrors).map(
        ([field, messages]) => `  ${field}: ${messages.join(' ')}`,
      );
      io.stderr(`${error.message}\n${details.join('\n')}\n`);
      return 1;
    }
    if (error instanceof GraphQLError && isErrorCode(error.extensions.code)) {
      io.stderr(`${spec.noun} ${spec.verb}: ${error.message}\n`);
      return 1;
    }
    io.stderr(`${spec.noun} ${spec.verb}: ${describeFailure(error)}\n`);
    return 1;
  } finally {
    await Promise.all([...orms.values()].map((orm) => orm.close(true)));
    await redis?.then((client) => client.disconnect()).catch(() => undefined);
  }
}
