import 'reflect-metadata';
import { runCli } from '../../common/cli';
import type { Config, RedisTarget } from '../../common/config';
import { createLogger } from '../../common/logger';
import type { Running } from '../../common/process';
import { startSubgraph } from '../../common/subgraph';
import { startGateway } from '../../gateway/gateway';
import { startRestAdapter } from '../../rest-adapter/rest-adapter';
import { SUBGRAPHS } from '../../subgraphs';
import { ADMIN_COMMANDS } from '../../tools/admin-commands';
import { testConfig, type TestDatabase } from './database';
import { freePorts } from './processes';
import type { WebhookReceiver } from './webhook-receiver';

export interface Platform {
  config: Config;
  restUrl: string;
  gatewayUrl: string;
  /** Each process's public port and the internal port its `/metrics` is served on. */
  ports: Record<PlatformProcessName, { port: number; metricsPort: number }>;
  stop(): Promise<void>;
}

export type PlatformProcessName = 'tickets' | 'cv' | 'billing' | 'identity' | 'gateway' | 'rest-adapter';

/** Every process of the platform in this test process, on free ports, over real HTTP. */
export async function startPlatform(database: TestDatabase, env: NodeJS.ProcessEnv = {}): Promise<Platform> {
  const [tickets, cv, billing, identity, gateway] = (await freePorts(5)) as [
    number,
    number,
    number,
    number,
    number,
  ];
  const url = (port: number) => `http://127.0.0.1:${port}/graphql`;
  const config = testConfig(database, {
    TICKETS_PORT: String(tickets),
    CV_PORT: String(cv),
    BILLING_PORT: String(billing),
    IDENTITY_PORT: String(identity),
    GATEWAY_PORT: String(gateway),
    TICKETS_SUBGRAPH_URL: url(tickets),
    CV_SUBGRAPH_URL: url(cv),
    BILLING_SUBGRAPH_URL: url(billing),
    IDENTITY_SUBGRAPH_URL: url(identity),
    GATEWAY_URL: url(gateway),
    PUBLIC_BASE_URL: 'https://q.example.test',
    ...env,
  });
  const running: Running[] = [];
  const ports: Partial<Platform['ports']> = {};
  const started = <T extends Running & { port: number; metricsPort: number }>(
    name: PlatformProcessName,
    process: T,
  ): T => {
    running.push(process);
    ports[name] = { port: process.port, metricsPort: process.metricsPort };
    return process;
  };
  try {
    for (const subgraph of SUBGRAPHS) started(subgraph.name, await startSubgraph(subgraph, config));
    started('gateway', await startGateway(config));
    const adapter = started('rest-adapter', await startRestAdapter(config));
    return {
      config,
      restUrl: `http://127.0.0.1:${adapter.port}/api/v1`,
      gatewayUrl: url(gateway),
      ports: ports as Platform['ports'],
      stop: async () => {
        for (const process of running.reverse()) await process.stop();
      },
    };
  } catch (error) {
    for (const process of running.reverse()) await process.stop();
    throw error;
  }
}

/** The variables that name a Redis target, as a process reads them back with loadConfig. */
export function redisEnv(target: RedisTarget): NodeJS.ProcessEnv {
  if (target.kind === 'url') return { REDIS_URL: target.url };
  return {
    REDIS_SENTINELS: target.sentinels
      .map(({ host, port }) => `${host.includes(':') ? `[${host}]` : host}:${port}`)
      .join(','),
    REDIS_SENTINEL_MASTER: target.masterName,
    ...(target.sentinelPassword === undefined ? {} : { REDIS_SENTINEL_PASSWORD: target.sentinelPassword }),
  };
}

/** The environment that makes a separately started process join this test's platform. */
export function platformEnv(config: Config, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn',
    DATABASE_URL: config.databaseUrl,
    ...redisEnv(config.redis),
    REDIS_PREFIX: config.redisPrefix,
    TICKETS_SUBGRAPH_URL: config.subgraphUrls.tickets,
    CV_SUBGRAPH_URL: config.subgraphUrls.cv,
    BILLING_SUBGRAPH_URL: config.subgraphUrls.billing,
    IDENTITY_SUBGRAPH_URL: config.subgraphUrls.identity,
    GATEWAY_URL: config.gatewayUrl,
    PUBLIC_BASE_URL: config.publicBaseUrl,
    WEBHOOK_ALLOW_INSECURE: String(config.webhooks.allowInsecure),
    INTERNAL_SECRET: config.internalSecret,
    // A free port: public port + 5000 may be taken, or past 65535, for a test's free public port.
    METRICS_PORT: '0',
    ...extra,
  };
}

/** Runs an admin CLI command in-process, as `npm run -s admin -- …` would, and returns its JSON. */
export async function admin<T>(config: Config, ...argv: string[]): Promise<T> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(
    argv,
    ADMIN_COMMANDS,
    () => ({
      config,
      logger: createLogger({ service: 'admin', level: 'silent' }),
      schemaModules: SUBGRAPHS.map((s) => s.schemaModule),
    }),
    { stdout: (text) => (stdout += text), stderr: (text) => (stderr += text) },
  );
  if (code !== 0) throw new Error(`admin ${argv.join(' ')} exited ${code}: ${stderr}`);
  return JSON.parse(stdout) as T;
}

export interface TicketBranch {
  venueId: number;
  branchId: number;
  key: string;
  keyId: number;
}

/** A venue on the plan, a branch and a key with the scopes (both by default). */
export async function newTicketBranch(
  config: Config,
  { plan = 'growth', sms = 'off', scopes }: { plan?: string; sms?: 'on' | 'off'; scopes?: string } = {},
): Promise<TicketBranch> {
  const venue = await admin<{ id: number }>(
    config,
    'venue',
    'create',
    '--name',
    'Samarra Grill',
    '--plan',
    plan,
    '--sms',
    sms,
  );
  const branch = await admin<{ id: number }>(
    config,
    'branch',
    'create',
    '--venue',
    String(venue.id),
    '--name',
    'Counter 1',
  );
  const key = await newBranchKey(config, branch.id, scopes);
  return { venueId: venue.id, branchId: branch.id, key: key.key, keyId: key.id };
}

/** Another key of a branch (both scopes unless given), as an operator issues it. */
export function newBranchKey(config: Config, branchId: number, scopes?: string) {
  return admin<{ id: number; key: string }>(
    config,
    'key',
    'create',
    '--branch',
    String(branchId),
    ...(scopes ? ['--scopes', scopes] : []),
  );
}

/** Another key of a CV account, sharing the account's budget and plan. */
export function newAccountKey(config: Config, accountId: number) {
  return admin<{ id: number; key: string }>(config, 'account-key', 'create', '--account', String(accountId));
}

export interface CvAccount {
  id: number;
  key: string;
  keyId: number;
}

let accountSeq = 0;

/** A CV account on the plan (free by default) with one API key, as an operator makes them. */
export async function newCvAccount(
  config: Config,
  {
    plan = 'free',
    company,
    name = 'Nour Kareem',
    email,
    keyName,
  }: { plan?: string; company?: number; name?: string; email?: string; keyName?: string } = {},
): Promise<CvAccount> {
  accountSeq += 1;
  const account = await admin<{ id: number }>(
    config,
    'account',
    'create',
    '--name',
    name,
    '--email',
    email ?? `account-${process.pid}-${accountSeq}@example.com`,
    '--plan',
    plan,
    ...(company === undefined ? [] : ['--company', String(company)]),
  );
  const issued = await admin<{ id: number; key: string }>(
    config,
    'account-key',
    'create',
    '--account',
    String(account.id),
    ...(keyName === undefined ? [] : ['--name', keyName]),
  );
  return { id: account.id, key: issued.key, keyId: issued.id };
}

export interface RestReply<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: { data?: T; message?: string; errors?: Record<string, string[]> } & Record<string, unknown>;
}

/** A JSON call to the REST adapter with a CV key (`X-API-Key`), as a legacy client makes it. */
export function cvCaller(platform: Platform) {
  return async <T = Record<string, unknown>>(
    method: string,
    path: string,
    key: string | null,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<RestReply<T>> => {
    const response = await fetch(`${platform.restUrl}${path}`, {
      method,
      headers: {
        accept: 'application/json',
        ...(body === undefined || body instanceof FormData ? {} : { 'content-type': 'application/json' }),
        ...(key ? { 'x-api-key': key } : {}),
        ...headers,
      },
      ...(body === undefined ? {} : { body: body instanceof FormData ? body : JSON.stringify(body) }),
    });
    return {
      status: response.status,
      headers: response.headers,
      body: (await response.json()) as RestReply<T>['body'],
    };
  };
}

/** The id of one of the platform's seeded templates. */
export async function platformTemplateId(database: TestDatabase, slug: string): Promise<number> {
  const [row] = await database.query('select id from cv.templates where slug = $1 and company_id is null', [
    slug,
  ]);
  return Number(row!.id);
}

/** The payload keys of a CV read, which an update accepts back. */
export function payloadOf(cv: Record<string, unknown> | undefined) {
  return {
    title: cv?.title,
    locale: cv?.locale,
    personal: cv?.personal,
    settings: cv?.settings,
    section_order: cv?.section_order,
    hidden_sections: cv?.hidden_sections,
    sections: cv?.sections,
    custom_sections: cv?.custom_sections,
  };
}

/**
 * Points a venue's webhooks for `events` (comma-separated) at a local receiver, as an operator
 * would with the admin CLI; the receiver learns the endpoint's secret to check signatures.
 */
export async function hookReceiver(
  config: Config,
  venueId: number,
  receiver: WebhookReceiver,
  events: string,
): Promise<void> {
  const hook = await admin<{ secret: string }>(
    config,
    'webhook',
    'create',
    '--venue',
    String(venueId),
    '--url',
    await receiver.start(),
    '--events',
    events,
  );
  receiver.secret = hook.secret;
}
