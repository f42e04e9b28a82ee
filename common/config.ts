import { z } from 'zod';
import { trustedProxyProblem } from './client-address';

// 0 asks the OS for any free port (tests use it).
const port = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);

const postgresUrl = z.string().refine((value) => /^postgres(ql)?:\/\/[^/]+\/[A-Za-z0-9_]+$/.test(value), {
  message: 'must look like postgres://user@host:port/database (database name: letters, digits, _)',
});

const redisUrl = z
  .string()
  .refine((value) => /^rediss?:\/\/.+/.test(value), { message: 'must look like redis://host:port' });

/** "h1:26379,h2:26379" → the Sentinels to ask where the master is; each entry host:port. */
const sentinelList = z.string().transform((value, ctx) => {
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  const sentinels: { host: string; port: number }[] = [];
  for (const entry of entries) {
    const match = /^([A-Za-z0-9.-]+|\[[0-9A-Fa-f:]+\]):(\d{1,5})$/.exec(entry);
    const port = Number(match?.[2]);
    if (match === null || port < 1 || port > 65535) {
      ctx.addIssue({ code: 'custom', message: `"${entry}" is not a Sentinel address like 10.0.0.5:26379` });
      continue;
    }
    sentinels.push({ host: match[1]!.replace(/^\[|\]$/g, ''), port });
  }
  if (entries.length === 0)
    ctx.addIssue({ code: 'custom', message: 'names no Sentinel (host:port,host:port)' });
  return sentinels;
});

const httpUrl = z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' });

const duration = z.coerce.number().int().min(0);

const DURATION_UNITS_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 } as const;

/** "10s,1m,5m" → [10000, 60000, 300000]: the waits before each retry. */
export function parseSchedule(value: string): number[] {
  return value.split(',').map((part) => {
    const match = /^\s*(\d+)\s*(ms|s|m|h)\s*$/.exec(part);
    if (match === null) throw new Error(`"${part.trim()}" is not a duration like 500ms, 10s, 1m or 2h`);
    return Number(match[1]) * DURATION_UNITS_MS[match[2] as keyof typeof DURATION_UNITS_MS];
  });
}

const schedule = z.string().transform((value, ctx) => {
  try {
    const waits = parseSchedule(value);
    if (waits.length > 5) throw new Error('at most 5 waits: a delivery is retried at most 5 times');
    return waits;
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: (error as Error).message });
    return z.NEVER;
  }
});

const flag = z.enum(['true', 'false']).transform((value) => value === 'true');

/** Only for development and tests: production must bring its own WEBHOOK_SECRET_KEY. */
export const DEVELOPMENT_SECRET_KEY = Buffer.alloc(32, 'nida-development-only-secret-key').toString('base64');

/**
 * Only for development and tests: the credential subgraphs require of their callers. `npm start`
 * generates a random one for its children; production must bring its own INTERNAL_SECRET.
 */
export const DEVELOPMENT_INTERNAL_SECRET = 'nida-development-only-internal-secret-000';

const secretKey = z.string().refine((value) => Buffer.from(value, 'base64').length === 32, {
  message: 'must be 32 random bytes in base64 (openssl rand -base64 32)',
});

const internalSecret = z
  .string()
  .min(32, 'at least 32 characters (openssl rand -base64 32)')
  .regex(/^[\x21-\x7e]+$/, 'printable ASCII without spaces, as it travels in a header');

/** Every setting of every process, read once from the environment at start. */
const configSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DATABASE_URL: postgresUrl.default('postgres://postgres@127.0.0.1:5432/nida'),
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(100).default(10),
  REDIS_URL: redisUrl.default('redis://127.0.0.1:6379'),
  REDIS_SENTINELS: sentinelList.optional(),
  REDIS_SENTINEL_MASTER: z
    .string()
    .regex(
      /^[A-Za-z0-9._-]+$/,
      'the master group name of `sentinel monitor` (letters, digits, ".", "_", "-")',
    )
    .optional(),
  REDIS_SENTINEL_PASSWORD: z.string().min(1).optional(),
  REDIS_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9:_-]*$/, 'letters, digits, ":", "_" and "-" only')
    .default('nida:'),
  LISTEN_HOST: z.string().min(1).default('127.0.0.1'),
  METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  TRUSTED_PROXIES: z
    .string()
    .default('')
    .transform((value, ctx) => {
      const entries = value
        .split(',')
        .map((entry) => entry.trim())
        .filter((entry) => entry !== '');
      for (const entry of entries) {
        const problem = trustedProxyProblem(entry);
        if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
      }
      return entries;
    }),
  REST_PORT: port(3000),
  GATEWAY_PORT: port(4000),
  TICKETS_PORT: port(4001),
  CV_PORT: port(4002),
  BILLING_PORT: port(4003),
  IDENTITY_PORT: port(4005),
  GATEWAY_URL: httpUrl.optional(),
  TICKETS_SUBGRAPH_URL: httpUrl.optional(),
  CV_SUBGRAPH_URL: httpUrl.optional(),
  BILLING_SUBGRAPH_URL: httpUrl.optional(),
  IDENTITY_SUBGRAPH_URL: httpUrl.optional(),
  PUBLIC_BASE_URL: httpUrl.default('http://localhost:3000'),
  PUBLIC_LIVE_URL: z
    .string()
    .regex(/^wss?:\/\/[^\s]+$/, 'a ws:// or wss:// URL')
    .optional(),
  PUBLIC_RATE_LIMIT: z.coerce.number().int().min(1).default(300),
  PUBLIC_WRITE_RATE_LIMIT: z.coerce.number().int().min(1).default(30),
  SHUTDOWN_TIMEOUT_MS: duration.default(10_000),
  SHUTDOWN_DELAY_MS: duration.optional(),
  READY_CHECK_TIMEOUT_MS: duration.default(2_000),
  UPSTREAM_TIMEOUT_MS: duration.default(30_000),
  GATEWAY_SHARE_FETCHES: flag.default(true),
  GATEWAY_FRONT_DOOR: flag.default(true),
  GATEWAY_PREPARED_OPERATIONS: flag.default(true),
  REST_SHARE_READS: flag.default(true),
  REST_FRONT_DOOR: flag.default(true),
  SUBGRAPH_FRONT_DOOR: flag.default(true),
  TICKETS_RATE_LIMIT: z.coerce.number().int().min(1).default(120),
  CV_RATE_LIMIT: z.coerce.number().int().min(1).default(60),
  SESSION_RATE_LIMIT: z.coerce.number().int().min(1).default(300),
  SIGNUP_RATE_LIMIT: z.coerce.number().int().min(1).default(20),
  BOARD_RATE_LIMIT: z.coerce.number().int().min(1).default(60),
  BOARD_SYNC_RATE_LIMIT: z.coerce.number().int().min(1).default(600),
  RATE_COUNT_TIMEOUT_MS: duration.min(1).optional(),
  LIVE_MAX_SOCKETS_PER_ADDRESS: z.coerce.number().int().min(1).default(200),
  LIVE_MAX_OPERATIONS_PER_SOCKET: z.coerce.number().int().min(1).default(10),
  GRAPHQL_MAX_DEPTH: z.coerce.number().int().min(1).default(10),
  GRAPHQL_MAX_ALIASES: z.coerce.number().int().min(0).default(15),
  GRAPHQL_MAX_TOKENS: z.coerce.number().int().min(1).default(2_000),
  GRAPHQL_MAX_DIRECTIVES: z.coerce.number().int().min(0).default(10),
  GRAPHQL_MAX_COST: z.coerce.number().int().min(1).default(10_000),
  GRAPHQL_MAX_MUTATION_FIELDS: z.coerce.number().int().min(1).default(15),
  CHROMIUM_PATH: z.string().min(1).default('/usr/bin/chromium'),
  RENDER_POOL_SIZE: z.coerce.number().int().min(1).max(32).default(2),
  RENDER_MAX_JOBS_PER_BROWSER: z.coerce.number().int().min(1).default(500),
  RENDER_QUEUE_LIMIT: z.coerce.number().int().min(0).default(16),
  RENDER_TIMEOUT_MS: duration.min(1).default(15_000),
  EVENTS_PORT: port(4004),
  WEBHOOK_RETRY_SCHEDULE: schedule.default([10_000, 60_000, 300_000, 1_800_000, 7_200_000]),
  WEBHOOK_TIMEOUT_MS: duration.default(10_000),
  WEBHOOK_ALLOW_INSECURE: flag.default(false),
  WEBHOOK_SECRET_KEY: secretKey.optional(),
  WEBHOOK_SECRET_KEY_SECONDARY: secretKey.optional(),
  INTERNAL_SECRET: internalSecret.optional(),
  INTERNAL_SECRET_SECONDARY: internalSecret.optional(),
  SMS_DRIVER: z.enum(['log', 'http']).default('log'),
  SMS_HTTP_URL: httpUrl.optional(),
  SMS_HTTP_TOKEN: z.string().min(1).optional(),
  SMS_RETRY_SCHEDULE: schedule.default([10_000, 60_000, 300_000, 1_800_000, 7_200_000]),
  // WhatsApp Cloud API (all or none of the first six): the ready alert in the customer's chat.
  WHATSAPP_GRAPH_URL: httpUrl.optional(),
  WHATSAPP_PHONE_NUMBER_ID: z
    .string()
    .regex(/^\d{5,20}$/, 'the phone number id Meta gives, digits')
    .optional(),
  WHATSAPP_ACCESS_TOKEN: z.string().min(20, 'the system user access token Meta gives').optional(),
  WHATSAPP_APP_SECRET: z.string().min(16, 'the app secret Meta signs webhooks with').optional(),
  // A second app secret accepted on webhooks while the app's secret is being rotated.
  WHATSAPP_APP_SECRET_SECONDARY: z.string().min(16, 'the app secret Meta signs webhooks with').optional(),
  WHATSAPP_VERIFY_TOKEN: z.string().min(16, 'at least 16 characters, as Meta echoes it back').optional(),
  WHATSAPP_BUSINESS_NUMBER: z
    .string()
    .regex(/^[1-9]\d{7,14}$/, 'the business phone number in international form, digits only')
    .optional(),
  WHATSAPP_READY_TEMPLATE: z
    .string()
    .regex(/^[a-z0-9_]{1,512}$/, 'the approved template’s name (lower case, digits, underscores)')
    .default('order_ready'),
  WHATSAPP_FALLBACK_SECONDS: z.coerce.number().int().min(5).max(3600).default(60),
  VAPID_PUBLIC_KEY: z
    .string()
    .regex(/^[A-Za-z0-9_-]{87}$/, 'the base64url P-256 public key (npx web-push generate-vapid-keys)')
    .optional(),
  VAPID_PRIVATE_KEY: z
    .string()
    .regex(/^[A-Za-z0-9_-]{43}$/, 'the base64url P-256 private key (npx web-push generate-vapid-keys)')
    .optional(),
  MAIL_DRIVER: z.enum(['log', 'smtp']).default('log'),
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\/\S+$/, 'an smtp:// or smtps:// URL, e.g. smtp://user:pass@mail.example.com:587')
    .optional(),
  MAIL_FROM: z.string().min(3).default('Nida <no-reply@nida.invalid>'),
  VAPID_SUBJECT: z
    .string()
    .regex(/^(mailto:|https:\/\/)\S+$/, 'a mailto: or https: URL where push services can reach the operator')
    .default('mailto:operations@nida.invalid'),
});

type RawConfig = z.infer<typeof configSchema>;

/** The name of every environment variable loadConfig reads, for checks of deployment files against it. */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(configSchema.shape);

export type SubgraphName = 'tickets' | 'cv' | 'billing' | 'identity';

/**
 * Where Redis is: one server by URL (REDIS_URL), or whichever server the Sentinels name master of
 * a group (REDIS_SENTINELS, REDIS_SENTINEL_MASTER), followed through failovers.
 */
export type RedisTarget =
  | { kind: 'url'; url: string }
  | {
      kind: 'sentinel';
      sentinels: { host: string; port: number }[];
      masterName: string;
      /** For the Sentinels themselves (their `requirepass`), not for the master. */
      sentinelPassword: string | undefined;
    };

export interface Config {
  nodeEnv: RawConfig['NODE_ENV'];
  logLevel: RawConfig['LOG_LEVEL'];
  databaseUrl: string;
  databasePoolMax: number;
  redis: RedisTarget;
  redisPrefix: string;
  listenHost: string;
  /**
   * Where `GET /metrics` is served, never on the public port. `port` is METRICS_PORT, which names
   * one process's port; unset, each process takes its public port + 5000.
   */
  metrics: { host: string; port: number | undefined };
  /**
   * Addresses and CIDR ranges of the proxies in front (TRUSTED_PROXIES): only their
   * `X-Forwarded-For` names a client; empty, every process takes the socket's peer.
   */
  trustedProxies: string[];
  ports: { rest: number; gateway: number } & Record<SubgraphName, number>;
  /** Where the REST adapter sends its GraphQL operations. */
  gatewayUrl: string;
  /** Where the gateway reaches each subgraph; overrides the URLs composed into the supergraph. */
  subgraphUrls: Record<SubgraphName, string>;
  /** Base of every public URL the platform hands out (ticket pages, QR images, share links). */
  publicBaseUrl: string;
  /** Where customer pages open their graphql-ws connection: the gateway's /graphql as the public sees it. */
  publicLiveUrl: string;
  /** Requests a minute per client address to the ticket page, its QR images and its assets. */
  publicRateLimit: number;
  /** Writes without a credential a minute per client address (the page's, sign-in, sign-up). */
  publicWriteRateLimit: number;
  /**
   * How long a request waits for its rate-limit count in Redis before it is let through uncounted
   * (RATE_COUNT_TIMEOUT_MS); unset, common/rate-budget.ts's default.
   */
  rateCountTimeoutMs: number | undefined;
  shutdownTimeoutMs: number;
  /**
   * How long a stopping process answers `/readyz` 503 while still serving, before it closes its
   * listener (SHUTDOWN_DELAY_MS): long enough for a load balancer's checks to take it out.
   */
  shutdownDelayMs: number;
  readyCheckTimeoutMs: number;
  upstreamTimeoutMs: number;
  /**
   * Whether the gateway lets a query's subgraph fetch join an identical one in flight
   * (GATEWAY_SHARE_FETCHES): on unless a benchmark or an operator turns it off.
   */
  shareSubgraphFetches: boolean;
  /**
   * Whether the gateway answers plain `POST /graphql` requests ahead of express
   * (GATEWAY_FRONT_DOOR, gateway/door/graphql-door.ts): on unless a test or an operator turns it off.
   */
  frontDoor: boolean;
  /**
   * Whether the front door runs operations it has seen through the full path straight through the
   * gateway's executor (GATEWAY_PREPARED_OPERATIONS, gateway/fetch/prepared-operations.ts): on unless a
   * test or an operator turns it off; nothing without the door.
   */
  preparedOperations: boolean;
  /**
   * Whether the REST adapter lets a read join an identical call to the gateway in flight
   * (REST_SHARE_READS): on unless a benchmark or an operator turns it off.
   */
  shareRestReads: boolean;
  /**
   * Whether the REST adapter answers `GET /api/v1/tickets/{id}` ahead of express (REST_FRONT_DOOR,
   * rest-adapter/tickets/ticket-read.door.ts): on unless a test or an operator turns it off.
   */
  restFrontDoor: boolean;
  /**
   * Whether each subgraph answers plain `POST /graphql` requests from the platform ahead of express
   * (SUBGRAPH_FRONT_DOOR, common/graphql-door.ts): on unless a test or an operator turns it off.
   */
  subgraphFrontDoor: boolean;
  /** Requests a minute per ticket API key (the document says 120; benchmarks raise it). */
  ticketsRateLimit: number;
  /** cv-api.md: requests a minute per account over the CV API. */
  cvRateLimit: number;
  /** Requests a minute per signed-in person on the graph, over all of their sessions. */
  sessionRateLimit: number;
  /** Sign-ups an hour per client address. */
  signUpRateLimit: number;
  /** Operations a minute per paired board device on the graph: a person's pace at a counter. */
  boardRateLimit: number;
  /**
   * Operations per ten minutes (BOARD_SYNC_WINDOW_SECONDS) a paired board device may replay of
   * what it did offline (mutations carrying occurredAt), beside its minute's budget.
   */
  boardSyncRateLimit: number;
  /** What one client may hold open on one gateway process over graphql-ws. */
  live: {
    /** Sockets per client address. */
    maxSocketsPerAddress: number;
    /** Operations (subscriptions, and queries still running) at once on one socket. */
    maxOperationsPerSocket: number;
  };
  /**
   * Held by the platform's own processes only: subgraphs answer no request without it, and the
   * gateway does not count again a request the REST adapter has already counted.
   */
  internalSecret: string;
  /**
   * What a process accepts as the credential (and as an export link's key): `internalSecret`
   * first, and during a rotation INTERNAL_SECRET_SECONDARY. Only `internalSecret` is ever sent.
   */
  acceptedInternalSecrets: readonly string[];
  /** What one GraphQL operation may ask of the gateway, checked before it is planned. */
  graphqlLimits: {
    maxDepth: number;
    maxAliases: number;
    maxTokens: number;
    maxDirectives: number;
    /** Each field costs 1; a list multiplies what it selects by its page size. */
    maxCost: number;
    /** Root fields of one mutation, aliases counting. */
    maxMutationFields: number;
  };
  /** The CV service's PDF renderer: one Chromium per process and a pool of its pages. */
  render: {
    chromiumPath: string;
    poolSize: number;
    /** Chromium is restarted after this many exports, so nothing it accumulates lives long. */
    maxJobsPerBrowser: number;
    /** Exports allowed to wait for a page; beyond that the service answers 503 at once. */
    queueLimit: number;
    timeoutMs: number;
  };
  /** The events worker (outbox relay, webhook and SMS delivery): health endpoints only. */
  eventsPort: number;
  webhooks: {
    /** Waits before retries 1…5; the last one repeats when fewer are given. */
    retryScheduleMs: number[];
    timeoutMs: number;
    /** http:// and private or local addresses, for development and tests only. */
    allowInsecure: boolean;
    /** AES-256-GCM key that seals endpoint secrets at rest, and opens them. */
    secretKey: Buffer;
    /**
     * During a rotation only (WEBHOOK_SECRET_KEY_SECONDARY): a key that also opens sealed secrets
     * and never seals one.
     */
    secondarySecretKey: Buffer | null;
  };
  /** Web Push to customers' pages in the background; null when no VAPID keys are configured. */
  push: { publicKey: string; privateKey: string; subject: string } | null;
  /** Mail to people (verification, password reset, invitations): logged, or sent over SMTP. */
  mail: { driver: 'log' | 'smtp'; smtpUrl: string | undefined; from: string };
  sms: {
    driver: 'log' | 'http';
    httpUrl: string | undefined;
    httpToken: string | undefined;
    retryScheduleMs: number[];
  };
  /** WhatsApp Cloud API; null (WhatsApp off for every venue) when it is not configured. */
  whatsapp: WhatsAppConfig | null;
}

export interface WhatsAppConfig {
  /** The Graph API base with its version, e.g. https://graph.facebook.com/v21.0. */
  graphUrl: string;
  phoneNumberId: string;
  accessToken: string;
  /** The app secrets webhooks are signed with: the current one first, a previous one during a roll. */
  appSecrets: string[];
  verifyToken: string;
  /** Digits, for the https://wa.me/ link. */
  businessNumber: string;
  readyTemplate: string;
  fallbackSeconds: number;
}

/** The variables WhatsApp needs, all given (on) or none (off). */
const WHATSAPP_REQUIRED = [
  'WHATSAPP_GRAPH_URL',
  'WHATSAPP_PHONE_NUMBER_ID',
  'WHATSAPP_ACCESS_TOKEN',
  'WHATSAPP_APP_SECRET',
  'WHATSAPP_VERIFY_TOKEN',
  'WHATSAPP_BUSINESS_NUMBER',
] as const;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * The rules a rotated secret keeps: production brings its own primary and never a public
 * development value in either slot; a secondary equal to its primary is a slip of the operator's
 * (a rotation that would change nothing), named before a roll goes on with it.
 */
function rotationProblems(raw: RawConfig): string[] {
  const problems: string[] = [];
  const production = raw.NODE_ENV === 'production';
  const pairs = [
    {
      name: 'WEBHOOK_SECRET_KEY',
      primary: raw.WEBHOOK_SECRET_KEY,
      secondary: raw.WEBHOOK_SECRET_KEY_SECONDARY,
      development: DEVELOPMENT_SECRET_KEY,
      // The same 32 bytes may be spelt in base64 more than one way.
      spelling: (value: string) => Buffer.from(value, 'base64').toString('base64'),
    },
    {
      name: 'INTERNAL_SECRET',
      primary: raw.INTERNAL_SECRET,
      secondary: raw.INTERNAL_SECRET_SECONDARY,
      development: DEVELOPMENT_INTERNAL_SECRET,
      spelling: (value: string) => value,
    },
  ];
  for (const { name, primary, secondary, development, spelling } of pairs) {
    const same = (a: string | undefined, b: string) => a !== undefined && spelling(a) === spelling(b);
    if (production && primary === undefined) {
      problems.push(`${name}: required in production (openssl rand -base64 32)`);
    }
    for (const [variable, value] of [
      [name, primary],
      [`${name}_SECONDARY`, secondary],
    ] as const) {
      if (production && same(value, development)) {
        problems.push(`${variable}: the development value is public; generate one (openssl rand -base64 32)`);
      }
    }
    if (same(secondary, primary ?? development)) {
      problems.push(
        `${name}_SECONDARY: the same as ${name}; give the other value of the rotation, or leave it unset`,
      );
    }
  }
  return problems;
}

/** What two variables decide together, each with its problem, in the order problems are listed. */
const COMBINATIONS: readonly { problem: string; when: (raw: RawConfig) => boolean }[] = [
  // Venues choose webhook URLs: allowed any address, a venue could aim signed POSTs at the
  // cluster's own services (a metadata endpoint, Redis, the subgraphs) from inside the network.
  {
    problem: 'WEBHOOK_ALLOW_INSECURE: never true in production (development and tests only)',
    when: (raw) => raw.NODE_ENV === 'production' && raw.WEBHOOK_ALLOW_INSECURE,
  },
  {
    problem: 'SMS_HTTP_URL: required when SMS_DRIVER is http',
    when: (raw) => raw.SMS_DRIVER === 'http' && raw.SMS_HTTP_URL === undefined,
  },
  {
    problem: `${WHATSAPP_REQUIRED.join(', ')}: give all (WhatsApp on) or none (off)`,
    when: (raw) => new Set(WHATSAPP_REQUIRED.map((name) => raw[name] === undefined)).size > 1,
  },
  {
    problem: 'SMTP_URL: required when MAIL_DRIVER is smtp',
    when: (raw) => raw.MAIL_DRIVER === 'smtp' && raw.SMTP_URL === undefined,
  },
  {
    problem: 'VAPID_PUBLIC_KEY, VAPID_PRIVATE_KEY: give both (Web Push on) or neither (off)',
    when: (raw) => (raw.VAPID_PUBLIC_KEY === undefined) !== (raw.VAPID_PRIVATE_KEY === undefined),
  },
  {
    problem:
      'REDIS_SENTINELS, REDIS_SENTINEL_MASTER: give both (Redis through Sentinel) or neither (REDIS_URL)',
    when: (raw) => (raw.REDIS_SENTINELS === undefined) !== (raw.REDIS_SENTINEL_MASTER === undefined),
  },
  {
    problem: 'REDIS_SENTINEL_PASSWORD: only with REDIS_SENTINELS and REDIS_SENTINEL_MASTER',
    when: (raw) => raw.REDIS_SENTINEL_PASSWORD !== undefined && raw.REDIS_SENTINELS === undefined,
  },
];

const local = (port: number) => `http://127.0.0.1:${port}/graphql`;
const gatewayUrl = (raw: RawConfig) => raw.GATEWAY_URL ?? local(raw.GATEWAY_PORT);
const internalSecretOf = (raw: RawConfig) => raw.INTERNAL_SECRET ?? DEVELOPMENT_INTERNAL_SECRET;

/** Each field of Config from the variables it is read from, in the order of the interface. */
const CONFIG_FIELDS: { [Field in keyof Config]: (raw: RawConfig) => Config[Field] } = {
  nodeEnv: (raw) => raw.NODE_ENV,
  logLevel: (raw) => raw.LOG_LEVEL,
  databaseUrl: (raw) => raw.DATABASE_URL,
  databasePoolMax: (raw) => raw.DATABASE_POOL_MAX,
  redis: (raw) =>
    raw.REDIS_SENTINELS !== undefined && raw.REDIS_SENTINEL_MASTER !== undefined
      ? {
          kind: 'sentinel',
          sentinels: raw.REDIS_SENTINELS,
          masterName: raw.REDIS_SENTINEL_MASTER,
          sentinelPassword: raw.REDIS_SENTINEL_PASSWORD,
        }
      : { kind: 'url', url: raw.REDIS_URL },
  redisPrefix: (raw) => raw.REDIS_PREFIX,
  listenHost: (raw) => raw.LISTEN_HOST,
  metrics: (raw) => ({ host: raw.METRICS_HOST, port: raw.METRICS_PORT }),
  trustedProxies: (raw) => raw.TRUSTED_PROXIES,
  ports: (raw) => ({
    rest: raw.REST_PORT,
    gateway: raw.GATEWAY_PORT,
    tickets: raw.TICKETS_PORT,
    cv: raw.CV_PORT,
    billing: raw.BILLING_PORT,
    identity: raw.IDENTITY_PORT,
  }),
  gatewayUrl,
  subgraphUrls: (raw) => ({
    tickets: raw.TICKETS_SUBGRAPH_URL ?? local(raw.TICKETS_PORT),
    cv: raw.CV_SUBGRAPH_URL ?? local(raw.CV_PORT),
    billing: raw.BILLING_SUBGRAPH_URL ?? local(raw.BILLING_PORT),
    identity: raw.IDENTITY_SUBGRAPH_URL ?? local(raw.IDENTITY_PORT),
  }),
  publicBaseUrl: (raw) => raw.PUBLIC_BASE_URL.replace(/\/+$/, ''),
  publicLiveUrl: (raw) => raw.PUBLIC_LIVE_URL ?? gatewayUrl(raw).replace(/^http/, 'ws'),
  publicRateLimit: (raw) => raw.PUBLIC_RATE_LIMIT,
  publicWriteRateLimit: (raw) => raw.PUBLIC_WRITE_RATE_LIMIT,
  rateCountTimeoutMs: (raw) => raw.RATE_COUNT_TIMEOUT_MS,
  shutdownTimeoutMs: (raw) => raw.SHUTDOWN_TIMEOUT_MS,
  // In production a load balancer or a Kubernetes Service is in front; on a laptop nothing is.
  shutdownDelayMs: (raw) => raw.SHUTDOWN_DELAY_MS ?? (raw.NODE_ENV === 'production' ? 5_000 : 0),
  readyCheckTimeoutMs: (raw) => raw.READY_CHECK_TIMEOUT_MS,
  upstreamTimeoutMs: (raw) => raw.UPSTREAM_TIMEOUT_MS,
  shareSubgraphFetches: (raw) => raw.GATEWAY_SHARE_FETCHES,
  frontDoor: (raw) => raw.GATEWAY_FRONT_DOOR,
  preparedOperations: (raw) => raw.GATEWAY_PREPARED_OPERATIONS,
  shareRestReads: (raw) => raw.REST_SHARE_READS,
  restFrontDoor: (raw) => raw.REST_FRONT_DOOR,
  subgraphFrontDoor: (raw) => raw.SUBGRAPH_FRONT_DOOR,
  ticketsRateLimit: (raw) => raw.TICKETS_RATE_LIMIT,
  cvRateLimit: (raw) => raw.CV_RATE_LIMIT,
  sessionRateLimit: (raw) => raw.SESSION_RATE_LIMIT,
  signUpRateLimit: (raw) => raw.SIGNUP_RATE_LIMIT,
  boardRateLimit: (raw) => raw.BOARD_RATE_LIMIT,
  boardSyncRateLimit: (raw) => raw.BOARD_SYNC_RATE_LIMIT,
  live: (raw) => ({
    maxSocketsPerAddress: raw.LIVE_MAX_SOCKETS_PER_ADDRESS,
    maxOperationsPerSocket: raw.LIVE_MAX_OPERATIONS_PER_SOCKET,
  }),
  internalSecret: internalSecretOf,
  acceptedInternalSecrets: (raw) => [
    internalSecretOf(raw),
    ...(raw.INTERNAL_SECRET_SECONDARY === undefined ? [] : [raw.INTERNAL_SECRET_SECONDARY]),
  ],
  graphqlLimits: (raw) => ({
    maxDepth: raw.GRAPHQL_MAX_DEPTH,
    maxAliases: raw.GRAPHQL_MAX_ALIASES,
    maxTokens: raw.GRAPHQL_MAX_TOKENS,
    maxDirectives: raw.GRAPHQL_MAX_DIRECTIVES,
    maxCost: raw.GRAPHQL_MAX_COST,
    maxMutationFields: raw.GRAPHQL_MAX_MUTATION_FIELDS,
  }),
  render: (raw) => ({
    chromiumPath: raw.CHROMIUM_PATH,
    poolSize: raw.RENDER_POOL_SIZE,
    maxJobsPerBrowser: raw.RENDER_MAX_JOBS_PER_BROWSER,
    queueLimit: raw.RENDER_QUEUE_LIMIT,
    timeoutMs: raw.RENDER_TIMEOUT_MS,
  }),
  eventsPort: (raw) => raw.EVENTS_PORT,
  webhooks: (raw) => ({
    retryScheduleMs: raw.WEBHOOK_RETRY_SCHEDULE,
    timeoutMs: raw.WEBHOOK_TIMEOUT_MS,
    allowInsecure: raw.WEBHOOK_ALLOW_INSECURE,
    secretKey: Buffer.from(raw.WEBHOOK_SECRET_KEY ?? DEVELOPMENT_SECRET_KEY, 'base64'),
    secondarySecretKey:
      raw.WEBHOOK_SECRET_KEY_SECONDARY === undefined
        ? null
        : Buffer.from(raw.WEBHOOK_SECRET_KEY_SECONDARY, 'base64'),
  }),
  push: (raw) =>
    raw.VAPID_PUBLIC_KEY !== undefined && raw.VAPID_PRIVATE_KEY !== undefined
      ? { publicKey: raw.VAPID_PUBLIC_KEY, privateKey: raw.VAPID_PRIVATE_KEY, subject: raw.VAPID_SUBJECT }
      : null,
  mail: (raw) => ({ driver: raw.MAIL_DRIVER, smtpUrl: raw.SMTP_URL, from: raw.MAIL_FROM }),
  sms: (raw) => ({
    driver: raw.SMS_DRIVER,
    httpUrl: raw.SMS_HTTP_URL,
    httpToken: raw.SMS_HTTP_TOKEN,
    retryScheduleMs: raw.SMS_RETRY_SCHEDULE,
  }),
  whatsapp: (raw) =>
    raw.WHATSAPP_GRAPH_URL === undefined ||
    raw.WHATSAPP_PHONE_NUMBER_ID === undefined ||
    raw.WHATSAPP_ACCESS_TOKEN === undefined ||
    raw.WHATSAPP_APP_SECRET === undefined ||
    raw.WHATSAPP_VERIFY_TOKEN === undefined ||
    raw.WHATSAPP_BUSINESS_NUMBER === undefined
      ? null
      : {
          graphUrl: raw.WHATSAPP_GRAPH_URL.replace(/\/+$/, ''),
          phoneNumberId: raw.WHATSAPP_PHONE_NUMBER_ID,
          accessToken: raw.WHATSAPP_ACCESS_TOKEN,
          appSecrets: [
            raw.WHATSAPP_APP_SECRET,
            ...(raw.WHATSAPP_APP_SECRET_SECONDARY ? [raw.WHATSAPP_APP_SECRET_SECONDARY] : []),
          ],
          verifyToken: raw.WHATSAPP_VERIFY_TOKEN,
          businessNumber: raw.WHATSAPP_BUSINESS_NUMBER,
          readyTemplate: raw.WHATSAPP_READY_TEMPLATE,
          fallbackSeconds: raw.WHATSAPP_FALLBACK_SECONDS,
        },
};

/** The variables as configSchema reads them; throws a ConfigError naming every one it refuses. */
function parseVariables(env: NodeJS.ProcessEnv): RawConfig {
  // An empty variable means "not set", so `FOO= npm start` falls back to the default.
  const present = Object.fromEntries(
    Object.entries(env).filter(([, value]) => value !== undefined && value !== ''),
  );
  const parsed = configSchema.safeParse(present);
  if (parsed.success) return parsed.data;
  throw new ConfigError(
    parsed.error.issues.map((issue) => {
      const name = issue.path.join('.');
      const got = present[name];
      return `${name}: ${issue.message}${got === undefined ? '' : ` (got ${JSON.stringify(got)})`}`;
    }),
  );
}

/** Validates the environment; throws a ConfigError listing every bad variable at once. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const raw = parseVariables(env);
  const problems = [
    ...rotationProblems(raw),
    ...COMBINATIONS.filter(({ when }) => when(raw)).map(({ problem }) => problem),
  ];
  if (problems.length > 0) throw new ConfigError(problems);
  // CONFIG_FIELDS has exactly Config's fields, each typed as its own.
  return Object.fromEntries(
    Object.entries(CONFIG_FIELDS).map(([field, read]) => [field, read(raw)]),
  ) as unknown as Config;
}

/** The database URL with any password hidden, for messages and logs. */
export function redactUrl(url: string): string {
  return url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');
}
