import { randomBytes } from 'node:crypto';
import type { Config } from '../../common/config';
import { createTestDatabase, testConfig, type TestDatabase } from '../support/database';
import { pageLikeClient, type PageLikeClient } from '../support/live-client';
import { startOwnSentinelGroup, type OwnSentinelGroup } from '../support/own-servers';
import { hookReceiver, newTicketBranch, platformEnv, type TicketBranch } from '../support/platform';
import { freePorts, PROCESS_KINDS, startProcess, type PlatformProcess } from '../support/processes';
import { SmsProvider } from '../support/sms-provider';
import { awayFromWindowEdge, waitUntil } from '../support/wait';
import { WebhookReceiver } from '../support/webhook-receiver';
import { jsonLines } from '../support/recording-logger';

/** The platform's processes this file runs; the cv and identity subgraphs take no part. */
const { billing, tickets, events, gateway, adapter } = PROCESS_KINDS;
const PROCESSES = { billing, tickets, events, gateway, adapter };

type ProcessName = keyof typeof PROCESSES;
const NAMES = Object.keys(PROCESSES) as ProcessName[];

/** Tickets the customers follow live, and customers following each. */
const FOLLOWED_TICKETS = 40;
const SUBSCRIBERS_PER_TICKET = 5;
/** Anonymous operations a minute per client address: small, so a test can spend it. */
const PUBLIC_QUOTA = 30;

/** One write a POS made during the test, as it saw it. */
interface Outcome {
  at: number;
  what: 'create' | 'ready' | 'collected';
  status: number;
  retryAfter: string | null;
}

/** What one poll of every process's /readyz saw. */
interface ReadinessPoll {
  at: number;
  /** Each process's `checks.redis`, or `unanswered`. */
  redis: Record<ProcessName, string>;
  allReady: boolean;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('Redis through Sentinel: the master killed under load', () => {
  let group: OwnSentinelGroup;
  let database: TestDatabase;
  let config: Config;
  let ports: Record<ProcessName, number>;
  const processes = {} as Record<ProcessName, PlatformProcess>;
  const receiver = new WebhookReceiver();
  const provider = new SmsProvider();
  let branch: TicketBranch;
  let restUrl: string;
  let gatewayUrl: string;
  const followed: { id: number; token: string }[] = [];
  const subscribers: { ticket: number; client: PageLikeClient }[] = [];

  const readyUrl = (name: ProcessName) => `http://127.0.0.1:${ports[name]}/readyz`;

  beforeAll(async () => {
    [group, database] = await Promise.all([startOwnSentinelGroup(), createTestDatabase()]);
    const allocated = await freePorts(NAMES.length);
    ports = Object.fromEntries(NAMES.map((name, i) => [name, allocated[i]!])) as Record<ProcessName, number>;
    const graphql = (name: ProcessName) => `http://127.0.0.1:${ports[name]}/graphql`;
    const smsUrl = await provider.start();
    config = testConfig(database, {
      ...group.env,
      // Nothing may reach Redis by its URL: only the Sentinels know where the master is.
      REDIS_URL: 'redis://127.0.0.1:1',
      TICKETS_SUBGRAPH_URL: graphql('tickets'),
      BILLING_SUBGRAPH_URL: graphql('billing'),
      // Nothing here needs these subgraphs; their URLs only have to be valid ones.
      CV_SUBGRAPH_URL: 'http://127.0.0.1:9/graphql',
      IDENTITY_SUBGRAPH_URL: 'http://127.0.0.1:9/graphql',
      GATEWAY_URL: graphql('gateway'),
      WEBHOOK_ALLOW_INSECURE: 'true',
      INTERNAL_SECRET: randomBytes(32).toString('base64url'),
    });
    expect(config.redis.kind).toBe('sentinel');
    const env = platformEnv(config, {
      // The change of master is logged at warn; the assertions read it.
      LOG_LEVEL: 'warn',
      REDIS_URL: 'redis://127.0.0.1:1',
      SMS_DRIVER: 'http',
      SMS_HTTP_URL: smsUrl,
      SMS_HTTP_TOKEN: 'provider-token',
      SMS_RETRY_SCHEDULE: '200ms',
      WEBHOOK_RETRY_SCHEDULE: '200ms',
      SHUTDOWN_TIMEOUT_MS: '2000',
      // Each customer poses as its own address behind a proxy on loopback.
      TRUSTED_PROXIES: '127.0.0.1',
      PUBLIC_RATE_LIMIT: String(PUBLIC_QUOTA),
      // The POS's own budget is not what this file is about; the load would spend it in seconds.
      TICKETS_RATE_LIMIT: '1000000',
      ...Object.fromEntries(NAMES.map((name) => [PROCESSES[name].portVariable, String(ports[name])])),
    });
    const start = async (name: ProcessName) => {
      processes[name] = await startProcess(PROCESSES[name].script, env, readyUrl(name));
    };
    await Promise.all([start('billing'), start('tickets'), start('events')]);
    await Promise.all([start('gateway'), start('adapter')]);
    restUrl = `http://127.0.0.1:${ports.adapter}/api/v1`;
    gatewayUrl = graphql('gateway');

    branch = await newTicketBranch(config, { sms: 'on' });
    await hookReceiver(config, branch.venueId, receiver, 'ticket.created,ticket.ready');
    for (let i = 0; i < FOLLOWED_TICKETS; i += 1) {
      const created = await write('create', () => rest('POST', '/tickets', { customer_phone: phone(i) }));
      followed.push(created as { id: number; token: string });
    }
    const wsUrl = gatewayUrl.replace(/^http/, 'ws');
    followed.forEach((ticket, t) => {
      for (let s = 0; s < SUBSCRIBERS_PER_TICKET; s += 1) {
        const n = t * SUBSCRIBERS_PER_TICKET + s;
        subscribers.push({
          ticket: ticket.id,
          client: pageLikeClient(wsUrl, ticket.token, {
            address: `10.77.${Math.floor(n / 200)}.${(n % 200) + 1}`,
            // Jittered, as the page's backoff is: 200 customers do not all knock at once.
            retryWaitMs: () => 300 + Math.random() * 1_000,
          }),
        });
      }
    });
    await waitUntil(
      () => subscribers.every(({ client }) => client.seen.includes('refetch:WAITING')),
      60_000,
      'every subscriber connected and refetched',
    );
    await waitUntil(
      async () => (await gatewayHealth()).subscribers >= subscribers.length,
      30_000,
      'every subscription held by the gateway',
    );
  }, 150_000);

  afterAll(async () => {
    // What each process logged, for reading a failure: FAILOVER_PRINT_LOGS=1 npx jest test/e2e/redis-failover.
    if (process.env.FAILOVER_PRINT_LOGS === '1') {
      for (const name of NAMES) process.stdout.write(`==== ${name}\n${processes[name]?.output()}\n`);
    }
    await Promise.all(subscribers.map(({ client }) => client.dispose()));
    await Promise.all(Object.values(processes).map((p) => p.kill()));
    await Promise.all([receiver.stop(), provider.stop()]);
    await group?.destroy();
    await database?.drop();
  });

  const phone = (n: number) => `0770${String(1_000_000 + n).padStart(7, '0')}`;

  async function rest(method: string, path: string, body?: unknown, idempotencyKey?: string) {
    const response = await fetch(`${restUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${branch.key}`,
        'content-type': 'application/json',
        ...(idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { response, body: (await response.json()) as Record<string, unknown> };
  }

  const gatewayHealth = async () =>
    (await (await fetch(gatewayUrl.replace(/\/graphql$/, '/healthz'))).json()) as { subscribers: number };

  const outcomes: Outcome[] = [];

  /**
   * One write as a POS makes it: a 503 with Retry-After is retried (after at most a second, to keep
   * the test short) with the same request, anything else but success fails the test.
   */
  async function write(
    what: Outcome['what'],
    call: () => Promise<{ response: Response; body: Record<string, unknown> }>,
  ): Promise<Record<string, unknown>> {
    for (let attempt = 1; ; attempt += 1) {
      const at = Date.now();
      const { response, body } = await call();
      const retryAfter = response.headers.get('retry-after');
      outcomes.push({ at, what, status: response.status, retryAfter });
      if (response.ok) return body;
      if (response.status !== 503 || attempt >= 60) {
        throw new Error(`${what} answered ${response.status} (attempt ${attempt}): ${JSON.stringify(body)}`);
      }
      await sleep(Math.min(Number(retryAfter) * 1_000, 1_000));
    }
  }

  async function pollReadiness(): Promise<ReadinessPoll> {
    const at = Date.now();
    const answers = await Promise.all(
      NAMES.map(async (name) => {
        const response = await fetch(readyUrl(name), { signal: AbortSignal.timeout(5_000) }).catch(
          () => null,
        );
        const body = (await response?.json().catch(() => null)) as {
          status: string;
          checks: { redis: string };
        } | null;
        return [name, body] as const;
      }),
    );
    return {
      at,
      redis: Object.fromEntries(
        answers.map(([name, body]) => [name, body?.checks.redis ?? 'unanswered']),
      ) as Record<ProcessName, string>,
      allReady: answers.every(([, body]) => body?.status === 'ready'),
    };
  }

  describe('when the master is killed', () => {
    const readiness: ReadinessPoll[] = [];
    let killedAt = 0;
    let promotedAt = 0;
    let readyAgainAt = 0;
    /** When every subscriber had its socket back (the gateway closes them all when pub/sub is lost). */
    let reconnectedAt = 0;
    const readied = new Set<number>();
    const created: number[] = [];
    const figures: Record<string, unknown> = {};

    beforeAll(async () => {
      // jest runs this even when the platform did not start; say so instead of failing obscurely.
      if (subscribers.length === 0) throw new Error('the platform and its subscribers did not start');
      let loading = true;
      const watcher = (async () => {
        while (loading) {
          readiness.push(await pollReadiness());
          if (killedAt > 0 && promotedAt === 0 && (await group.currentMasterPort()) === group.replicaPort) {
            promotedAt = Date.now();
          }
          if (
            killedAt > 0 &&
            reconnectedAt === 0 &&
            subscribers.every(({ client }) => client.connections() >= 2)
          ) {
            reconnectedAt = Date.now();
          }
          await sleep(200);
        }
      })();
      // The counter calls out the followed tickets one by one, before, during and after the gap.
      const readier = (async () => {
        for (const ticket of followed) {
          await write('ready', () => rest('POST', `/tickets/${ticket.id}/ready`));
          readied.add(ticket.id);
          await sleep(300);
        }
      })();
      // Two POS terminals take orders and call each one out at once.
      const terminals = [0, 1].map(async (terminal) => {
        for (let n = 0; loading; n += 1) {
          const key = `failover-${terminal}-${n}`;
          const order = FOLLOWED_TICKETS + terminal * 1_000 + n;
          const ticket = await write('create', () =>
            rest('POST', '/tickets', { customer_phone: phone(order) }, key),
          );
          created.push(Number(ticket.id));
          await write('ready', () => rest('POST', `/tickets/${String(ticket.id)}/ready`));
          readied.add(Number(ticket.id));
          await sleep(200);
        }
      });
      try {
        await sleep(1_500);
        await group.killMaster();
        killedAt = Date.now();
        await waitUntil(
          () =>
            readiness.some((poll) => poll.at > killedAt && Object.values(poll.redis).some((r) => r !== 'ok')),
          30_000,
          'a process to report Redis unavailable',
        );
        await waitUntil(
          () => readiness.some((poll) => poll.at > killedAt && poll.allReady),
          60_000,
          `every process ready again (last seen: ${JSON.stringify(readiness.at(-1))})`,
        );
        readyAgainAt = readiness.find((poll) => poll.at > killedAt && poll.allReady)!.at;
        await readier;
        // A few more orders once everything is green: after the failover every write succeeds.
        await sleep(2_000);
      } finally {
        loading = false;
        await Promise.allSettled([watcher, readier, ...terminals]);
      }
      await Promise.all([watcher, readier, ...terminals]);
      const firstWrite = outcomes.find((o) => o.at > killedAt && o.status < 300);
      Object.assign(figures, {
        promotedAfter: seconds(promotedAt - killedAt),
        firstSuccessfulWriteAfter: firstWrite === undefined ? 'none' : seconds(firstWrite.at - killedAt),
        everyProcessReadyAfter: seconds(readyAgainAt - killedAt),
        everySubscriberReconnectedAfter: reconnectedAt === 0 ? 'not yet' : seconds(reconnectedAt - killedAt),
      });
    }, 120_000);

    afterAll(() => {
      process.stdout.write(`[redis-failover] ${JSON.stringify(figures)}\n`);
    });

    it('promotes the replica, and every process logs the change of master once', () => {
      expect(promotedAt).toBeGreaterThan(killedAt);
      const line = `Redis master changed from 127.0.0.1:${group.masterPort} to 127.0.0.1:${group.replicaPort}`;
      for (const name of NAMES) {
        expect({ name, logged: processes[name].output().split(line).length - 1 }).toEqual({
          name,
          logged: 1,
        });
      }
    });

    it('reports Redis unavailable on /readyz during the gap, and ready after', async () => {
      const gap = readiness.filter((poll) => poll.at > killedAt && poll.at < readyAgainAt);
      for (const name of NAMES) {
        expect({ name, unavailable: gap.some((poll) => poll.redis[name] !== 'ok') }).toEqual({
          name,
          unavailable: true,
        });
      }
      const now = await pollReadiness();
      expect(now.allReady).toBe(true);
      expect(Object.values(now.redis)).toEqual(NAMES.map(() => 'ok'));
    });

    it('keeps ticket writes going: each succeeds, at worst after a documented 503 with Retry-After', () => {
      const during = outcomes.filter((o) => o.at > killedAt);
      figures.writes = Object.fromEntries(
        [...new Set(during.map((o) => `${o.what} ${o.status}`))].map((k) => [
          k,
          during.filter((o) => `${o.what} ${o.status}` === k).length,
        ]),
      );
      expect(during.length).toBeGreaterThan(0);
      for (const o of during) {
        if (o.status < 300) continue;
        expect({ status: o.status, retryAfter: o.retryAfter }).toEqual({
          status: 503,
          retryAfter: expect.stringMatching(/^[1-9]\d*$/) as unknown,
        });
      }
      const afterFailover = outcomes.filter((o) => o.at > readyAgainAt);
      expect(afterFailover.length).toBeGreaterThan(0);
      for (const o of afterFailover) expect(o.status).toBeLessThan(300);
      expect(readied.size).toBe(FOLLOWED_TICKETS + created.length);
    });

    it('counts rate limits again: a client past its budget is refused with 429', async () => {
      await awayFromWindowEdge(60, 10);
      const ask = () =>
        fetch(gatewayUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.50' },
          body: JSON.stringify({ query: '{ __typename }' }),
        });
      for (let n = 1; n <= PUBLIC_QUOTA; n += 1) expect((await ask()).status).toBe(200);
      const refused = await ask();
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    });

    it('brings every subscriber to every ticket’s final state, and live events flow again', async () => {
      const statuses = async () =>
        new Map(
          (
            await database.query('select id, status from tickets.tickets where id = any($1::bigint[])', [
              followed.map((t) => t.id),
            ])
          ).map((row) => [Number(row.id), String(row.status).toUpperCase()]),
        );
      const final = await statuses();
      expect(new Set(final.values())).toEqual(new Set(['READY']));
      const outOfSync = () =>
        subscribers.filter(({ ticket, client }) => client.status() !== final.get(ticket));
      await waitUntil(
        () => outOfSync().length === 0,
        60_000,
        'every subscriber at its ticket’s final state',
      ).catch((error: Error) => {
        const lagging = outOfSync().map(({ ticket, client }) => ({
          ticket,
          final: final.get(ticket),
          seen: client.seen,
          closeCodes: client.closeCodes,
          connections: client.connections(),
        }));
        throw new Error(
          `${error.message}: ${lagging.length} behind, e.g. ${JSON.stringify(lagging.slice(0, 3))}`,
        );
      });
      // The gateway closed every socket when its pub/sub connection died; each came back and refetched.
      expect(subscribers.filter(({ client }) => client.connections() < 2)).toEqual([]);

      const collected = followed.slice(0, 10);
      for (const ticket of collected) {
        await write('collected', () => rest('POST', `/tickets/${ticket.id}/collected`));
      }
      const collectedIds = new Set(collected.map((t) => t.id));
      await waitUntil(
        () =>
          subscribers
            .filter(({ ticket }) => collectedIds.has(ticket))
            .every(
              ({ client }) => client.seen.at(-1) === 'event:COLLECTED' && client.status() === 'COLLECTED',
            ),
        30_000,
        'the live COLLECTED events',
      );
      expect(subscribers.filter(({ client }) => client.seen.includes('subscription:error'))).toEqual([]);
    }, 120_000);

    it('delivers every webhook and every ready SMS exactly once', async () => {
      await waitUntil(
        async () =>
          (
            await database.query(
              `select 1 from tickets.outbox where published_at is null
               union all select 1 from tickets.webhook_deliveries where status <> 'succeeded'
               union all select 1 from tickets.sms_messages where status <> 'sent'`,
            )
          ).length === 0,
        60_000,
        'every event published, every webhook and SMS delivered',
      );
      // A sweep later: nothing comes twice.
      await sleep(3_000);

      const expected = (
        await database.query(
          `select event_id from tickets.outbox where venue_id = $1 and event in ('ticket.created', 'ticket.ready')`,
          [branch.venueId],
        )
      ).map((row) => String(row.event_id));
      const received = receiver.received.map((hook) => hook.json.id);
      expect(receiver.received.filter((hook) => !hook.verdict.ok)).toEqual([]);
      expect(received.length).toBe(new Set(received).size);
      expect([...received].sort()).toEqual([...expected].sort());

      const texts = provider.requests.map((request) => String(request.headers['idempotency-key']));
      expect(texts.length).toBe(new Set(texts).size);
      expect(provider.requests.length).toBe(readied.size);
      const texted = new Set(provider.requests.map((request) => request.body.to));
      const readiedPhones = (
        await database.query(`select customer_phone from tickets.tickets where id = any($1::bigint[])`, [
          [...readied],
        ])
      ).map((row) => String(row.customer_phone));
      expect(texted).toEqual(new Set(readiedPhones));
      // The job queue itself works again, not only the sweep: once every connection had time to
      // land on the new master (each retries at most every 2 s), no enqueue fails.
      const settled = readyAgainAt + 5_000;
      const enqueueFailures = jsonLines<{ time: string; msg: string }>(processes.events.output()).filter(
        (entry) => entry.msg === 'could not enqueue; the sweep will' && Date.parse(entry.time) > settled,
      );
      expect(enqueueFailures).toEqual([]);
      expect(receiver.received.filter((hook) => hook.at > settled).length).toBeGreaterThan(0);
      figures.webhooks = received.length;
      figures.sms = provider.requests.length;
    });
  });
});
