import 'reflect-metadata';
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Client } from 'pg';
import WebSocket from 'ws';
import { loadConfig } from '../common/config';
import { projectRoot } from '../common/paths';
import { connectRedis, RedisSubscription } from '../common/redis';
import { liveEventsChannel, type LiveEvent } from '../contracts/tickets/live-event';
import { startStack, type RunningStack } from '../tools/stack';
import { admin, benchEnv, childRunning, profiledEnv, residentBytes } from './bench-stack';
import type { PoolCommand, PoolReport } from './events-subscribers';
import { flag, percentile, textFlag } from './load';

/**
 * Live events end to end, on `npm start`'s processes:
 *
 * (a) time from `POST /tickets/{id}/ready` (then `/ring`) through the REST adapter to the
 *     `ticketUpdated` message at every one of N concurrent graphql-ws subscribers of that ticket,
 *     N = 1, 100, 1,000 and 10,000, with the gateway's resident memory per idle subscriber;
 * (b) time from `POST /tickets/{id}/ready` to the first webhook attempt's arrival at a local receiver.
 *
 *   npm run build && npm run bench:events -- [--rounds 10] [--max 10000] [--only 10000] [--profile DIR]
 *     [--framed-floor]
 *
 * Each level is timed from the POST (end to end) and from the live event's arrival over Redis at
 * this process, which subscribes to the relay's channel as one more gateway replica would: that
 * is when the gateway's fan-out can start, and the time point the floor's figures run from, so
 * the fan-out is compared with the floor on the same footing.
 *
 * At the largest level the same number of subscribers also holds a bare `ws` server
 * (bench/floor-ws.ts), and the platform's rounds alternate with the floor's, a few hundred
 * milliseconds apart: on a machine whose other load comes and goes, floor and platform measured
 * a minute apart differ by more than what either does.
 *
 * Every subscriber watches the same ticket, the most a single event can fan out. The 30-second
 * ring interval is moved out of the way with one UPDATE between rounds. The subscribers run in a
 * child process per server (bench/events-subscribers.ts), on the same two cores as the stack, so
 * their own reading is inside the figures.
 *
 * `--framed-floor` has the floor write each frame as the hub does (framed once, written straight to
 * every connection) instead of through ws's `send`, to show the hub against the floor of its own
 * method.
 *
 * `--profile DIR` writes a CPU profile of the gateway over the largest level's rounds into DIR
 * (summarised by `node dist/bench/cpu-profile.js DIR/gateway-main.*.cpuprofile`).
 *
 * Targets: p99 at most 100 ms at 1,000 subscribers and 250 ms at 10,000; gateway memory growth at
 * most 20 KB per idle subscriber; first webhook attempt p95 at most 200 ms; the fan-out's p99 at
 * 10,000 at most 1.15 times the floor's.
 */

/** Children this run started, ended if it fails so no subscriber or floor outlives it. */
const children = new Set<ChildProcess>();

/** A child process holding N subscribers of one server (bench/events-subscribers.ts). */
class Pool {
  private readonly reports: PoolReport[] = [];
  private waiting?: () => void;

  private constructor(private readonly child: ChildProcess) {
    child.on('message', (report: PoolReport) => {
      this.reports.push(report);
      this.waiting?.();
    });
  }

  static async open(url: string, token: string, n: number): Promise<Pool> {
    const script = join(projectRoot(), 'dist', 'bench', 'events-subscribers.js');
    const child = fork(script, [url, token, String(n)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    children.add(child);
    const pool = new Pool(child);
    await pool.next('ready', 120_000);
    return pool;
  }

  /** Forgets the last round; resolves once the pool has. */
  async arm(): Promise<void> {
    this.send({ type: 'arm' });
    await this.next('armed', 10_000);
  }

  /** Each subscriber's arrival (`performance.timeOrigin + now()`), once all have one. */
  async arrivals(): Promise<number[]> {
    const report = await this.next('arrived', 30_000);
    return (report as { at: number[] }).at;
  }

  async close(): Promise<void> {
    const exited = once(this.child, 'exit');
    this.send({ type: 'stop' });
    await exited;
  }

  private send(command: PoolCommand): void {
    this.child.send(command);
  }

  private async next(type: PoolReport['type'], timeoutMs: number): Promise<PoolReport> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const index = this.reports.findIndex((report) => report.type === type);
      if (index !== -1) return this.reports.splice(index, 1)[0]!;
      if (this.child.exitCode !== null) throw new Error(`subscriber pool exited with ${this.child.exitCode}`);
      if (Date.now() > deadline)
        throw new Error(`no ${type} from the subscriber pool within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        this.waiting = resolve;
        setTimeout(resolve, 100);
      });
    }
  }
}

/** The shared clock of the bench and its pools. */
const now = () => performance.timeOrigin + performance.now();

/** One fan-out as it was timed: when it was triggered, when the event reached the server, the arrivals. */
interface Round {
  triggeredAt: number;
  eventAt: number;
  arrivals: number[];
}

/** How a round starts: when it was triggered, and when the event reached the fan-out, once known. */
type Trigger = () => Promise<{ triggeredAt: number; eventAt: () => number }>;

/**
 * Runs one round on a pool: `trigger` starts it and tells when the event reached the fan-out (for
 * the platform, as this process heard it on Redis; for the floor, its `go`).
 */
async function roundOn(pool: Pool, trigger: Trigger): Promise<Round> {
  // What the last round left behind (the relay's commit, the sockets' replies) settles first.
  await new Promise((resolve) => setTimeout(resolve, 50));
  await pool.arm();
  const { triggeredAt, eventAt } = await trigger();
  const arrivals = await pool.arrivals();
  const reached = eventAt();
  if (reached === -1) throw new Error('the live event never reached this process over Redis');
  return { triggeredAt, eventAt: reached, arrivals };
}

/** Latencies of every message of every round, each round's last, and each round's p99. */
class Timings {
  private readonly all: number[] = [];
  private readonly lastPerRound: number[] = [];
  private readonly p99PerRound: number[] = [];

  add(round: number[]): void {
    this.all.push(...round);
    this.lastPerRound.push(Math.max(...round));
    this.p99PerRound.push(
      percentile(
        [...round].sort((a, b) => a - b),
        99,
      ),
    );
  }

  summary() {
    const all = [...this.all].sort((a, b) => a - b);
    const median = (values: number[]) => {
      const sorted = [...values].sort((a, b) => a - b);
      return round2(sorted[Math.floor(sorted.length / 2)] ?? 0);
    };
    return {
      p50Ms: percentile(all, 50),
      p99Ms: percentile(all, 99),
      // Pooled, one slow round (a collection, a neighbour's burst) owns the top 1% of every
      // round's messages; the median of the rounds' own p99s is the run's figure the targets use.
      p99MedianOfRoundsMs: median(this.p99PerRound),
      maxMs: round2(all[all.length - 1] ?? 0),
      lastSubscriberMedianMs: median(this.lastPerRound),
    };
  }
}

/**
 * Round 0 warms the code paths up (as the HTTP benchmarks' warm-up second does) and is not
 * counted. Each later round is timed twice: from its trigger (end to end) and from the moment the
 * event reached the fan-out, the time point the floor is measured from.
 */
function summarise(measured: Round[]) {
  const endToEnd = new Timings();
  const fanOut = new Timings();
  for (const round of measured.slice(1)) {
    endToEnd.add(round.arrivals.map((at) => at - round.triggeredAt));
    fanOut.add(round.arrivals.map((at) => at - round.eventAt));
  }
  const n = measured[0]?.arrivals.length ?? 0;
  const rounds = Math.max(0, measured.length - 1);
  return { subscribers: n, rounds, messages: n * rounds, ...endToEnd.summary(), fanOut: fanOut.summary() };
}

/** The bare `ws` server of the floor (bench/floor-ws.ts) and a socket that tells it to go. */
async function startFloor(framed: boolean) {
  const script = join(projectRoot(), 'dist', 'bench', 'floor-ws.js');
  const child = spawn(process.execPath, framed ? [script, '--framed'] : [script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.add(child);
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim())));
    child.once('exit', (code) => reject(new Error(`floor-ws exited with ${code}`)));
  });
  const url = `ws://127.0.0.1:${port}`;
  const control = new WebSocket(url);
  await once(control, 'open');
  return {
    url,
    go: () => {
      const at = now();
      control.send('go');
      return Promise.resolve({ triggeredAt: at, eventAt: () => at });
    },
    stop: () => {
      control.terminate();
      child.kill('SIGTERM');
    },
  };
}

async function gatewaySubscribers(stack: RunningStack): Promise<number> {
  const response = await fetch(stack.gatewayUrl.replace(/\/graphql$/, '/healthz'));
  return ((await response.json()) as { subscribers: number }).subscribers;
}

async function until(condition: () => Promise<boolean> | boolean, timeoutMs: number, what: string) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`${what} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const round2 = (n: number) => Math.round(n * 100) / 100;

async function main(): Promise<void> {
  const rounds = flag('rounds', 10);
  const max = flag('max', 10_000);
  const profileDir = textFlag('profile');
  // The floor written as the hub writes (one framing per distinct frame), not through ws's send.
  const framedFloor = process.argv.includes('--framed-floor');
  const env = profiledEnv(
    benchEnv({ TICKETS_RATE_LIMIT: '100000000', WEBHOOK_ALLOW_INSECURE: 'true' }),
    profileDir,
  );
  const stack = await startStack(env);
  const db = new Client({ connectionString: env.DATABASE_URL });
  await db.connect();
  try {
    const venue = admin(env, 'venue', 'create', '--name', 'Bench Shawarma', '--plan', 'growth');
    const branch = admin(env, 'branch', 'create', '--venue', String(venue.id), '--name', 'Bench counter');
    const { key } = admin(env, 'key', 'create', '--branch', String(branch.id)) as { key: string };
    const post = async (path: string) => {
      const response = await fetch(`${stack.restUrl}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}` },
      });
      if (!response.ok) throw new Error(`POST ${path}: ${response.status} ${await response.text()}`);
      return (await response.json()) as { id: number; token: string };
    };

    // (b) webhooks: one endpoint for ticket.ready, a receiver that notes when each ticket's arrives.
    const arrivals = new Map<number, number>();
    const receiver = createServer((req: IncomingMessage, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        const id = (JSON.parse(body) as { data: { ticket: { id: number } } }).data.ticket.id;
        if (!arrivals.has(id)) arrivals.set(id, performance.now());
        res.writeHead(200).end();
      });
    });
    receiver.listen(0, '127.0.0.1');
    await once(receiver, 'listening');
    const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const endpoint = admin(
      env,
      'webhook',
      'create',
      '--venue',
      String(venue.id),
      '--url',
      hookUrl,
      '--events',
      'ticket.ready',
    );
    const webhookMs: number[] = [];
    for (let i = 0; i < rounds * 5; i++) {
      const ticket = await post('/tickets');
      const started = performance.now();
      await post(`/tickets/${ticket.id}/ready`);
      await until(() => arrivals.has(ticket.id), 10_000, 'no webhook arrived');
      webhookMs.push(arrivals.get(ticket.id)! - started);
    }
    admin(env, 'webhook', 'delete', '--id', String(endpoint.id));
    receiver.close();
    webhookMs.sort((a, b) => a - b);
    const webhook = {
      deliveries: webhookMs.length,
      p50Ms: percentile(webhookMs, 50),
      p95Ms: percentile(webhookMs, 95),
      maxMs: round2(webhookMs[webhookMs.length - 1] ?? 0),
    };
    process.stderr.write(`webhook: ${JSON.stringify(webhook)}\n`);

    // (a) subscriptions.
    const gatewayPid = childRunning(stack.pid, 'gateway/main.js');
    const wsUrl = stack.gatewayUrl.replace(/^http/, 'ws');
    const ticket = await post('/tickets');
    // The relay's live event reaches the gateway and this process from one Redis publish, so its
    // arrival here is when the gateway's fan-out can start: the floor's `go`, on the platform.
    let eventAt = -1;
    const config = loadConfig(env);
    const redis = await connectRedis(config.redis, 'events-bench');
    const events = await RedisSubscription.open(
      redis,
      'events-bench',
      [liveEventsChannel(config.redisPrefix)],
      {
        message: (_channel, message) => {
          if (eventAt !== -1) return;
          if ((JSON.parse(message) as LiveEvent).ticketId === ticket.id) eventAt = now();
        },
        lost: () => process.stderr.write('live events subscription lost\n'),
        restored: () => undefined,
      },
    );
    let readied = false;
    const platform: Trigger = async () => {
      if (readied) {
        await db.query(
          `update tickets.tickets set last_alert_at = now() - interval '31 seconds' where id = $1`,
          [ticket.id],
        );
      }
      eventAt = -1;
      const triggeredAt = now();
      await post(`/tickets/${ticket.id}/${readied ? 'ring' : 'ready'}`);
      readied = true;
      return { triggeredAt, eventAt: () => eventAt };
    };

    /**
     * What each subscriber beyond `n` adds to the gateway's resident set, over `n / 2` more opened
     * and closed again. The figure from a gateway at rest (`gatewayKiBPerIdleSubscriber`) also holds
     * what the connection burst grows once: the young generation, up to the 64 MiB semi-spaces the
     * gateway is started with (tools/start.ts), is a fixed reserve, not a cost per socket.
     */
    const furtherIdleKiB = async (n: number): Promise<number> => {
      const before = residentBytes(gatewayPid);
      const further = await Pool.open(wsUrl, ticket.token, n / 2);
      await until(
        async () => (await gatewaySubscribers(stack)) === n * 1.5,
        60_000,
        'further subscribers not counted',
      );
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const kib = round2((residentBytes(gatewayPid) - before) / (n / 2) / 1024);
      await further.close();
      await until(
        async () => (await gatewaySubscribers(stack)) === n,
        60_000,
        'further subscribers not gone',
      );
      return kib;
    };

    const levels: Record<string, unknown>[] = [];
    let bare: ReturnType<typeof summarise> | undefined;
    const only = flag('only', 0);
    const sizes = [1, 100, 1_000, 10_000].filter((level) => level <= max && (only === 0 || level === only));
    for (const n of sizes) {
      const rssBefore = residentBytes(gatewayPid);
      const connectStarted = performance.now();
      const pool = await Pool.open(wsUrl, ticket.token, n);
      await until(
        async () => (await gatewaySubscribers(stack)) === n,
        60_000,
        `${n} subscribers not counted`,
      );
      const connectSeconds = round2((performance.now() - connectStarted) / 1000);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const rssIdle = residentBytes(gatewayPid);
      const furtherKiB = n === sizes.at(-1) && n >= 1_000 ? await furtherIdleKiB(n) : undefined;

      // The floor beside the largest level, its rounds alternating with the platform's and each
      // going first every other round.
      const floor = n === sizes.at(-1) ? await startFloor(framedFloor) : undefined;
      const floorPool = floor === undefined ? undefined : await Pool.open(floor.url, '', n);
      // --profile: the gateway profiles itself over the largest level's rounds, until it exits.
      if (profileDir !== undefined && floor !== undefined) process.kill(gatewayPid, 'SIGUSR2');
      const platformRounds: Round[] = [];
      const floorRounds: Round[] = [];
      for (let r = 0; r <= rounds; r++) {
        if (floor !== undefined && floorPool !== undefined && r % 2 === 1) {
          floorRounds.push(await roundOn(floorPool, floor.go));
        }
        platformRounds.push(await roundOn(pool, platform));
        if (floor !== undefined && floorPool !== undefined && r % 2 === 0) {
          floorRounds.push(await roundOn(floorPool, floor.go));
        }
      }
      await pool.close();
      if (floor !== undefined && floorPool !== undefined) {
        await floorPool.close();
        floor.stop();
        bare = summarise(floorRounds);
      }
      await until(async () => (await gatewaySubscribers(stack)) === 0, 60_000, 'subscribers not gone');
      const level = {
        ...summarise(platformRounds),
        connectSeconds,
        gatewayRssBeforeMiB: round2(rssBefore / 2 ** 20),
        gatewayRssIdleMiB: round2(rssIdle / 2 ** 20),
        gatewayKiBPerIdleSubscriber: round2((rssIdle - rssBefore) / n / 1024),
        gatewayKiBPerFurtherIdleSubscriber: furtherKiB,
      };
      levels.push(level);
      process.stderr.write(`subscriptions: ${JSON.stringify(level)}\n`);
    }
    await events.close();
    redis.disconnect();
    const floorFigures = bare === undefined ? undefined : (({ fanOut: _same, ...rest }) => rest)(bare);
    process.stderr.write(`floor: ${JSON.stringify(floorFigures)}\n`);
    await db.end();
    await stack.stop();

    const at = (n: number) =>
      levels.find((l) => l.subscribers === n) as
        { p99Ms: number; gatewayKiBPerIdleSubscriber: number; fanOut: { p99Ms: number } } | undefined;
    const largest = levels.at(-1) as
      { subscribers: number; fanOut: { p99Ms: number; p99MedianOfRoundsMs: number } } | undefined;
    const checks = [
      { check: 'p99 at 1,000 subscribers ≤ 100 ms', value: at(1_000)?.p99Ms, limit: 100 },
      { check: 'p99 at 10,000 subscribers ≤ 250 ms', value: at(10_000)?.p99Ms, limit: 250 },
      {
        check: 'gateway memory per further idle subscriber ≤ 20 KB (at the largest level)',
        value: levels.at(-1)?.gatewayKiBPerFurtherIdleSubscriber as number | undefined,
        limit: 20,
      },
      { check: 'first webhook attempt p95 ≤ 200 ms', value: webhook.p95Ms, limit: 200 },
      {
        check: `fan-out p99 at ${largest?.subscribers ?? 0} subscribers ÷ the ${framedFloor ? 'framed ' : ''}floor's p99 ≤ 1.15 (medians of the rounds' p99s)`,
        value:
          largest !== undefined && floorFigures !== undefined
            ? round2(largest.fanOut.p99MedianOfRoundsMs / floorFigures.p99MedianOfRoundsMs)
            : undefined,
        limit: 1.15,
      },
    ].map((c) => ({ ...c, pass: c.value !== undefined && c.value <= c.limit }));
    const pooledFanOutRatio =
      largest !== undefined && floorFigures !== undefined
        ? round2(largest.fanOut.p99Ms / floorFigures.p99Ms)
        : undefined;
    process.stdout.write(
      `${JSON.stringify({ webhook, subscriptions: levels, floor: floorFigures, checks, pooledFanOutRatio }, null, 2)}\n`,
    );
  } finally {
    await db.end().catch(() => undefined);
    await stack.stop();
  }
}

main().catch((error: unknown) => {
  for (const child of children) child.kill('SIGTERM');
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
