import { randomBytes } from 'node:crypto';
import { loadConfig, type Config } from '../../common/config';
import { EXPORTS_PER_MINUTE } from '../../contracts/cv/export.limits';
import { unseal } from '../../subgraphs/tickets/events/secret-box';
import { createTestDatabase, testConfig, type TestDatabase } from '../support/database';
import {
  GRAPHQL_UNAVAILABLE_BODY,
  REST_UNAVAILABLE_BODY,
  startLoadBalancer,
  type LoadBalancer,
} from '../support/load-balancer';
import {
  admin,
  newCvAccount,
  newTicketBranch,
  platformEnv,
  platformTemplateId,
  type CvAccount,
  type TicketBranch,
} from '../support/platform';
import { freePorts, PROCESS_KINDS, startProcess, type PlatformProcess } from '../support/processes';
import { waitUntil } from '../support/wait';
import { WebhookReceiver } from '../support/webhook-receiver';

/**
 * The processes this file rolls, one replica each at rest and two during its own roll: each has two
 * ports (slots), the one serving and the idle one a roll starts the new replica on. The cv subgraph
 * serves export links in HTML, which need no Chromium; identity takes no part.
 */
const { cv, billing, tickets, events, gateway, adapter } = PROCESS_KINDS;
// tickets-events takes no requests, so nothing balances it: its roll only alternates ports.
const PROCESSES = {
  cv: { ...cv, balanced: true },
  billing: { ...billing, balanced: true },
  tickets: { ...tickets, balanced: true },
  events: { ...events, balanced: false },
  gateway: { ...gateway, balanced: true },
  adapter: { ...adapter, balanced: true },
} as const;

type ProcessName = keyof typeof PROCESSES;

/** Which of a process's two ports a replica listens on. */
type Slot = 0 | 1;

/**
 * How long a stopping replica reports not ready before closing: HAProxy takes it out after three
 * failed checks 200 ms apart (later while the machine is busy), so no request reaches a closed port.
 */
const SHUTDOWN_DELAY_MS = 2_000;

/** The values of one rotation: the old and the new of each secret. */
const OLD_SECRET = randomBytes(32).toString('base64url');
const NEW_SECRET = randomBytes(32).toString('base64url');
const OLD_KEY = randomBytes(32).toString('base64');
const NEW_KEY = randomBytes(32).toString('base64');

/** docs/OPERATIONS.md "Rotating secrets": what every process runs with at rest and after each roll. */
const PHASES = {
  before: { INTERNAL_SECRET: OLD_SECRET, WEBHOOK_SECRET_KEY: OLD_KEY },
  'roll 1: the new values accepted': {
    INTERNAL_SECRET: OLD_SECRET,
    INTERNAL_SECRET_SECONDARY: NEW_SECRET,
    WEBHOOK_SECRET_KEY: OLD_KEY,
    WEBHOOK_SECRET_KEY_SECONDARY: NEW_KEY,
  },
  'roll 2: the new values primary': {
    INTERNAL_SECRET: NEW_SECRET,
    INTERNAL_SECRET_SECONDARY: OLD_SECRET,
    WEBHOOK_SECRET_KEY: NEW_KEY,
    WEBHOOK_SECRET_KEY_SECONDARY: OLD_KEY,
  },
  'roll 3: the old values dropped': { INTERNAL_SECRET: NEW_SECRET, WEBHOOK_SECRET_KEY: NEW_KEY },
} as const;

type Phase = keyof typeof PHASES;

/** One answer a client got while the processes rolled. */
interface Outcome {
  what: string;
  status: number;
  body: string;
}

/** Every answer that is not what the call exists to get, as the client would log it. */
const failures = (outcomes: Outcome[]) =>
  outcomes.filter((o) => {
    if (o.status !== 200 && o.status !== 201) return true;
    return (
      o.what.startsWith('GraphQL') && (JSON.parse(o.body) as { errors?: unknown[] }).errors !== undefined
    );
  });

describe('rotating INTERNAL_SECRET and WEBHOOK_SECRET_KEY across a rolling restart', () => {
  let database: TestDatabase;
  let balancer: LoadBalancer;
  let base: Config;
  let branch: TicketBranch;
  /** CV accounts, each with one CV, taken in turn to stay under EXPORTS_PER_MINUTE each. */
  const cvs: { account: CvAccount; cvId: string }[] = [];
  /** Each process's two ports; HAProxy has both as servers, the idle one DOWN by its health check. */
  const slots = {} as Record<ProcessName, readonly [number, number]>;
  const running = {} as Record<ProcessName, { process: PlatformProcess; slot: Slot }>;
  /** One receiver per endpoint, each added under a different phase (so sealed under a different key). */
  const receivers: { receiver: WebhookReceiver; endpointId: number; since: number; addedIn: Phase }[] = [];
  const outcomes: Outcome[] = [];
  /** Tickets readied, with when the ready was asked: each must reach every endpoint that existed then. */
  const readied: { id: number; at: number }[] = [];
  let loadRunning = true;
  let load: Promise<void[]> | undefined;

  /** Where clients and the other processes reach `service`: its HAProxy frontend. */
  const url = (service: ProcessName, path = '/graphql') =>
    `http://127.0.0.1:${balancer.ports[service]}${path}`;

  const envOf = (phase: Phase, name: ProcessName, port: number): NodeJS.ProcessEnv =>
    platformEnv(base, {
      ...PHASES[phase],
      [PROCESSES[name].portVariable]: String(port),
      TICKETS_SUBGRAPH_URL: url('tickets'),
      BILLING_SUBGRAPH_URL: url('billing'),
      GATEWAY_URL: url('gateway'),
      CV_SUBGRAPH_URL: url('cv'),
      // Nothing here signs a person in; the identity subgraph's URL only has to be valid.
      IDENTITY_SUBGRAPH_URL: 'http://127.0.0.1:9/graphql',
      WEBHOOK_ALLOW_INSECURE: 'true',
      WEBHOOK_RETRY_SCHEDULE: '500ms',
      TICKETS_RATE_LIMIT: '1000000',
      CV_RATE_LIMIT: '1000000',
      PUBLIC_RATE_LIMIT: '1000000',
      PUBLIC_WRITE_RATE_LIMIT: '1000000',
      SHUTDOWN_DELAY_MS: String(SHUTDOWN_DELAY_MS),
      SHUTDOWN_TIMEOUT_MS: '5000',
    });

  /** The admin CLI as an operator runs it with the environment of `phase`. */
  const adminConfig = (phase: Phase): Config =>
    loadConfig({ ...envOf(phase, 'tickets', 0), LOG_LEVEL: 'silent' });

  const start = async (name: ProcessName, phase: Phase, slot: Slot) => {
    const port = slots[name][slot];
    return startProcess(PROCESSES[name].script, envOf(phase, name, port), `http://127.0.0.1:${port}/readyz`);
  };

  /** Old replicas still draining: each is gone, and HAProxy has taken it out, once its promise resolves. */
  const draining: Promise<void>[] = [];

  /**
   * A surge roll of one process (maxSurge 1, maxUnavailable 0): the new replica starts on the idle
   * slot and serves once HAProxy sees it up; the old one, stopped, reports not ready for
   * SHUTDOWN_DELAY_MS, so HAProxy takes it out before it closes. The next process rolls while it
   * drains, as the processes of a deployment roll side by side; `drained` waits for every one.
   */
  async function roll(name: ProcessName, phase: Phase): Promise<void> {
    const old = running[name];
    const slot: Slot = old.slot === 0 ? 1 : 0;
    const next = await start(name, phase, slot);
    if (PROCESSES[name].balanced) await balancer.waitForServer(name, slot, 'UP');
    running[name] = { process: next, slot };
    const drain = (async () => {
      await old.process.stop();
      if (PROCESSES[name].balanced) await balancer.waitForServer(name, old.slot, 'DOWN');
    })();
    // `drained` reports a failure; until then it is no unhandled rejection.
    drain.catch(() => undefined);
    draining.push(drain);
  }

  /** Every old replica of the phase gone: the next phase may rely on nothing older than this one. */
  async function drained(): Promise<void> {
    await Promise.all(draining.splice(0));
  }

  async function addReceiver(phase: Phase): Promise<void> {
    const receiver = new WebhookReceiver();
    const hook = await admin<{ id: number; secret: string }>(
      adminConfig(phase),
      'webhook',
      'create',
      '--venue',
      String(branch.venueId),
      '--url',
      await receiver.start(),
      '--events',
      'ticket.ready',
    );
    receiver.secret = hook.secret;
    receivers.push({ receiver, endpointId: hook.id, since: Date.now(), addedIn: phase });
  }

  /** One client call; `key` is the branch's key unless the call carries its own credential (or none). */
  const call = async (
    what: string,
    url: string,
    init: RequestInit = {},
    key: 'branch' | 'own' = 'branch',
  ): Promise<Outcome> => {
    const response = await fetch(url, {
      ...init,
      headers: {
        ...(key === 'branch' ? { authorization: `Bearer ${branch.key}` } : {}),
        'content-type': 'application/json',
        ...init.headers,
      },
    });
    const outcome = { what, status: response.status, body: await response.text() };
    outcomes.push(outcome);
    return outcome;
  };

  /** A POS's day: create, ready (a webhook), read back; and a frontend's list over GraphQL. */
  async function posWorker(worker: number): Promise<void> {
    const rest = url('adapter', '/api/v1');
    for (let n = 0; loadRunning; n += 1) {
      const created = await call('REST create', `${rest}/tickets`, {
        method: 'POST',
        headers: { 'idempotency-key': `rotation-${worker}-${n}-${Date.now()}` },
        body: JSON.stringify({ external_id: `order-${worker}-${n}-${Date.now()}` }),
      });
      if (created.status === 201) {
        const id = (JSON.parse(created.body) as { id: number }).id;
        const at = Date.now();
        if ((await call('REST ready', `${rest}/tickets/${id}/ready`, { method: 'POST' })).status === 200) {
          readied.push({ id, at });
        }
        await call('REST read', `${rest}/tickets/${id}`);
      }
      await call('GraphQL list', url('gateway'), {
        method: 'POST',
        body: JSON.stringify({ query: '{ tickets(perPage: 5) { items { id status } total } }' }),
      });
      await new Promise((resolve) => setTimeout(resolve, 30));
    }
  }

  /**
   * A web app's download: a link made by one cv replica (signed with its primary secret) and
   * followed through the adapter, which any replica may check, mid-roll included.
   */
  async function cvWorker(): Promise<void> {
    for (let n = 0; loadRunning; n += 1) {
      const { account, cvId } = cvs[n % cvs.length]!;
      const made = await call(
        'GraphQL cvExportUrl',
        url('gateway'),
        {
          method: 'POST',
          headers: { 'x-api-key': account.key },
          body: JSON.stringify({
            query: 'query ($id: ID!) { cvExportUrl(id: $id, format: HTML) { url } }',
            variables: { id: cvId },
          }),
        },
        'own',
      );
      const exportUrl = (JSON.parse(made.body) as { data?: { cvExportUrl?: { url: string } } }).data
        ?.cvExportUrl?.url;
      if (exportUrl !== undefined) {
        const link = new URL(exportUrl);
        await call('REST CV link', `${url('adapter', link.pathname)}${link.search}`, {}, 'own');
      }
      // Under the per-account export limit whatever the window: each account about 8 a minute.
      await new Promise((resolve) => setTimeout(resolve, 60_000 / (EXPORTS_PER_MINUTE - 2) / cvs.length));
    }
  }

  /** Every ready asked after an endpoint existed reached it, signed with the secret it was given. */
  async function expectEveryWebhookSigned(): Promise<void> {
    const expected = [...readied];
    for (const { receiver, endpointId, since, addedIn } of receivers) {
      const due = expected.filter((r) => r.at > since).map((r) => r.id);
      const missing = () => {
        const got = new Set(receiver.received.map((h) => Number(h.json.data.ticket.id)));
        return due.filter((id) => !got.has(id));
      };
      await waitUntil(
        () => missing().length === 0,
        90_000,
        `webhooks to the endpoint added ${addedIn}`,
      ).catch(async (error: Error) => {
        // Where the missing ones are, for reading a failure: never relayed, or stuck in delivery.
        const rows = await database.query(
          `select d.status, d.attempts, d.locked_until, d.next_attempt_at, count(*)::int as n
               from tickets.webhook_deliveries d
              where d.endpoint_id = $1 and (d.body::jsonb #>> '{data,ticket,id}')::bigint = any($2::bigint[])
              group by 1, 2, 3, 4`,
          [endpointId, missing()],
        );
        throw new Error(
          `${error.message}: ${missing().length} of ${due.length} missing; rows ${JSON.stringify(rows)}`,
        );
      });
      // When each arrived against the endpoint's creation, and its ticket, for reading a failure.
      const bad = receiver
        .badlySigned()
        .map((h) => `${String(h.json.data.ticket.id)} at +${h.at - since} ms`);
      expect({ endpoint: addedIn, badlySigned: bad }).toEqual({ endpoint: addedIn, badlySigned: [] });
    }
  }

  beforeAll(async () => {
    database = await createTestDatabase();
    base = testConfig(database, { ...PHASES.before });
    const names = Object.keys(PROCESSES) as ProcessName[];
    const ports = await freePorts(names.length * 2);
    names.forEach((name, i) => (slots[name] = [ports[2 * i]!, ports[2 * i + 1]!]));
    const balanced = names.filter((name) => PROCESSES[name].balanced);
    balancer = await startLoadBalancer(
      balanced.map((name) => ({
        name,
        servers: slots[name],
        errorBody: name === 'adapter' ? REST_UNAVAILABLE_BODY : GRAPHQL_UNAVAILABLE_BODY,
        retryPostsWithIdempotencyKey: name === 'adapter',
      })),
    );
    for (const name of ['billing', 'tickets', 'cv', 'events', 'gateway', 'adapter'] as const) {
      running[name] = { process: await start(name, 'before', 0), slot: 0 };
    }
    // The load starts once HAProxy sends it to the replicas alone, not to a slot nothing listens on.
    await Promise.all(
      balanced.flatMap((name) => [
        balancer.waitForServer(name, 0, 'UP'),
        balancer.waitForServer(name, 1, 'DOWN'),
      ]),
    );
    branch = await newTicketBranch(adminConfig('before'));
    await addReceiver('before');
    for (let i = 0; i < 3; i += 1) {
      const account = await newCvAccount(adminConfig('before'), { plan: 'business' });
      const created = await fetch(url('adapter', '/api/v1/cvs'), {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': account.key },
        body: JSON.stringify({
          title: 'Rotation',
          locale: 'en',
          template_id: await platformTemplateId(database, 'classic'),
        }),
      });
      expect(created.status).toBe(201);
      cvs.push({ account, cvId: String(((await created.json()) as { data: { id: string } }).data.id) });
    }
    load = Promise.all([posWorker(1), posWorker(2), cvWorker()]);
    // A worker's failed call ends the load: that failure is the one to report, not the wait's. And
    // whatever the cause, the answers so far say where the load stood.
    const underWay = waitUntil(() => readied.length >= 3, 60_000, 'the load under way');
    await Promise.race([
      underWay,
      load.then(() => {
        throw new Error('the load ended before three tickets were ready');
      }),
    ]).catch((error: unknown) => {
      throw new Error(`${(error as Error).message}; answers so far: ${JSON.stringify(tallyOf(outcomes))}`, {
        cause: error,
      });
    });
  }, 150_000);

  afterAll(async () => {
    loadRunning = false;
    await load?.catch(() => undefined);
    await Promise.allSettled(draining);
    await Promise.all(Object.values(running).map(({ process }) => process.kill()));
    await balancer?.stop();
    await Promise.all(receivers.map(({ receiver }) => receiver.stop()));
    await database?.drop();
  });

  // 18 rolls, each waiting for a start and HAProxy's checks, the old replica draining beside the
  // next roll: one to two minutes on two busy cores.
  it('serves every request and delivers every webhook signed through the three rolls and the reseal', async () => {
    // Roll 1 in the order processes call each other; roll 2 senders first, so a gateway on the new
    // primary calls subgraphs that have not rolled yet; roll 3 in yet another order.
    const orders: Record<Exclude<Phase, 'before'>, ProcessName[]> = {
      'roll 1: the new values accepted': ['billing', 'tickets', 'cv', 'events', 'gateway', 'adapter'],
      'roll 2: the new values primary': ['adapter', 'gateway', 'events', 'cv', 'tickets', 'billing'],
      'roll 3: the old values dropped': ['tickets', 'cv', 'adapter', 'billing', 'events', 'gateway'],
    };
    const figures: Record<string, unknown> = {};
    const failed = () => failures(outcomes).map((o) => `${o.what} ${o.status} ${o.body.slice(0, 300)}`);
    for (const [phase, order] of Object.entries(orders) as [Exclude<Phase, 'before'>, ProcessName[]][]) {
      const startedAt = Date.now();
      for (const name of order) {
        await roll(name, phase);
        // An endpoint added mid-roll is sealed under whatever key the admin holds then.
        if (name === 'events' && phase !== 'roll 3: the old values dropped') await addReceiver(phase);
      }
      await drained();
      if (phase === 'roll 2: the new values primary') {
        const resealed = await admin<{ checked: number; resealed: number; current: number }>(
          adminConfig(phase),
          'webhook',
          'reseal',
          '--batch',
          '1',
        );
        // The endpoints added before and during roll 1 were sealed under the old key.
        expect(resealed).toEqual(expect.objectContaining({ checked: 3, resealed: 2, current: 1 }));
        const again = await admin<{ resealed: number; current: number }>(
          adminConfig(phase),
          'webhook',
          'reseal',
        );
        expect(again).toEqual(expect.objectContaining({ resealed: 0, current: 3 }));
        const sealed = await database.query(
          'select secret_sealed from tickets.webhook_endpoints order by id',
        );
        const newKey = Buffer.from(NEW_KEY, 'base64');
        expect(sealed.map((row) => unseal(newKey, row.secret_sealed as Buffer))).toEqual(
          receivers.map(({ receiver }) => receiver.secret),
        );
      }
      expect({ after: phase, failures: failed() }).toEqual({ after: phase, failures: [] });
      await expectEveryWebhookSigned();
      figures[phase] = { seconds: ((Date.now() - startedAt) / 1000).toFixed(1), answers: outcomes.length };
    }
    loadRunning = false;
    await load;
    await expectEveryWebhookSigned();

    process.stdout.write(
      `[rotation] ${JSON.stringify({ figures, answers: tallyOf(outcomes), readied: readied.length, webhooks: receivers.map((r) => r.receiver.received.length) })}\n`,
    );
    expect(failed()).toEqual([]);
    expect(readied.length).toBeGreaterThan(10);
    expect(outcomes.filter((o) => o.what === 'REST CV link' && o.status === 200).length).toBeGreaterThan(5);
  }, 300_000);
});

/** How many answers of each call and status. */
function tallyOf(outcomes: readonly Outcome[]): Record<string, number> {
  const tally: Record<string, number> = {};
  for (const o of outcomes) tally[`${o.what} ${o.status}`] = (tally[`${o.what} ${o.status}`] ?? 0) + 1;
  return tally;
}
