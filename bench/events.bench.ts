import 'reflect-metadata';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Client } from 'pg';
import WebSocket from 'ws';
import { projectRoot } from '../common/paths';
import { startStack, type RunningStack } from '../tools/stack';
import { loadConfig } from '../common/config';
import { connectRedis, RedisSubscription } from '../common/redis';
import { liveEventsChannel, type LiveEvent } from '../contracts/tickets/live-event';
import { admin, benchEnv, childRunning, residentBytes } from './bench-stack';
import { flag, percentile } from './load';

/**
 * Live events end to end, on `npm start`'s processes:
 *
 * (a) time from `POST /tickets/{id}/ready` (then `/ring`) through the REST adapter to the
 *     `ticketUpdated` message at every one of N concurrent graphql-ws subscribers of that ticket,
 *     N = 1, 100, 1,000 and 10,000, with the gateway's resident memory per idle subscriber;
 * (b) time from `POST /tickets/{id}/ready` to the first webhook attempt's arrival at a local receiver.
 *
 *   npm run build && npm run bench:events -- [--rounds 10] [--max 10000] [--only 10000]
 *
 * Each level is timed from the POST (end to end) and from the live event's arrival over Redis at
 * this process, which subscribes to the relay's channel as one more gateway replica would: that
 * is when the gateway's fan-out can start, and the time point the floor's figures run from, so
 * the fan-out is compared with the floor on the same footing.
 *
 * Every subscriber watches the same ticket, the most a single event can fan out. The 30-second
 * ring interval is moved out of the way with one UPDATE between rounds. The subscribers run in this
 * process, on the same two cores as the stack, so their own parsing is inside the figures.
 *
 * Targets: p99 at most 100 ms at 1,000 subscribers and 250 ms at 10,000; gateway memory growth at
 * most 20 KB per idle subscriber; first webhook attempt p95 at most 200 ms.
 */

const SUBSCRIPTION =
  'subscription ($token: String!) { ticketUpdated(token: $token) { id status ringCount updatedAt } }';
const CONNECT_BATCH = 250;

interface Subscribers {
  sockets: WebSocket[];
  /** When each subscriber's message arrived (`performance.now()`); -1 until it does. */
  arrived: number[];
  received: number;
  /** When the round's trigger was sent: the POST, or the floor's `go`. */
  roundStart: number;
  /**
   * When the event reached the fan-out: the live event's Redis message as this process, one more
   * subscriber of the channel, heard it; for the floor, its `go`. -1 until then.
   */
  eventAt: number;
}

function connectOne(url: string, token: string, index: number, subs: Subscribers): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, 'graphql-transport-ws', {
      perMessageDeflate: false,
      // The client's own UTF-8 check of 10,000 frames is not the gateway's latency.
      skipUTF8Validation: true,
    });
    subs.sockets[index] = socket;
    socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: {} })));
    socket.on('message', (data: Buffer) => {
      // A `next` frame is only timed; parsing 10,000 of them here would be the client's cost, not the gateway's.
      if (data.includes('"type":"next"')) {
        if (subs.arrived[index] === -1) {
          subs.arrived[index] = performance.now();
          subs.received += 1;
        }
        return;
      }
      const message = JSON.parse(data.toString()) as { type: string };
      if (message.type === 'connection_ack') {
        socket.send(
          JSON.stringify({
            id: '1',
            type: 'subscribe',
            payload: { query: SUBSCRIPTION, variables: { token } },
          }),
        );
        resolve();
      } else if (message.type === 'error') {
        reject(new Error(`subscription refused: ${data.toString()}`));
      }
    });
    socket.on('error', reject);
  });
}

/** Opens n subscribers in batches, each acknowledged and subscribed. */
async function connectAll(url: string, token: string, n: number): Promise<Subscribers> {
  const subs: Subscribers = {
    sockets: [],
    arrived: new Array<number>(n).fill(-1),
    received: 0,
    roundStart: 0,
    eventAt: -1,
  };
  for (let first = 0; first < n; first += CONNECT_BATCH) {
    const batch = [];
    for (let i = first; i < Math.min(n, first + CONNECT_BATCH); i++)
      batch.push(connectOne(url, token, i, subs));
    await Promise.all(batch);
  }
  return subs;
}

/**
 * Round 0 warms the code paths up (as the HTTP benchmarks' warm-up second does) and is not
 * counted. Each later round is timed twice: from `trigger` (end to end) and from the moment the
 * event reached the fan-out (`eventAt`), the time point the floor is measured from.
 */
async function measureRounds(subs: Subscribers, rounds: number, trigger: (round: number) => Promise<void>) {
  const n = subs.arrived.length;
  const endToEnd = new Timings(rounds);
  const fanOut = new Timings(rounds);
  for (let r = 0; r <= rounds; r++) {
    subs.arrived.fill(-1);
    subs.received = 0;
    subs.eventAt = -1;
    await trigger(r);
    await until(
      () => subs.received === n && subs.eventAt !== -1,
      30_000,
      `round ${r}: ${subs.received} of ${n} messages`,
    );
    if (r === 0) continue;
    endToEnd.add(subs.arrived.map((at) => at - subs.roundStart));
    fanOut.add(subs.arrived.map((at) => at - subs.eventAt));
  }
  return { subscribers: n, rounds, messages: n * rounds, ...endToEnd.summary(), fanOut: fanOut.summary() };
}

/** Latencies of every message of every round, and each round's last. */
class Timings {
  private readonly all: number[] = [];
  private readonly lastPerRound: number[] = [];

  constructor(private readonly rounds: number) {}

  add(round: number[]): void {
    this.all.push(...round);
    this.lastPerRound.push(Math.max(...round));
  }

  summary() {
    const all = [...this.all].sort((a, b) => a - b);
    const last = [...this.lastPerRound].sort((a, b) => a - b);
    return {
      p50Ms: percentile(all, 50),
      p99Ms: percentile(all, 99),
      maxMs: round2(all[all.length - 1] ?? 0),
      lastSubscriberMedianMs: round2(last[Math.floor(this.rounds / 2)] ?? 0),
    };
  }
}

/** The same fan-out from a bare WebSocket server (bench/floor-ws.ts), for reading the figures. */
async function floor(n: number, rounds: number) {
  const child = spawn(process.execPath, [join(projectRoot(), 'dist', 'bench', 'floor-ws.js')], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const port = await new Promise<number>((resolve, reject) => {
      child.stdout.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim())));
      child.once('exit', (code) => reject(new Error(`floor-ws exited with ${code}`)));
    });
    const url = `ws://127.0.0.1:${port}`;
    const subs = await connectAll(url, '', n);
    const control = new WebSocket(url);
    await once(control, 'open');
    const result = await measureRounds(subs, rounds, async () => {
      subs.roundStart = performance.now();
      subs.eventAt = subs.roundStart;
      control.send('go');
      await Promise.resolve();
    });
    for (const socket of [...subs.sockets, control]) socket.terminate();
    return result;
  } finally {
    child.kill('SIGTERM');
  }
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
  const env = benchEnv({ TICKETS_RATE_LIMIT: '100000000', WEBHOOK_ALLOW_INSECURE: 'true' });
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
    let current: Subscribers | undefined;
    // The relay's live event reaches the gateway and this process from one Redis publish, so its
    // arrival here is when the gateway's fan-out can start: the floor's `go`, on the platform.
    const config = loadConfig(env);
    const redis = await connectRedis(config.redis, 'events-bench');
    const events = await RedisSubscription.open(
      redis,
      'events-bench',
      [liveEventsChannel(config.redisPrefix)],
      {
        message: (_channel, message) => {
          if (current === undefined || current.eventAt !== -1) return;
          if ((JSON.parse(message) as LiveEvent).ticketId === ticket.id) current.eventAt = performance.now();
        },
        lost: () => process.stderr.write('events bench: live events subscription lost\n'),
        restored: () => undefined,
      },
    );
    let readied = false;
    const levels: Record<string, unknown>[] = [];
    const only = flag('only', 0);
    for (const n of [1, 100, 1_000, 10_000].filter(
      (level) => level <= max && (only === 0 || level === only),
    )) {
      const subs: Subscribers = {
        sockets: [],
        arrived: new Array<number>(n).fill(-1),
        received: 0,
        roundStart: 0,
        eventAt: -1,
      };
      current = subs;
      const rssBefore = residentBytes(gatewayPid);
      const connectStarted = performance.now();
      for (let first = 0; first < n; first += CONNECT_BATCH) {
        const batch = [];
        for (let i = first; i < Math.min(n, first + CONNECT_BATCH); i++) {
          batch.push(connectOne(wsUrl, ticket.token, i, subs));
        }
        await Promise.all(batch);
      }
      await until(
        async () => (await gatewaySubscribers(stack)) === n,
        60_000,
        `${n} subscribers not counted`,
      );
      const connectSeconds = round2((performance.now() - connectStarted) / 1000);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const rssIdle = residentBytes(gatewayPid);

      const measured = await measureRounds(subs, rounds, async () => {
        if (readied) {
          await db.query(
            `update tickets.tickets set last_alert_at = now() - interval '31 seconds' where id = $1`,
            [ticket.id],
          );
        }
        subs.roundStart = performance.now();
        await post(`/tickets/${ticket.id}/${readied ? 'ring' : 'ready'}`);
        readied = true;
      });
      for (const socket of subs.sockets) socket.terminate();
      await until(async () => (await gatewaySubscribers(stack)) === 0, 60_000, 'subscribers not gone');
      const level = {
        ...measured,
        connectSeconds,
        gatewayRssBeforeMiB: round2(rssBefore / 2 ** 20),
        gatewayRssIdleMiB: round2(rssIdle / 2 ** 20),
        gatewayKiBPerIdleSubscriber: round2((rssIdle - rssBefore) / n / 1024),
      };
      levels.push(level);
      process.stderr.write(`subscriptions: ${JSON.stringify(level)}\n`);
    }

    await events.close();
    redis.disconnect();
    // Measured while the stack still runs, idle, so both fan-outs share the machine's state.
    const largestLevel = levels.at(-1) as { subscribers: number } | undefined;
    const bare = await floor(largestLevel?.subscribers ?? Math.min(max, 10_000), rounds);
    process.stderr.write(`floor: ${JSON.stringify(bare)}\n`);
    await db.end();
    await stack.stop();

    const at = (n: number) =>
      levels.find((l) => l.subscribers === n) as
        { p99Ms: number; gatewayKiBPerIdleSubscriber: number; fanOut: { p99Ms: number } } | undefined;
    const largest = levels.at(-1) as { subscribers: number; fanOut: { p99Ms: number } } | undefined;
    const checks = [
      { check: 'p99 at 1,000 subscribers ≤ 100 ms', value: at(1_000)?.p99Ms, limit: 100 },
      { check: 'p99 at 10,000 subscribers ≤ 250 ms', value: at(10_000)?.p99Ms, limit: 250 },
      {
        check: 'gateway memory per idle subscriber ≤ 20 KB (at the largest level)',
        value: levels.at(-1)?.gatewayKiBPerIdleSubscriber as number | undefined,
        limit: 20,
      },
      { check: 'first webhook attempt p95 ≤ 200 ms', value: webhook.p95Ms, limit: 200 },
      {
        check: `fan-out p99 at ${largest?.subscribers ?? 0} subscribers ÷ the floor's p99 ≤ 1.15`,
        value:
          largest?.subscribers === bare.subscribers ? round2(largest.fanOut.p99Ms / bare.p99Ms) : undefined,
        limit: 1.15,
      },
    ].map((c) => ({ ...c, pass: c.value !== undefined && c.value <= c.limit }));
    process.stdout.write(
      `${JSON.stringify({ webhook, subscriptions: levels, floor: bare, checks }, null, 2)}\n`,
    );
  } finally {
    await db.end().catch(() => undefined);
    await stack.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
