import { Client } from 'pg';
import WebSocket from 'ws';
import { residentBytes } from '../bench-stack';
import { percentile } from '../load';
import { cpuSeconds } from './process-stats';
import { subscribeToTicket } from '../ticket-subscriber';

/**
 * `ticketUpdated` fan-out: N graphql-ws subscribers of one ticket, timed from the REST POST that
 * changes it to each subscriber's message (as bench/events.bench.ts does), and what a gateway that
 * cannot serve it answers instead.
 */

export const TICKET_UPDATED = 'subscription ($token: String!) { ticketUpdated(token: $token) { status } }';
const CONNECT_BATCH = 250;

export interface FanOutResult {
  subscribers: number;
  rounds: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** The gateway process's CPU seconds per round (one event to every subscriber). */
  cpuSecondsPerEvent: number;
  /** The gateway's resident memory grown per subscriber, once all are subscribed and idle. */
  kibPerIdleSubscriber: number;
}

/** Resident memory a gateway grows by per idle socket, from before the sockets to after them. */
function kibPer(before: number, pid: number, count: number): number {
  return Math.round(((residentBytes(pid) - before) / count / 1024) * 10) / 10;
}

/** The graphql-ws sockets' settle time: the last frames are in and the gateway's state is built. */
const SETTLE_MS = 1_000;

/**
 * Memory per idle socket: `count` opened with `open` (undefined when the gateway refused one) in
 * two halves, each given a moment to settle, then the gateway's resident growth per socket over
 * the second half. The first half pays what the first sockets start once (code, pools); a
 * collection of memory left from earlier load would fall on the baseline, not on the sockets,
 * were the run not taken first. Undefined when any was refused.
 */
async function idleMemory(
  pid: number,
  count: number,
  open: () => Promise<WebSocket | undefined>,
): Promise<number | undefined> {
  const sockets: WebSocket[] = [];
  const openUpTo = async (total: number): Promise<boolean> => {
    while (sockets.length < total) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(CONNECT_BATCH, total - sockets.length) }, open),
      );
      const opened = batch.filter((socket): socket is WebSocket => socket !== undefined);
      sockets.push(...opened);
      if (opened.length < batch.length) return false;
    }
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    return true;
  };
  try {
    const half = Math.floor(count / 2);
    if (!(await openUpTo(half))) return undefined;
    const before = residentBytes(pid);
    if (!(await openUpTo(count))) return undefined;
    return kibPer(before, pid, count - half);
  } finally {
    for (const socket of sockets) socket.terminate();
  }
}

/** Memory per idle `ticketUpdated` subscriber of one ticket, for a gateway that serves it. */
export function idleSubscriberMemory(
  url: string,
  pid: number,
  count: number,
  token: string,
): Promise<number | undefined> {
  return idleMemory(pid, count, () =>
    subscribe(url.replace(/^http/, 'ws'), token, () => undefined).catch(() => undefined),
  );
}

/**
 * Memory per idle graphql-ws connection (acknowledged, nothing subscribed), for a gateway that
 * cannot hold the subscription itself: what each of its subscribers would cost at the least.
 * Undefined when the gateway does not acknowledge a graphql-ws connection.
 */
export function idleConnectionMemory(url: string, pid: number, count: number): Promise<number | undefined> {
  return idleMemory(
    pid,
    count,
    () =>
      new Promise<WebSocket | undefined>((resolve) => {
        const socket = new WebSocket(url.replace(/^http/, 'ws'), 'graphql-transport-ws');
        const timer = setTimeout(() => {
          socket.terminate();
          resolve(undefined);
        }, 5_000);
        socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: {} })));
        socket.on('message', (data: Buffer) => {
          clearTimeout(timer);
          resolve(
            (JSON.parse(data.toString()) as { type: string }).type === 'connection_ack' ? socket : undefined,
          );
        });
        socket.on('error', () => {
          clearTimeout(timer);
          resolve(undefined);
        });
      }),
  );
}

/** Opens one graphql-ws subscriber; `arrived` is called at its first `next` of each round. */
function subscribe(url: string, token: string, arrived: () => void): Promise<WebSocket> {
  return subscribeToTicket(url, TICKET_UPDATED, token, arrived).subscribed;
}

async function until(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`${what} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * N subscribers on `wsUrl`, then one warm-up round and `rounds` timed ones: ready, then rings
 * (the 30-second ring interval moved out of the way with one UPDATE, as the events benchmark does).
 */
export async function measureFanOut(options: {
  wsUrl: string;
  restUrl: string;
  ticketKey: string;
  databaseUrl: string;
  gatewayPid: number;
  subscribers: number;
  rounds: number;
}): Promise<FanOutResult> {
  const auth = { authorization: `Bearer ${options.ticketKey}` };
  const post = async (path: string) => {
    const response = await fetch(`${options.restUrl}${path}`, { method: 'POST', headers: auth });
    if (!response.ok) throw new Error(`POST ${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as { id: number; token: string };
  };
  const ticket = await post('/tickets');
  const db = new Client({ connectionString: options.databaseUrl });
  await db.connect();
  const sockets: WebSocket[] = [];
  const rssBefore = residentBytes(options.gatewayPid);
  try {
    let roundStart = 0;
    let received = 0;
    const latencies: number[] = [];
    let timing = false;
    const arrived = () => {
      received += 1;
      if (timing) latencies.push(performance.now() - roundStart);
    };
    for (let first = 0; first < options.subscribers; first += CONNECT_BATCH) {
      const batch: Promise<WebSocket>[] = [];
      for (let i = first; i < Math.min(options.subscribers, first + CONNECT_BATCH); i++) {
        batch.push(subscribe(options.wsUrl, ticket.token, arrived));
      }
      sockets.push(...(await Promise.all(batch)));
    }
    // The subscribe frames are sent; give the gateway a moment to register the last ones.
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const kibPerIdleSubscriber = kibPer(rssBefore, options.gatewayPid, options.subscribers);
    let cpu = 0;
    for (let r = 0; r <= options.rounds; r++) {
      if (r > 0) {
        await db.query(
          `update tickets.tickets set last_alert_at = now() - interval '31 seconds' where id = $1`,
          [ticket.id],
        );
      }
      received = 0;
      timing = r > 0;
      const cpuBefore = cpuSeconds(options.gatewayPid);
      roundStart = performance.now();
      await post(`/tickets/${ticket.id}/${r === 0 ? 'ready' : 'ring'}`);
      await until(
        () => received >= options.subscribers,
        30_000,
        `round ${r}: ${received} of ${options.subscribers}`,
      );
      if (r > 0) cpu += cpuSeconds(options.gatewayPid) - cpuBefore;
    }
    latencies.sort((a, b) => a - b);
    return {
      subscribers: options.subscribers,
      rounds: options.rounds,
      p50Ms: percentile(latencies, 50),
      p99Ms: percentile(latencies, 99),
      maxMs: Math.round((latencies.at(-1) ?? 0) * 100) / 100,
      cpuSecondsPerEvent: Math.round((cpu / options.rounds) * 1000) / 1000,
      kibPerIdleSubscriber,
    };
  } finally {
    for (const socket of sockets) socket.terminate();
    await db.end();
  }
}

/** A GraphQL answer's first error message, or the answer itself when it carries none. */
function firstError(answer: string): string {
  const match = /"errors":\[\{"message":"((?:[^"\\]|\\.)*)"/.exec(answer);
  return match?.[1] !== undefined ? `error "${match[1]}"` : answer.trim().slice(0, 200);
}

export interface SubscriptionProbe {
  /** True when neither door answered with an error: the gateway may serve the subscription. */
  served: boolean;
  http: string;
  ws: string;
}

/** What a gateway answers `subscription { ticketUpdated }` over HTTP and over graphql-ws, in its own words. */
export async function probeSubscription(url: string, token: string): Promise<SubscriptionProbe> {
  const body = JSON.stringify({ query: TICKET_UPDATED, variables: { token } });
  let http: string;
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream, application/json' },
      body,
      signal: AbortSignal.timeout(3_000),
    });
    // An event stream that stays open sends its first event (or nothing) within the timeout.
    const reader = response.body?.getReader();
    const first =
      reader === undefined
        ? undefined
        : await Promise.race([
            reader.read().then((chunk) => Buffer.from(chunk.value ?? new Uint8Array()).toString()),
            new Promise<string>((resolve) => setTimeout(() => resolve('(nothing within 3 s)'), 3_000)),
          ]);
    await reader?.cancel().catch(() => undefined);
    const type = (response.headers.get('content-type') ?? '').split(';')[0];
    http = `${response.status} ${type}, ${firstError(first ?? '')}`;
  } catch (error) {
    http = `failed: ${error instanceof Error ? error.message : String(error)}`;
  }
  const ws = await new Promise<string>((resolve) => {
    const socket = new WebSocket(url.replace(/^http/, 'ws'), 'graphql-transport-ws');
    const timer = setTimeout(() => {
      socket.terminate();
      resolve('no answer within 3 s');
    }, 3_000);
    const done = (answer: string) => {
      clearTimeout(timer);
      socket.terminate();
      resolve(answer);
    };
    socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: {} })));
    socket.on('message', (data: Buffer) => {
      const message = JSON.parse(data.toString()) as { type: string };
      if (message.type === 'connection_ack') {
        socket.send(
          JSON.stringify({
            id: '1',
            type: 'subscribe',
            payload: { query: TICKET_UPDATED, variables: { token } },
          }),
        );
      } else {
        done(`${message.type}, ${firstError(data.toString())}`);
      }
    });
    socket.on('unexpected-response', (_req, res) => done(`upgrade refused with HTTP ${res.statusCode}`));
    socket.on('error', (error) => done(`failed: ${error.message}`));
    socket.on('close', (code) => done(`closed with ${code}`));
  });
  // Silence is what a served subscription says until an event; only a refusal counts against it.
  const failed = (answer: string) => /error|failed|refused|closed/.test(answer);
  return { served: !failed(http) && !failed(ws), http, ws };
}
