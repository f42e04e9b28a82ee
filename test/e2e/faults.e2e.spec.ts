import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { Client } from 'pg';
import WebSocket from 'ws';
import { loadConfig, type Config } from '../../common/config';
import { migrateAll, seedReferenceData } from '../../tools/database-setup';
import { pageLikeClient, type PageLikeClient } from '../support/live-client';
import { startOwnPostgres, startOwnRedis, type OwnServer } from '../support/own-servers';
import { newTicketBranch, type TicketBranch, hookReceiver } from '../support/platform';
import { freePorts, PROCESS_KINDS, startProcess, type PlatformProcess } from '../support/processes';
import { waitUntil } from '../support/wait';
import { WebhookReceiver } from '../support/webhook-receiver';

/** The platform's processes this file runs; the cv subgraph and its Chromium take no part. */
const { billing, tickets, events, gateway, adapter } = PROCESS_KINDS;
const PROCESSES = { billing, tickets, events, gateway, adapter };

type ProcessName = keyof typeof PROCESSES;
const NAMES = Object.keys(PROCESSES) as ProcessName[];

/** One answer a client got during a fault, as it saw it. */
interface Outcome {
  at: number;
  what: string;
  status: number;
  retryAfter: string | null;
  body: string;
  /** The ticket a 201 or a GraphQL create reported. */
  ticketId?: number;
}

interface RawSubscriber {
  socket: WebSocket;
  messages: { type: string }[];
  closed: Promise<{ code: number; at: number }>;
}

/** A stack trace in a body: "at fn (file:line:col)" frames or a named JS error. */
const STACK = /\n\s+at |\bat [\w.<>]+ \(|(Type|Reference|Syntax)Error:/;

/**
 * Clients that keep calling while a fault happens; each answer is kept for the assertions.
 * `workers` run in parallel, each waiting for its answer before its next call.
 */
class Load {
  readonly outcomes: Outcome[] = [];
  private running = true;
  private readonly done: Promise<void[]>;

  constructor(workers: number, call: (n: number) => Promise<Outcome>) {
    let n = 0;
    this.done = Promise.all(
      Array.from({ length: workers }, async () => {
        while (this.running) {
          n += 1;
          this.outcomes.push(await call(n));
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }),
    );
  }

  async stop(): Promise<Outcome[]> {
    this.running = false;
    await this.done;
    return this.outcomes;
  }
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** Figures a reader of the test output wants: what clients saw and how long recovery took. */
function report(scenario: string, figures: Record<string, unknown>): void {
  process.stdout.write(`[faults] ${scenario}: ${JSON.stringify(figures)}\n`);
}

function tally(outcomes: Outcome[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const o of outcomes) counts[`${o.what} ${o.status}`] = (counts[`${o.what} ${o.status}`] ?? 0) + 1;
  return counts;
}

describe('faults, on a Postgres and a Redis of the test’s own', () => {
  let postgres: OwnServer;
  let redis: OwnServer;
  let config: Config;
  let env: NodeJS.ProcessEnv;
  let ports: Record<ProcessName, number>;
  const processes = {} as Record<ProcessName, PlatformProcess>;
  let branch: TicketBranch;
  const receiver = new WebhookReceiver();
  let restUrl: string;
  let gatewayUrl: string;

  const readyUrl = (name: ProcessName) => `http://127.0.0.1:${ports[name]}/readyz`;
  const start = async (name: ProcessName) => {
    processes[name] = await startProcess(PROCESSES[name].script, env, readyUrl(name));
  };

  beforeAll(async () => {
    [postgres, redis] = await Promise.all([startOwnPostgres(), startOwnRedis()]);
    const allocated = await freePorts(NAMES.length);
    ports = Object.fromEntries(NAMES.map((name, i) => [name, allocated[i]!])) as Record<ProcessName, number>;
    const graphql = (name: ProcessName) => `http://127.0.0.1:${ports[name]}/graphql`;
    env = {
      ...process.env,
      LOG_LEVEL: 'warn',
      DATABASE_URL: `${postgres.url}/nida_faults`,
      REDIS_URL: redis.url,
      REDIS_PREFIX: 'faults:',
      TICKETS_SUBGRAPH_URL: graphql('tickets'),
      BILLING_SUBGRAPH_URL: graphql('billing'),
      // Nothing here needs the cv subgraph; its URL only has to be a valid one.
      CV_SUBGRAPH_URL: 'http://127.0.0.1:9/graphql',
      GATEWAY_URL: graphql('gateway'),
      PUBLIC_BASE_URL: 'https://q.example.test',
      WEBHOOK_ALLOW_INSECURE: 'true',
      WEBHOOK_RETRY_SCHEDULE: '200ms',
      SHUTDOWN_TIMEOUT_MS: '2000',
      // The limits are not what these tests are about; the load would reach them in seconds.
      TICKETS_RATE_LIMIT: '1000000',
      PUBLIC_RATE_LIMIT: '1000000',
      INTERNAL_SECRET: randomBytes(32).toString('base64url'),
      METRICS_PORT: '0',
      ...Object.fromEntries(NAMES.map((name) => [PROCESSES[name].portVariable, String(ports[name])])),
    };
    config = loadConfig(env);
    await migrateAll(config);
    await seedReferenceData(config);
    await Promise.all([start('billing'), start('tickets'), start('events')]);
    await Promise.all([start('gateway'), start('adapter')]);
    restUrl = `http://127.0.0.1:${ports.adapter}/api/v1`;
    gatewayUrl = graphql('gateway');
    branch = await newTicketBranch(config);
    await hookReceiver(config, branch.venueId, receiver, 'ticket.created');
  }, 90_000);

  afterAll(async () => {
    // What each process logged, for reading a failure: FAULTS_PRINT_LOGS=1 npx jest test/e2e/faults.
    if (process.env.FAULTS_PRINT_LOGS === '1') {
      for (const name of NAMES) process.stdout.write(`==== ${name}\n${processes[name]?.output()}\n`);
    }
    await Promise.all(Object.values(processes).map((p) => p.kill()));
    await receiver.stop();
    await Promise.all([postgres?.destroy(), redis?.destroy()]);
  });

  const database = async <T extends Record<string, unknown>>(sql: string, params: unknown[] = []) => {
    const client = new Client({ connectionString: config.databaseUrl });
    await client.connect();
    try {
      return (await client.query<T>(sql, params)).rows;
    } finally {
      await client.end();
    }
  };

  /** A REST create as a POS sends it, with its own Idempotency-Key. */
  const restCreate = async (n: number): Promise<Outcome> => {
    const at = Date.now();
    const response = await fetch(`${restUrl}/tickets`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${branch.key}`,
        'content-type': 'application/json',
        'idempotency-key': `fault-${at}-${n}`,
      },
      body: JSON.stringify({ external_id: `order-${at}-${n}` }),
    });
    const body = await response.text();
    return {
      at,
      what: 'REST create',
      status: response.status,
      retryAfter: response.headers.get('retry-after'),
      body,
      ...(response.status === 201 ? { ticketId: (JSON.parse(body) as { id: number }).id } : {}),
    };
  };

  /** A GraphQL call to the gateway as a frontend makes it. */
  const graphql = async (what: string, query: string, variables: Record<string, unknown> = {}) => {
    const at = Date.now();
    const response = await fetch(gatewayUrl, {
      method: 'POST',
      headers: { authorization: `Bearer ${branch.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    });
    const body = await response.text();
    const outcome: Outcome = {
      at,
      what,
      status: response.status,
      retryAfter: response.headers.get('retry-after'),
      body,
    };
    const id = (JSON.parse(body) as { data?: { createTicket?: { ticket: { id: string } } } | null }).data
      ?.createTicket?.ticket.id;
    return id === undefined ? outcome : { ...outcome, ticketId: Number(id) };
  };

  const graphqlCreate = (n: number) =>
    graphql(
      'GraphQL create',
      'mutation ($input: CreateTicketInput!) { createTicket(input: $input) { ticket { id number } } }',
      { input: { externalId: `graph-${Date.now()}-${n}` } },
    );
  const graphqlList = () => graphql('GraphQL list', '{ tickets(perPage: 5) { items { id status } total } }');

  /** Codes of the GraphQL errors in an answer. */
  const codes = (outcome: Outcome) =>
    ((JSON.parse(outcome.body) as { errors?: { extensions?: { code?: string } }[] }).errors ?? []).map(
      (e) => e.extensions?.code,
    );

  /** Every answer is a success or a typed "retry later": never a 500, never a stack. */
  function expectSuccessOrRetryLater(outcomes: Outcome[], success: number): void {
    for (const outcome of outcomes) {
      expect(outcome.body).not.toMatch(STACK);
      if (outcome.status === success && codes(outcome).length === 0) continue;
      expect({ what: outcome.what, status: outcome.status, retryAfter: outcome.retryAfter }).toEqual({
        what: outcome.what,
        status: 503,
        retryAfter: expect.stringMatching(/^[1-9]\d*$/) as unknown,
      });
      if (outcome.what.startsWith('GraphQL')) {
        expect(new Set(codes(outcome))).toEqual(new Set(['UNAVAILABLE']));
      } else {
        expect(JSON.parse(outcome.body)).toEqual({ message: expect.any(String) as unknown });
      }
    }
  }

  /** Every ticket a client was told about exists with its outbox row, and no ticket lacks one. */
  async function expectNothingHalfWritten(outcomes: Outcome[]): Promise<void> {
    const reported = outcomes.flatMap((o) => (o.ticketId === undefined ? [] : [o.ticketId]));
    const found = await database<{ id: string }>(
      `select t.id from tickets.tickets t
         join tickets.outbox o on o.ticket_id = t.id and o.event = 'ticket.created'
        where t.id = any($1::bigint[])`,
      [reported],
    );
    expect(found.map((row) => Number(row.id)).sort((a, b) => a - b)).toEqual(
      [...reported].sort((a, b) => a - b),
    );
    const orphans = await database(
      `select t.id from tickets.tickets t
        where not exists (select 1 from tickets.outbox o where o.ticket_id = t.id and o.event = 'ticket.created')`,
    );
    expect(orphans).toEqual([]);
  }

  /** Resolves with how long it took until every process is ready and both doors serve tickets. */
  async function recovery(since: number): Promise<number> {
    await waitUntil(
      async () => {
        for (const name of NAMES) {
          if ((await fetch(readyUrl(name)).catch(() => null))?.status !== 200) return false;
        }
        return (await restCreate(0)).status === 201 && codes(await graphqlList()).length === 0;
      },
      20_000,
      'every process serving again',
    );
    return Date.now() - since;
  }

  /** Runs `fault` while REST and GraphQL clients call; answers everything the clients saw. */
  async function underLoad(fault: () => Promise<void>): Promise<Outcome[]> {
    const rest = new Load(3, restCreate);
    const graph = new Load(2, (n) => (n % 2 === 0 ? graphqlCreate(n) : graphqlList()));
    // Billing alone answers the plan catalogue: what a killed tickets subgraph must not touch.
    const plans = new Load(1, () => graphql('GraphQL plans', '{ plans(product: TICKETS) { key } }'));
    try {
      await new Promise((resolve) => setTimeout(resolve, 500));
      await fault();
    } finally {
      await Promise.all([rest.stop(), graph.stop(), plans.stop()]);
    }
    return [...rest.outcomes, ...graph.outcomes, ...plans.outcomes];
  }

  const pids = () => Object.fromEntries(NAMES.map((name) => [name, processes[name].child.pid]));

  it('answers 503 with Retry-After while the tickets subgraph is killed, and serves again once it is back', async () => {
    let killedAt = 0;
    let restartingAt = 0;
    let startedAt = 0;
    let back = 0;
    const outcomes = await underLoad(async () => {
      await processes.tickets.kill();
      killedAt = Date.now();
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      restartingAt = Date.now();
      await start('tickets');
      startedAt = Date.now();
      back = await recovery(startedAt);
    });

    const during = outcomes.filter(
      (o) => o.at > killedAt && o.at < restartingAt && o.what !== 'GraphQL plans',
    );
    report('tickets subgraph killed', {
      down: seconds(startedAt - killedAt),
      servingAgainAfterStart: seconds(back),
      answers: tally(outcomes),
    });
    expect(during.length).toBeGreaterThan(0);
    for (const o of during) expect(o.status).toBe(503);
    const plans = outcomes.filter((o) => o.what === 'GraphQL plans');
    expect(plans.length).toBeGreaterThan(0);
    for (const o of plans) expect({ status: o.status, codes: codes(o) }).toEqual({ status: 200, codes: [] });
    expectSuccessOrRetryLater(
      outcomes.filter((o) => o.what !== 'GraphQL create' && o.what !== 'REST create'),
      200,
    );
    expectSuccessOrRetryLater(
      outcomes.filter((o) => o.what === 'REST create'),
      201,
    );
    expectSuccessOrRetryLater(
      outcomes.filter((o) => o.what === 'GraphQL create'),
      200,
    );
    await expectNothingHalfWritten(outcomes);
    // Room for a restart that waits its turn for the CPU (startProcess allows it 60 s).
  }, 120_000);

  it('answers 503 with Retry-After while Postgres restarts, writes nothing by halves, and every process serves again without a restart', async () => {
    const before = pids();
    let stoppingAt = 0;
    let startedAt = 0;
    let back = 0;
    const outcomes = await underLoad(async () => {
      stoppingAt = Date.now();
      await postgres.stop();
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      await postgres.start();
      startedAt = Date.now();
      back = await recovery(startedAt);
    });

    report('Postgres restarted', {
      down: seconds(startedAt - stoppingAt),
      servingAgainAfterStart: seconds(back),
      answers: tally(outcomes),
    });
    expect(pids()).toEqual(before);
    for (const name of NAMES) expect(processes[name].child.exitCode).toBeNull();
    expect(outcomes.filter((o) => o.status === 503).length).toBeGreaterThan(0);
    expectSuccessOrRetryLater(
      outcomes.filter((o) => o.what === 'REST create'),
      201,
    );
    expectSuccessOrRetryLater(
      outcomes.filter((o) => o.what !== 'REST create'),
      200,
    );
    await expectNothingHalfWritten(outcomes);
    // The relay listens again (polling would hide it if it did not).
    await waitUntil(
      async () =>
        (
          await database(
            `select 1 from pg_stat_activity where datname = current_database() and query = 'listen tickets_outbox'`,
          )
        ).length === 1,
      10_000,
      'the relay listening again',
    );
    const created = await restCreate(1);
    await receiver.waitFor((hooks) => hooks.some((h) => h.json.data.ticket.id === created.ticketId));
  });

  describe('while Redis is away', () => {
    let ticket: { id: number; token: string };
    let raw: RawSubscriber;
    let page: PageLikeClient;
    let stoppedAt = 0;
    const figures: Record<string, unknown> = {};

    const wsUrl = () => gatewayUrl.replace(/^http/, 'ws');
    const subscribers = async () =>
      ((await (await fetch(gatewayUrl.replace(/\/graphql$/, '/healthz'))).json()) as { subscribers: number })
        .subscribers;
    const outputs = (name: ProcessName) => processes[name].output();

    /** A graphql-ws socket that subscribes to a ticket once acknowledged, keeping how it ends. */
    async function openRaw(token: string): Promise<RawSubscriber> {
      const socket = new WebSocket(wsUrl(), 'graphql-transport-ws');
      const messages: { type: string }[] = [];
      const closed = new Promise<{ code: number; at: number }>((resolve) =>
        socket.once('close', (code) => resolve({ code, at: Date.now() })),
      );
      socket.on('message', (data: Buffer) => {
        const message = JSON.parse(data.toString()) as { type: string };
        messages.push(message);
        if (message.type === 'connection_ack') {
          socket.send(
            JSON.stringify({
              id: 'live',
              type: 'subscribe',
              payload: {
                query: 'subscription ($t: String!) { ticketUpdated(token: $t) { status } }',
                variables: { t: token },
              },
            }),
          );
        }
      });
      await once(socket, 'open');
      socket.send(JSON.stringify({ type: 'connection_init', payload: {} }));
      return { socket, messages, closed };
    }

    const graphqlOk = async (what: string, query: string, variables: Record<string, unknown> = {}) => {
      const outcome = await graphql(what, query, variables);
      expect({ what, status: outcome.status, codes: codes(outcome) }).toEqual({
        what,
        status: 200,
        codes: [],
      });
      return JSON.parse(outcome.body) as { data: Record<string, Record<string, unknown>> };
    };

    const outboxOf = (ticketId: number) =>
      database<{ event: string; relayed: boolean; published: boolean }>(
        `select event, relayed_at is not null as relayed, published_at is not null as published
           from tickets.outbox where ticket_id = $1 order by id`,
        [ticketId],
      );

    beforeAll(async () => {
      const created = await graphqlOk(
        'GraphQL create',
        'mutation { createTicket(input: {}) { ticket { id token } } }',
      );
      const created_ = created.data.createTicket!.ticket as { id: string; token: string };
      ticket = { id: Number(created_.id), token: created_.token };
      const before = await subscribers();
      raw = await openRaw(ticket.token);
      page = pageLikeClient(wsUrl(), ticket.token);
      await waitUntil(async () => (await subscribers()) === before + 2, 10_000, 'both subscriptions');
      await waitUntil(() => page.seen.includes('refetch:WAITING'), 10_000, 'the first refetch');
      await redis.stop();
      stoppedAt = Date.now();
    });

    afterAll(async () => {
      raw?.socket.terminate();
      await page?.dispose();
      // A failed test must not leave the next file without its Redis.
      if (
        ((await fetch(readyUrl('gateway')).then((r) => r.json())) as { checks: { redis: string } }).checks
          .redis !== 'ok'
      ) {
        await redis.start();
      }
    });

    it('closes live subscribers with 1013 so they reconnect, and refuses new ones until it is back', async () => {
      const closed = await raw.closed;
      expect(closed.code).toBe(1013);
      figures.subscriberClosedAfter = seconds(closed.at - stoppedAt);
      const refused = await openRaw(ticket.token);
      expect((await refused.closed).code).toBe(1013);
      expect(refused.messages.some((m) => m.type === 'next')).toBe(false);
      await waitUntil(() => page.closeCodes.includes(1013), 5_000, 'the page-like client to be closed');
      expect(outputs('gateway')).toContain('live events subscription lost');
    });

    it('serves GraphQL ticket reads and writes, delivers webhooks without the queue, and holds live events', async () => {
      const created = await graphqlOk(
        'GraphQL create',
        'mutation { createTicket(input: {}) { ticket { id } } }',
      );
      const duringId = Number((created.data.createTicket!.ticket as { id: string }).id);
      await graphqlOk('GraphQL ready', 'mutation ($id: ID!) { markTicketReady(id: $id) { status } }', {
        id: String(ticket.id),
      });
      await graphqlOk('GraphQL read', 'query ($id: ID!) { ticket(id: $id) { status } }', {
        id: String(ticket.id),
      });
      await graphqlOk('GraphQL list', '{ tickets(perPage: 5) { total } }');

      // Deliveries are rows in Postgres; the sweep sends them itself while the job queue is away.
      await receiver.waitFor((hooks) => hooks.some((h) => h.json.data.ticket.id === duringId), 15_000);
      figures.webhookWhileAwayAfter = seconds(Date.now() - stoppedAt);
      expect(receiver.received.find((h) => h.json.data.ticket.id === duringId)!.verdict.ok).toBe(true);

      await waitUntil(
        async () => (await outboxOf(ticket.id)).every((row) => row.relayed),
        10_000,
        'the ready event relayed',
      );
      expect(await outboxOf(duringId)).toEqual([
        { event: 'ticket.created', relayed: true, published: false },
      ]);
      expect((await outboxOf(ticket.id)).map((row) => [row.event, row.published])).toEqual([
        ['ticket.created', true],
        ['ticket.ready', false],
      ]);
      expect(outputs('events')).toContain('live events cannot be published');

      for (const name of NAMES) {
        const response = await fetch(readyUrl(name));
        const body = (await response.json()) as { status: string; checks: Record<string, string> };
        expect({ name, status: response.status, body: body.status, postgres: body.checks.postgres }).toEqual({
          name,
          status: 200,
          body: 'degraded',
          postgres: 'ok',
        });
        expect(body.checks.redis).not.toBe('ok');
      }
    });

    it('serves REST and GraphQL ticket calls, the rate limits failing open with a logged warning', async () => {
      const created = await restCreate(0);
      expect(created.status).toBe(201);
      const list = await fetch(`${restUrl}/tickets`, { headers: { authorization: `Bearer ${branch.key}` } });
      expect(list.status).toBe(200);
      expect(list.headers.get('ratelimit-policy')).toBe('"tickets";q=1000000;w=60');
      expect(list.headers.get('ratelimit')).toBeNull();
      expect(outputs('adapter')).toMatch(/"level":40[^\n]*rate limits are not enforced/);
      await graphqlOk('GraphQL list', '{ tickets { total } }');
      expect(outputs('gateway')).toMatch(/"level":40[^\n]*rate limits are not enforced/);
    });

    it('publishes what was held once it is back, in order; subscribers reconnect and refetch; nothing is lost', async () => {
      await redis.start();
      const startedAt = Date.now();
      figures.away = seconds(startedAt - stoppedAt);
      await waitUntil(
        async () => (await database(`select 1 from tickets.outbox where published_at is null`)).length === 0,
        15_000,
        'every held live event published',
      );
      figures.heldEventsPublishedAfter = seconds(Date.now() - startedAt);

      await waitUntil(
        () => page.connections() >= 2 && page.seen.includes('refetch:READY'),
        15_000,
        'the page-like client reconnected and refetched',
      );
      figures.pageRefetchedAfter = seconds(Date.now() - startedAt);
      await graphqlOk(
        'GraphQL collected',
        'mutation ($id: ID!) { markTicketCollected(id: $id) { status } }',
        {
          id: String(ticket.id),
        },
      );
      await waitUntil(() => page.seen.at(-1) === 'event:COLLECTED', 10_000, 'the live COLLECTED event');
      expect(page.seen).not.toContain('subscription:error');

      const accepted = await openRaw(ticket.token);
      await waitUntil(
        () => accepted.messages.some((m) => m.type === 'connection_ack'),
        5_000,
        'a new socket',
      );
      accepted.socket.close();

      const after = await restCreate(0);
      expect(after.status).toBe(201);
      await receiver.waitFor((hooks) => hooks.some((h) => h.json.data.ticket.id === after.ticketId), 10_000);

      // A connection that has not needed Redis since it came back finds it at its next reconnect
      // attempt, at most 2 s apart (common/redis.ts), so readiness may trail the first webhook.
      for (const name of NAMES) {
        await waitUntil(
          async () => ((await (await fetch(readyUrl(name))).json()) as { status: string }).status === 'ready',
          5_000,
          `${name} ready again`,
        );
      }
      expect(
        await database(`select id from tickets.outbox where relayed_at is null or published_at is null`),
      ).toEqual([]);
      await expectNothingHalfWritten([]);
      report('Redis stopped', figures);
    });
  });
});
