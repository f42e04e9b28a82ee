import { createClient, type Client as LiveClient } from 'graphql-ws';
import WebSocket from 'ws';
import type { Config } from '../../common/config';
import { createTestDatabase, testConfig, type TestDatabase } from '../support/database';
import {
  GRAPHQL_UNAVAILABLE_BODY,
  REST_UNAVAILABLE_BODY,
  startLoadBalancer,
  type LoadBalancer,
} from '../support/load-balancer';
import {
  hookReceiver,
  newCvAccount,
  newTicketBranch,
  platformEnv,
  type TicketBranch,
} from '../support/platform';
import { freePorts, PROCESS_KINDS } from '../support/processes';
import { ReplicaSet } from '../support/replica-set';
import { SmsProvider } from '../support/sms-provider';
import { SOAKING, trials } from '../support/soak';
import { waitUntil } from '../support/wait';
import { WebhookReceiver } from '../support/webhook-receiver';

type KindName = keyof typeof PROCESS_KINDS;
const KINDS = Object.keys(PROCESS_KINDS) as KindName[];
/** The kinds HAProxy stands in front of; tickets-events is nobody's server, only a worker. */
const BALANCED: readonly KindName[] = ['tickets', 'cv', 'billing', 'identity', 'gateway', 'adapter'];

/**
 * Tickets made before the faults, each followed by live subscribers and moved on during them: each
 * an independent trial of a page that must end showing what Postgres holds. `npm run soak` follows
 * 250 (500 subscribers); `npm test` 100, which is still every page reconnecting through every fault.
 */
const FOLLOWED_TICKETS = trials({ test: 100, soak: 250 });
const SUBSCRIBERS_PER_TICKET = 2;
/** Clients calling side by side throughout, each waiting for its answer before its next call. */
const WORKERS = 6;
/** The ring interval is 30 seconds from the ready alert: a ring sooner would be a documented 429. */
const RING_AFTER_READY_MS = 31_000;

/**
 * How long a stopping replica reports not ready before closing: HAProxy takes it out after three
 * failed checks 200 ms apart, later while the machine is busy.
 */
const SHUTDOWN_DELAY_MS = 2_000;

/**
 * How long a webhook send waits for the receiver's answer (the platform's default). The receiver
 * shares this file's event loop with its hundreds of subscribers and the load: on a busy machine it can take
 * seconds to answer, and a send that times out is sent again, a repeat no kill explains.
 */
const WEBHOOK_TIMEOUT_MS = 10_000;

type Phase = 'setup' | 'kills' | 'rolling restart';

/** One answer a client got, as it saw it. */
interface Answer {
  phase: Phase;
  /** When the request was sent (ms since the epoch). */
  at: number;
  what: string;
  status: number;
  retryAfter: string | null;
  body: string;
  /** 1 for a first try, more for a documented retry of the same request. */
  attempt: number;
  /** The ticket a move was for. */
  ticketId?: number;
}

/** A ticket's state as the platform reports it to a subscriber and on a read. */
interface TicketState {
  status: string;
  ringCount: number;
  updatedAt: string;
}

interface Followed {
  id: number;
  token: string;
  stage: 'waiting' | 'ready' | 'rung' | 'collected';
  readyAt: number;
  phase: Exclude<Phase, 'setup'>;
  /** A move of it is in flight: the next waits for its answer, as one person at a till would. */
  busy: boolean;
}

/**
 * A customer's ticket page, as rest-adapter/public/assets/live.js and page.js behave: it reconnects
 * after every close and refetches the ticket after every (re)connect, then follows its events; an
 * older state never replaces a newer one (updatedAt).
 */
class PageSubscriber {
  state?: TicketState;
  connections = 0;
  errors: string[] = [];
  private readonly client: LiveClient;

  constructor(
    url: string,
    readonly ticketId: number,
    token: string,
  ) {
    const fields = 'status ringCount updatedAt';
    this.client = createClient({
      url,
      webSocketImpl: WebSocket,
      retryAttempts: Infinity,
      // live.js waits about a second (jittered) before its first retry.
      retryWait: () => new Promise((resolve) => setTimeout(resolve, 500 + Math.random() * 1_000)),
      shouldRetry: () => true,
      on: {
        connected: () => {
          this.connections += 1;
          this.client.subscribe<{ ticketByToken: TicketState | null }>(
            {
              query: `query ($t: String!) { ticketByToken(token: $t) { ${fields} } }`,
              variables: { t: token },
            },
            {
              next: (result) => {
                if (result.data?.ticketByToken) this.see(result.data.ticketByToken);
                else this.errors.push(`refetch: ${JSON.stringify(result.errors)}`);
              },
              error: (error) => this.errors.push(`refetch: ${String(error)}`),
              complete: () => undefined,
            },
          );
        },
      },
    });
    this.client.subscribe<{ ticketUpdated: TicketState }>(
      {
        query: `subscription ($t: String!) { ticketUpdated(token: $t) { ${fields} } }`,
        variables: { t: token },
      },
      {
        next: (result) => {
          if (result.data?.ticketUpdated) this.see(result.data.ticketUpdated);
          else this.errors.push(`event: ${JSON.stringify(result.errors)}`);
        },
        error: (error) => this.errors.push(`subscription: ${JSON.stringify(error)}`),
        complete: () => this.errors.push('subscription completed'),
      },
    );
  }

  private see(state: TicketState): void {
    if (this.state !== undefined && Date.parse(state.updatedAt) < Date.parse(this.state.updatedAt)) return;
    this.state = state;
  }

  dispose(): Promise<void> {
    return Promise.resolve(this.client.dispose());
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs a fault on every kind: under `npm test` all kinds side by side, as when a machine holding
 * replica 0 of each dies or a release rolls every deployment at once; under `npm run soak` one kind
 * after another, each alone under the load for longer.
 */
async function onEveryKind(fault: (kind: KindName) => Promise<void>): Promise<void> {
  if (SOAKING) for (const kind of KINDS) await fault(kind);
  else await Promise.all(KINDS.map(fault));
}

/** Counts by a key: `{ "REST create 201": 412, … }`. */
function tally<T>(items: readonly T[], key: (item: T) => string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) counts[key(item)] = (counts[key(item)] ?? 0) + 1;
  return counts;
}

function report(phase: string, figures: Record<string, unknown>): void {
  process.stdout.write(`[replicas] ${phase}: ${JSON.stringify(figures)}\n`);
}

describe('two replicas of every process behind HAProxy', () => {
  let database: TestDatabase;
  let config: Config;
  let balancer: LoadBalancer;
  const sets = {} as Record<KindName, ReplicaSet>;
  const receiver = new WebhookReceiver();
  const provider = new SmsProvider();
  let branch: TicketBranch;
  let cvKey: string;
  let restUrl: string;
  let gatewayUrl: string;
  const answers: Answer[] = [];
  const followed: Followed[] = [];
  const subscribers: PageSubscriber[] = [];
  /** Every create a client made, by its Idempotency-Key: the ticket its 201 named, once it had one. */
  const creates = new Map<string, number | undefined>();
  /** When a tickets-events replica was SIGKILLed: the only moments a send may go unrecorded. */
  const eventKills: number[] = [];
  let phase: Phase = 'setup';

  beforeAll(async () => {
    database = await createTestDatabase();
    const smsUrl = await provider.start();
    const ports = Object.fromEntries(
      await Promise.all(KINDS.map(async (kind) => [kind, await freePorts(2)] as const)),
    ) as Record<KindName, number[]>;
    balancer = await startLoadBalancer(
      BALANCED.map((kind) => ({
        name: kind,
        servers: ports[kind],
        errorBody: kind === 'adapter' ? REST_UNAVAILABLE_BODY : GRAPHQL_UNAVAILABLE_BODY,
        retryPostsWithIdempotencyKey: kind === 'adapter',
      })),
    );
    const through = (kind: KindName) => `http://127.0.0.1:${balancer.ports[kind]}/graphql`;
    restUrl = `http://127.0.0.1:${balancer.ports.adapter}/api/v1`;
    gatewayUrl = through('gateway');
    config = testConfig(database, {
      TICKETS_SUBGRAPH_URL: through('tickets'),
      CV_SUBGRAPH_URL: through('cv'),
      BILLING_SUBGRAPH_URL: through('billing'),
      IDENTITY_SUBGRAPH_URL: through('identity'),
      GATEWAY_URL: gatewayUrl,
      PUBLIC_BASE_URL: 'https://q.example.test',
      WEBHOOK_ALLOW_INSECURE: 'true',
    });
    const env = platformEnv(config, {
      SHUTDOWN_DELAY_MS: String(SHUTDOWN_DELAY_MS),
      SHUTDOWN_TIMEOUT_MS: '10000',
      // The limits are not what this test is about; every client here comes from 127.0.0.1.
      TICKETS_RATE_LIMIT: '1000000',
      CV_RATE_LIMIT: '1000000',
      PUBLIC_RATE_LIMIT: '1000000',
      PUBLIC_WRITE_RATE_LIMIT: '1000000',
      LIVE_MAX_SOCKETS_PER_ADDRESS: '100000',
      WEBHOOK_RETRY_SCHEDULE: '500ms',
      WEBHOOK_TIMEOUT_MS: String(WEBHOOK_TIMEOUT_MS),
      SMS_DRIVER: 'http',
      SMS_HTTP_URL: smsUrl,
      SMS_RETRY_SCHEDULE: '500ms',
      RENDER_POOL_SIZE: '1',
    });
    for (const kind of KINDS) sets[kind] = new ReplicaSet(PROCESS_KINDS[kind], ports[kind], env);
    // Two cores: the subgraphs first, then the doors that compose them.
    for (const group of [
      ['tickets', 'billing', 'identity'],
      ['cv', 'events'],
      ['gateway'],
      ['adapter'],
    ] as const) {
      await Promise.all(group.map((kind) => sets[kind].startAll()));
    }
    await Promise.all(BALANCED.flatMap((kind) => [0, 1].map((i) => balancer.waitForServer(kind, i, 'UP'))));
    branch = await newTicketBranch(config, { sms: 'on' });
    cvKey = (await newCvAccount(config)).key;
    await hookReceiver(config, branch.venueId, receiver, 'ticket.created,ticket.ready,ticket.collected');
  }, 240_000);

  afterAll(async () => {
    if (process.env.REPLICAS_PRINT_LOGS === '1') {
      for (const kind of KINDS) {
        for (const i of [0, 1]) process.stdout.write(`==== ${kind}-${i}\n${sets[kind]?.output(i)}\n`);
      }
      process.stdout.write(`==== haproxy\n${balancer?.output()}\n`);
    }
    await Promise.all(subscribers.map((s) => s.dispose()));
    await Promise.all(KINDS.map((kind) => sets[kind]?.killAll()));
    await balancer?.stop();
    await receiver.stop();
    await provider.stop();
    await database?.drop();
  });

  /**
   * One request as a documented client sends it: a 503 with Retry-After is retried (the same
   * request, the same Idempotency-Key) after the wait it names, up to 10 times; any other answer is
   * final, and so is a connection closed with no answer (status 0), which no client should see.
   * Every answer is kept.
   */
  async function call(
    what: string,
    url: string,
    init: RequestInit,
    ticketId?: number,
  ): Promise<{ status: number; body: string }> {
    for (let attempt = 1; ; attempt++) {
      let status: number;
      let retryAfter: string | null = null;
      let body: string;
      const at = Date.now();
      try {
        const response = await fetch(url, init);
        status = response.status;
        retryAfter = response.headers.get('retry-after');
        body = await response.text();
      } catch (error) {
        status = 0;
        body = String((error as Error).cause ?? error);
      }
      answers.push({ phase, what, status, retryAfter, body, attempt, at, ticketId });
      if (attempt >= 10) return { status, body };
      if (status === 503 && retryAfter !== null) await sleep(Number(retryAfter) * 1000);
      else return { status, body };
    }
  }

  const rest = (method: string, body?: unknown, headers: Record<string, string> = {}) => ({
    method,
    headers: {
      authorization: `Bearer ${branch.key}`,
      accept: 'application/json',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

  let createSeq = 0;
  /** A POS's create: its own Idempotency-Key, kept on every retry; the key is also the note. */
  async function create(): Promise<{ id: number; token: string } | undefined> {
    createSeq += 1;
    const key = `replicas-${process.pid}-${createSeq}`;
    creates.set(key, undefined);
    const phone = `0770 ${String(1_000_000 + createSeq).slice(1, 4)} ${String(createSeq % 10_000).padStart(4, '0')}`;
    const { status, body } = await call(
      'REST create',
      `${restUrl}/tickets`,
      rest('POST', { customer_phone: phone, note: key }, { 'idempotency-key': key }),
    );
    if (status !== 201) return undefined;
    const ticket = JSON.parse(body) as { id: number; token: string };
    creates.set(key, ticket.id);
    return ticket;
  }

  const move = (ticket: Followed, action: 'ready' | 'ring' | 'collected') =>
    call(`REST ${action}`, `${restUrl}/tickets/${ticket.id}/${action}`, rest('POST'), ticket.id);

  const graphql = (what: string, query: string) =>
    call(what, gatewayUrl, {
      method: 'POST',
      headers: { authorization: `Bearer ${branch.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query }),
    });

  /** Moves one followed ticket of the phase a step on, when one is due; false when none is. */
  async function advance(): Promise<boolean> {
    const now = Date.now();
    const due = followed.find(
      (t) =>
        t.phase === phase &&
        !t.busy &&
        (t.stage === 'waiting' ||
          (t.stage === 'ready' && now - t.readyAt > RING_AFTER_READY_MS) ||
          t.stage === 'rung'),
    );
    if (due === undefined) return false;
    const stage = due.stage;
    due.busy = true;
    try {
      await move(due, stage === 'waiting' ? 'ready' : stage === 'ready' ? 'ring' : 'collected');
    } finally {
      due.busy = false;
    }
    due.stage = stage === 'waiting' ? 'ready' : stage === 'ready' ? 'rung' : 'collected';
    if (stage === 'waiting') due.readyAt = Date.now();
    return true;
  }

  /** What the workers do in turn: creates, moves, and reads that need billing, identity and cv. */
  const STEPS: (() => Promise<unknown>)[] = [
    create,
    advance,
    () => graphql('GraphQL plans', '{ plans(product: TICKETS) { key } }'),
    advance,
    () => graphql('GraphQL viewer', '{ viewer { id } }'),
    create,
    advance,
    () => call('REST cvs', `${restUrl}/cvs`, { headers: { 'x-api-key': cvKey, accept: 'application/json' } }),
  ];

  /** Runs the workers until `during` resolves, then finishes the phase's moves. */
  async function underLoad(during: () => Promise<void>): Promise<void> {
    let running = true;
    let step = 0;
    const workers = Array.from({ length: WORKERS }, async () => {
      while (running) {
        await STEPS[step++ % STEPS.length]!();
        await sleep(20);
      }
    });
    try {
      await during();
    } finally {
      running = false;
      await Promise.all(workers);
    }
    // What the phase has not moved yet is moved now, the ring waiting out its interval.
    while (followed.some((t) => t.phase === phase && t.stage !== 'collected')) {
      if (!(await advance())) await sleep(500);
    }
  }

  const rows = <T>(sql: string, params: unknown[] = []) => database.query(sql, params) as Promise<T[]>;

  /** Every event written is delivered, every text sent, every subscriber shows what Postgres holds. */
  async function settle(): Promise<void> {
    const pending = () =>
      rows<{ what: string; status: string; n: string }>(
        `select 'outbox' as what, 'unrelayed' as status, count(*) as n from tickets.outbox where relayed_at is null
         union all select 'webhook', status, count(*) from tickets.webhook_deliveries where status <> 'succeeded' group by status
         union all select 'sms', status, count(*) from tickets.sms_messages where status not in ('sent', 'skipped') group by status`,
      ).then((found) => found.filter((row) => Number(row.n) > 0));
    await waitUntil(
      async () => (await pending()).length === 0,
      90_000,
      'every event relayed, webhook delivered and text sent',
    ).catch(async (error: Error) => {
      throw new Error(`${error.message}; still pending: ${JSON.stringify(await pending())}`);
    });
    const truth = await finalStates();
    await waitForSubscribers((s) => sameState(s.state, truth.get(s.ticketId)), 'its ticket as stored', truth);
  }

  /** Waits until every subscriber shows what `shows` wants; a timeout says who does not, and why. */
  async function waitForSubscribers(
    shows: (s: PageSubscriber) => boolean,
    what: string,
    truth?: Map<number, TicketState>,
  ): Promise<void> {
    await waitUntil(() => subscribers.every(shows), 60_000, `every subscriber showing ${what}`).catch(
      (error: Error) => {
        const behind = subscribers.filter((s) => !shows(s));
        throw new Error(
          `${error.message}: ${behind.length} of ${subscribers.length} do not; for instance ${JSON.stringify(
            behind.slice(0, 5).map((s) => ({
              ticket: s.ticketId,
              seen: s.state,
              stored: truth?.get(s.ticketId),
              connections: s.connections,
              errors: s.errors.slice(-3),
            })),
          )}; HAProxy's last lines:\n${balancer.output().split('\n').slice(-20).join('\n')}`,
        );
      },
    );
  }

  async function finalStates(): Promise<Map<number, TicketState>> {
    const stored = await rows<{ id: string; status: string; ring_count: number }>(
      'select id, status, ring_count from tickets.tickets where id = any($1::bigint[])',
      [followed.map((t) => t.id)],
    );
    return new Map(
      stored.map((row) => [
        Number(row.id),
        { status: row.status.toUpperCase(), ringCount: row.ring_count, updatedAt: '' },
      ]),
    );
  }

  const sameState = (seen: TicketState | undefined, stored: TicketState | undefined) =>
    seen !== undefined &&
    stored !== undefined &&
    seen.status === stored.status &&
    seen.ringCount === stored.ringCount;

  /**
   * A move retried after a 503 that finds the ticket where it asked: the first attempt went
   * through before the process that made it died (docs/API-DECISIONS.md, "A move retried after a
   * 503"). A ring so retried is a 429, allowed anyway.
   */
  const firstAttemptWentThrough = (a: Answer, stored: Map<number, TicketState>) => {
    const status = a.ticketId === undefined ? undefined : stored.get(a.ticketId)?.status;
    if (a.attempt === 1 || a.status !== 422 || status === undefined) return false;
    return a.what === 'REST collected'
      ? status === 'COLLECTED'
      : a.what === 'REST ready' && status !== 'WAITING';
  };

  /** Webhook sends the receiver got more than once, with whether a kill explains each. */
  async function duplicateWebhooks(): Promise<
    { eventId: string; received: number; recorded: number; killedInFlight: boolean }[]
  > {
    const byId = new Map<string, number[]>();
    for (const hook of receiver.received)
      byId.set(hook.json.id, [...(byId.get(hook.json.id) ?? []), hook.at]);
    const repeated = [...byId].filter(([, at]) => at.length > 1);
    const recorded = await rows<{ event_id: string; answered: string }>(
      `select d.event_id, count(a.*) filter (where a.status_code is not null) as answered
         from tickets.webhook_deliveries d left join tickets.webhook_attempts a on a.delivery_id = d.id
        where d.event_id = any($1::uuid[]) group by d.event_id`,
      [repeated.map(([id]) => id)],
    );
    return repeated.map(([eventId, at]) => ({
      eventId,
      received: at.length,
      recorded: Number(recorded.find((r) => r.event_id === eventId)?.answered ?? 0),
      // The first send reached the receiver, then the worker that made it was killed before it
      // could record it (within the attempt's timeout).
      killedInFlight: eventKills.some(
        (killedAt) => at[0]! <= killedAt && killedAt - at[0]! < WEBHOOK_TIMEOUT_MS,
      ),
    }));
  }

  /** Texts the provider got more than once for one message (its Idempotency-Key). */
  function duplicateTexts(): { key: string; received: number; killedInFlight: boolean }[] {
    const byKey = new Map<string, number[]>();
    for (const request of provider.requests) {
      const key = String(request.headers['idempotency-key']);
      byKey.set(key, [...(byKey.get(key) ?? []), request.at]);
    }
    return [...byKey]
      .filter(([, at]) => at.length > 1)
      .map(([key, at]) => ({
        key,
        received: at.length,
        killedInFlight: eventKills.some((killedAt) => at[0]! <= killedAt && killedAt - at[0]! < 3_000),
      }));
  }

  /** The figures of a phase, printed for the closing note, and the checks every phase ends with. */
  async function endPhase(started: number, sentHooksBefore: number, smsBefore: number): Promise<void> {
    await settle();
    const mine = answers.filter((a) => a.phase === phase);
    const truth = await finalStates();
    const [delivered] = await rows<{ n: string }>(
      `select count(*) as n from tickets.webhook_deliveries where status = 'succeeded'`,
    );
    report(phase, {
      seconds: Math.round((Date.now() - started) / 1000),
      requests: mine.length,
      retries: mine.filter((a) => a.attempt > 1).length,
      with503: mine.filter((a) => a.status === 503).length,
      closedUnanswered: mine.filter((a) => a.status === 0).length,
      otherErrors: mine.filter(
        (a) => a.status !== 0 && a.status !== 503 && (a.status < 200 || a.status >= 300),
      ).length,
      answers: tally(mine, (a) => `${a.what} ${a.status}`),
      webhookDeliveriesSucceededSoFar: Number(delivered?.n),
      webhooksReceived: receiver.received.length - sentHooksBefore,
      webhookEventIdsReceivedSoFar: new Set(receiver.received.map((h) => h.json.id)).size,
      smsSent: provider.requests.length - smsBefore,
      subscribers: subscribers.length,
      subscribersWithFinalState: subscribers.filter((s) => sameState(s.state, truth.get(s.ticketId))).length,
      subscriberReconnects: subscribers.reduce((n, s) => n + s.connections - 1, 0),
    });
  }

  /** No ticket a client was told about is missing, and no key made two. */
  async function expectNoTicketLost(): Promise<void> {
    const keys = [...creates.keys()];
    const stored = await rows<{ note: string; ids: string[] }>(
      `select note, array_agg(id::text) as ids from tickets.tickets where note = any($1::text[]) group by note`,
      [keys],
    );
    const byKey = new Map(stored.map((row) => [row.note, row.ids.map(Number)]));
    for (const [key, id] of creates) {
      const ids = byKey.get(key) ?? [];
      // A create that ended without a 201 (none should) may have stored at most one ticket.
      expect({ key, tickets: ids.length <= 1, created: id === undefined || ids[0] === id }).toEqual({
        key,
        tickets: true,
        created: true,
      });
    }
    expect([...creates.values()].filter((id) => id === undefined)).toEqual([]);
  }

  it(`follows ${FOLLOWED_TICKETS} tickets with ${FOLLOWED_TICKETS * SUBSCRIBERS_PER_TICKET} live subscribers through HAProxy before any fault`, async () => {
    for (let i = 0; i < FOLLOWED_TICKETS; i++) {
      const ticket = await create();
      if (ticket === undefined) throw new Error(`create ${i} failed: ${JSON.stringify(answers.at(-1))}`);
      followed.push({
        ...ticket,
        stage: 'waiting',
        readyAt: 0,
        busy: false,
        phase: i < FOLLOWED_TICKETS / 2 ? 'kills' : 'rolling restart',
      });
    }
    const wsUrl = gatewayUrl.replace(/^http/, 'ws');
    // Phones open their pages over a while, not all in one instant: 50 at a time.
    for (const [i, ticket] of followed.entries()) {
      for (let n = 0; n < SUBSCRIBERS_PER_TICKET; n++) {
        subscribers.push(new PageSubscriber(wsUrl, ticket.id, ticket.token));
      }
      if (i % 25 === 24) await sleep(500);
    }
    await waitForSubscribers((s) => s.state?.status === 'WAITING', 'its waiting ticket');
    expect(answers.every((a) => a.status === 201)).toBe(true);
  }, 120_000);

  it('loses nothing when one replica of each kind is SIGKILLed under load: the survivor serves, clients see only 503 with Retry-After', async () => {
    phase = 'kills';
    const started = Date.now();
    const hooksBefore = receiver.received.length;
    const smsBefore = provider.requests.length;
    const downFor: Record<string, string> = {};
    const killedAtByKind: Record<string, number> = {};
    await underLoad(async () => {
      await sleep(2_000);
      await onEveryKind(async (kind) => {
        await sets[kind].kill(0);
        const killedAt = Date.now();
        killedAtByKind[kind] = killedAt;
        if (kind === 'events') eventKills.push(killedAt);
        // The survivor alone carries the load a while.
        await sleep(3_000);
        await sets[kind].start(0);
        if (BALANCED.includes(kind)) await balancer.waitForServer(kind, 0, 'UP');
        downFor[kind] = `${((Date.now() - killedAt) / 1000).toFixed(1)} s`;
        await sleep(1_000);
      });
    });
    await endPhase(started, hooksBefore, smsBefore);
    report('kills: replica 0 out of service for', downFor);

    const mine = answers.filter((a) => a.phase === 'kills');
    const stored = await finalStates();
    const wrong = mine.filter(
      (a) =>
        !(a.status >= 200 && a.status < 300) &&
        !(a.status === 503 && /^[1-9]\d*$/.test(a.retryAfter ?? '')) &&
        !(a.what === 'REST ring' && a.status === 429) &&
        !firstAttemptWentThrough(a, stored),
    );
    expect(
      wrong.map((a) => ({
        what: a.what,
        status: a.status,
        body: a.body.slice(0, 300),
        sentAfterKill: Object.entries(killedAtByKind).map(([kind, at]) => `${kind} ${a.at - at} ms`),
      })),
    ).toEqual([]);
    // Every 503 is the platform's or HAProxy's documented JSON.
    for (const a of mine.filter((x) => x.status === 503)) {
      const body = JSON.parse(a.body) as { message?: string; errors?: { extensions?: { code?: string } }[] };
      if (a.what.startsWith('REST')) expect(typeof body.message).toBe('string');
      else expect(body.errors?.map((e) => e.extensions?.code)).toContain('UNAVAILABLE');
    }
    // Every request ended in a success at last (or a documented ring 429).
    const unfinished = mine.filter((a) => a.status === 503 && a.attempt >= 10);
    expect(unfinished).toEqual([]);
    await expectNoTicketLost();
    const hooks = await duplicateWebhooks();
    expect(hooks.filter((d) => !(d.killedInFlight && d.recorded < d.received))).toEqual([]);
    expect(duplicateTexts().filter((d) => !d.killedInFlight)).toEqual([]);
    report('kills: sends repeated because a killed worker never recorded them', {
      movesWhoseRetryFoundTheFirstApplied: mine.filter((a) => firstAttemptWentThrough(a, stored)).length,
      webhooks: hooks.length,
      texts: duplicateTexts().length,
    });
  }, 240_000);

  it('answers every request during a rolling restart of every kind: no error status at all', async () => {
    phase = 'rolling restart';
    const started = Date.now();
    const hooksBefore = receiver.received.length;
    const smsBefore = provider.requests.length;
    const duplicatesBefore = (await duplicateWebhooks()).length;
    const textsBefore = duplicateTexts().length;
    const pids = Object.fromEntries(KINDS.map((kind) => [kind, [sets[kind].pid(0), sets[kind].pid(1)]]));
    /** When each replica was told to stop, was gone, and was back in service: a failure names where it fell. */
    const restarts: { replica: string; stopAt: number; goneAt: number; backAt: number }[] = [];
    await underLoad(async () => {
      await sleep(2_000);
      await onEveryKind(async (kind) => {
        for (const i of [0, 1]) {
          const stopAt = Date.now();
          await sets[kind].stop(i);
          const goneAt = Date.now();
          await sets[kind].start(i);
          if (BALANCED.includes(kind)) await balancer.waitForServer(kind, i, 'UP');
          restarts.push({ replica: `${kind}-${i}`, stopAt, goneAt, backAt: Date.now() });
        }
      });
    });
    await endPhase(started, hooksBefore, smsBefore);

    for (const kind of KINDS) {
      for (const i of [0, 1]) {
        expect(sets[kind].pid(i)).not.toBe(pids[kind]![i]);
        expect(sets[kind].output(i)).toContain(`exited 0`);
      }
    }
    const mine = answers.filter((a) => a.phase === 'rolling restart');
    expect(mine.length).toBeGreaterThan(0);
    const errors = mine.filter(
      (a) => !(a.status >= 200 && a.status < 300) && !(a.what === 'REST ring' && a.status === 429),
    );
    expect({
      errors: errors.map((a) => ({
        what: a.what,
        status: a.status,
        retryAfter: a.retryAfter,
        body: a.body.slice(0, 300),
        // The restarts the request was sent during or just after, in ms from SIGTERM, from the exit
        // and from HAProxy seeing the new process up.
        during: restarts
          .filter((r) => a.at >= r.stopAt - 1_000 && a.at <= r.backAt + 1_000)
          .map(
            (r) =>
              `${r.replica} +${a.at - r.stopAt} ms from stop, ${a.at - r.goneAt} ms from exit, ${a.at - r.backAt} ms from back`,
          ),
      })),
      // What HAProxy saw around them: which server it took out or found dead, and what it answered itself.
      haproxy:
        errors.length === 0
          ? []
          : balancer
              .linesBetween(
                Math.min(...errors.map((a) => a.at)) - 5_000,
                Math.max(...errors.map((a) => a.at)) + 5_000,
              )
              .map((l) => `+${l.at - started} ms ${l.line.slice(0, 300)}`),
    }).toEqual({ errors: [], haproxy: [] });
    await expectNoTicketLost();
    // Nothing was killed: no send may be repeated.
    expect((await duplicateWebhooks()).length).toBe(duplicatesBefore);
    expect(duplicateTexts().length).toBe(textsBefore);
    for (const s of subscribers) expect(s.errors).toEqual([]);
  }, 300_000);
});
