import { z } from 'zod';

// 0 asks the OS for any free port (tests use it).
const port = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);

const postgresUrl = z.string().refine((value) => /^postgres(ql)?:\/\/[^/]+\/[A-Za-z0-9_]+$/.test(value), {
  message: 'must look like postgres://user@host:port/database (database name: letters, digits, _)',
});

const redisUrl = z
  .string()
  .refine((value) => /^rediss?:\/\/.+/.test(value), { message: 'must look like redis://host:port' });

const httpUrl = z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' });

const duration = z.coerce.number().int().min(0);

/** Every setting of every process, read once from the environment at start. */
const configSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DATABASE_URL: postgresUrl.default('postgres://postgres@127.0.0.1:5432/nida'),
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(100).default(10),
  REDIS_URL: redisUrl.default('redis://127.0.0.1:6379'),
  REDIS_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9:_-]*$/, 'letters, digits, ":", "_" and "-" only')
    .default('nida:'),
  LISTEN_HOST: z.string().min(1).default('127.0.0.1'),
  REST_PORT: port(3000),
  GATEWAY_PORT: port(4000),
  TICKETS_PORT: port(4001),
  CV_PORT: port(4002),
  BILLING_PORT: port(4003),
  GATEWAY_URL: httpUrl.optional(),
  TICKETS_SUBGRAPH_URL: httpUrl.optional(),
  CV_SUBGRAPH_URL: httpUrl.optional(),
  BILLING_SUBGRAPH_URL: httpUrl.optional(),
  PUBLIC_BASE_URL: httpUrl.default('http://localhost:3000'),
  SHUTDOWN_TIMEOUT_MS: duration.default(10_000),
  READY_CHECK_TIMEOUT_MS: duration.default(2_000),
  UPSTREAM_TIMEOUT_MS: duration.default(30_000),
  TICKETS_RATE_LIMIT: z.coerce.number().int().min(1).default(120),
});

type RawConfig = z.infer<typeof configSchema>;

export type SubgraphName = 'tickets' | 'cv' | 'billing';

export interface Config {
  nodeEnv: RawConfig['NODE_ENV'];
  logLevel: RawConfig['LOG_LEVEL'];
  databaseUrl: string;
  databasePoolMax: number;
  redisUrl: string;
  redisPrefix: string;
  listenHost: string;
  ports: { rest: number; gateway: number } & Record<SubgraphName, number>;
  /** Where the REST adapter sends its GraphQL operations. */
  gatewayUrl: string;
  /** Where the gateway reaches each subgraph; overrides the URLs composed into the supergraph. */
  subgraphUrls: Record<SubgraphName, string>;
  /** Base of every public URL the platform hands out (ticket pages, QR images, share links). */
  publicBaseUrl: string;
  shutdownTimeoutMs: number;
  readyCheckTimeoutMs: number;
  upstreamTimeoutMs: number;
  /** Requests a minute per ticket API key (the document says 120; benchmarks raise it). */
  ticketsRateLimit: number;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Validates the environment; throws a ConfigError listing every bad variable at once. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // An empty variable means "not set", so `FOO= npm start` falls back to the default.
  const present = Object.fromEntries(
    Object.entries(env).filter(([, value]) => value !== undefined && value !== ''),
  );
  const parsed = configSchema.safeParse(present);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const name = issue.path.join('.');
      const got = present[name];
      return `${name}: ${issue.message}${got === undefined ? '' : ` (got ${JSON.stringify(got)})`}`;
    });
    throw new ConfigError(problems);
  }
  const raw = parsed.data;
  const local = (p: number) => `http://127.0.0.1:${p}/graphql`;
  return {
    nodeEnv: raw.NODE_ENV,
    logLevel: raw.LOG_LEVEL,
    databaseUrl: raw.DATABASE_URL,
    databasePoolMax: raw.DATABASE_POOL_MAX,
    redisUrl: raw.REDIS_URL,
    redisPrefix: raw.REDIS_PREFIX,
    listenHost: raw.LISTEN_HOST,
    ports: {
      rest: raw.REST_PORT,
      gateway: raw.GATEWAY_PORT,
      tickets: raw.TICKETS_PORT,
      cv: raw.CV_PORT,
      billing: raw.BILLING_PORT,
    },
    gatewayUrl: raw.GATEWAY_URL ?? local(raw.GATEWAY_PORT),
    subgraphUrls: {
      tickets: raw.TICKETS_SUBGRAPH_URL ?? local(raw.TICKETS_PORT),
      cv: raw.CV_SUBGRAPH_URL ?? local(raw.CV_PORT),
      billing: raw.BILLING_SUBGRAPH_URL ?? local(raw.BILLING_PORT),
    },
    publicBaseUrl: raw.PUBLIC_BASE_URL.replace(/\/+$/, ''),
    shutdownTimeoutMs: raw.SHUTDOWN_TIMEOUT_MS,
    readyCheckTimeoutMs: raw.READY_CHECK_TIMEOUT_MS,
    upstreamTimeoutMs: raw.UPSTREAM_TIMEOUT_MS,
    ticketsRateLimit: raw.TICKETS_RATE_LIMIT,
  };
}

/** The database URL with any password hidden, for messages and logs. */
export function redactUrl(url: string): string {
  return url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');
}
