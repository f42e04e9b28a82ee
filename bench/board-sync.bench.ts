import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import WebSocket from 'ws';
import { BRANCH_HEADER } from '../contracts/identity/session';
import { loadConfig } from '../common/config';
import { startStack } from '../tools/stack';
import { benchEnv, benchVenue, childRunning, gatewayData } from './bench-stack';
import { flag } from './load';
import { cpuSeconds } from './peers/process-stats';

/**
 * A staff board's queue of offline work applied after it reconnects, on `npm start`'s processes:
 * how long 500 queued operations of one board take to land, and the gateway's CPU for them.
 *
 *   npm run build && npm run bench:board-sync -- [--runs 5] [--no-feed]
 *
 * The queue is what a busy 30 minutes offline leaves (rest-adapter/public/assets/board-sync.js):
 * 170 creations on leased numbers, each ticket then made ready and collected (155), ready then
 * cancelled (5), cancelled while waiting (5) or left ready (5), 500 operations in the order they
 * happened, each with its idempotency key and `occurredAt`. The board's socket opens with the
 * paired device's key in connection_init; once acknowledged the clock starts and the board does
 * what it does on every connection: subscribes `branchTicketsUpdated`, reads the branch, then sends
 * the queue oldest first, one operation at a time, each after the answer to the one before, and
 * reads the branch's wait a second after live events meanwhile (`--no-feed`: the queue alone). The
 * limits are the platform's defaults: 500 replayed operations sit within BOARD_SYNC_RATE_LIMIT
 * (600 per 10 minutes), the reads on BOARD_RATE_LIMIT. Every answer must carry its ticket, and
 * the branch must then hold each ticket with the status and moments sent; else the run fails.
 * Each run pairs a new device of the same branch; a first run warms the stack up unmeasured, as
 * a board reconnects to a gateway that has been serving; the figures are the runs' medians.
 */

const FIELDS = 'id number status customerName ringCount readyAt createdAt updatedAt';
const WAIT = 'wait { waiting oldestWaitingSince medianWaitSeconds alertMinutes }';
const CREATE = `mutation ($i: CreateTicketInput!, $k: String, $at: DateTimeISO) { createTicket(input: $i, idempotencyKey: $k, occurredAt: $at) { ticket { ${FIELDS} } } }`;
const MOVES = {
  ready: { field: 'markTicketReady', status: 'READY' },
  collected: { field: 'markTicketCollected', status: 'COLLECTED' },
  cancel: { field: 'cancelTicket', status: 'CANCELLED' },
} as const;
type Move = keyof typeof MOVES;
const moveQuery = (field: string) =>
  `mutation ($id: ID, $k: String, $at: DateTimeISO) { ${field}(id: $id, idempotencyKey: $k, occurredAt: $at) { ${FIELDS} } }`;

/** The queue's tickets: 170 creations and 330 moves, 500 operations. */
const TICKETS = 170;
const MINUTE = 60_000;

interface Ticket {
  id: string;
  number: string;
  status: string;
  createdAt: string;
  readyAt: string | null;
  collectedAt?: string | null;
  cancelledAt?: string | null;
}

/** One queued change, as the board keeps it: which ticket (by its place in the queue), what, when. */
interface Change {
  ticket: number;
  kind: 'create' | Move;
  at: number;
}

/** A ticket's fate in the queue: its moves after the creation, minutes after it was created. */
function fateOf(i: number): { kind: Move; after: number }[] {
  const ready = 3 + (i % 4) + (i % 7) / 60;
  const closed = ready + 1 + (i % 3) / 2;
  if (i % 34 === 5) return [{ kind: 'cancel', after: 2 }];
  if (i % 34 === 20)
    return [
      { kind: 'ready', after: ready },
      { kind: 'cancel', after: closed },
    ];
  if (i % 34 === 30) return [{ kind: 'ready', after: ready }];
  return [
    { kind: 'ready', after: ready },
    { kind: 'collected', after: closed },
  ];
}

/**
 * The board's queue after 30 minutes offline ending a minute ago: creations spread over the first
 * 22, each ticket's moves minutes after it, all in the order they happened, no two at one moment.
 */
function offlineQueue(now: number): Change[] {
  const start = now - 31 * MINUTE;
  const changes: Change[] = [];
  for (let i = 0; i < TICKETS; i++) {
    const created = start + Math.round((i * 22 * MINUTE) / TICKETS);
    changes.push({ ticket: i, kind: 'create', at: created });
    for (const { kind, after } of fateOf(i))
      changes.push({ ticket: i, kind, at: created + Math.round(after * MINUTE) });
  }
  changes.sort((a, b) => a.at - b.at || a.ticket - b.ticket);
  for (let k = 1; k < changes.length; k++) changes[k]!.at = Math.max(changes[k]!.at, changes[k - 1]!.at + 1);
  return changes;
}

interface Reply {
  data?: Record<string, unknown> | null;
  errors?: { message: string; extensions?: { code?: string } }[];
}

/** The board's graphql-ws socket (rest-adapter/public/assets/live.js): one operation at a time or many. */
class BoardSocket {
  private next = 0;
  private readonly pending = new Map<string, { reply: Reply; done: (reply: Reply) => void }>();
  private readonly feeds = new Map<string, () => void>();

  private constructor(private readonly socket: WebSocket) {
    socket.on('message', (data: Buffer) => {
      const message = JSON.parse(data.toString()) as { id?: string; type: string; payload?: unknown };
      if (message.type === 'ping') {
        socket.send('{"type":"pong"}');
        return;
      }
      const id = message.id ?? '';
      const feed = this.feeds.get(id);
      if (feed !== undefined) {
        if (message.type === 'next') feed();
        else throw new Error(`the board's feed ended: ${data.toString()}`);
        return;
      }
      const operation = this.pending.get(id);
      if (operation === undefined) return;
      if (message.type === 'next') operation.reply = message.payload as Reply;
      else {
        this.pending.delete(id);
        operation.done(
          message.type === 'error' ? { errors: message.payload as Reply['errors'] } : operation.reply,
        );
      }
    });
    // A socket lost mid-run fails what waits on it rather than leaving the run hanging.
    socket.on('close', (code) => {
      for (const [id, operation] of this.pending) {
        this.pending.delete(id);
        operation.done({ errors: [{ message: `the board's socket closed with ${code}` }] });
      }
    });
  }

  /** A socket acknowledged with this connection_init payload. */
  static open(url: string, params: Record<string, string>): Promise<BoardSocket> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url, 'graphql-transport-ws', { perMessageDeflate: false });
      socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: params })));
      const acked = (data: Buffer) => {
        if (!data.includes('"connection_ack"')) return;
        socket.off('message', acked);
        resolve(new BoardSocket(socket));
      };
      socket.on('message', acked);
      socket.on('error', reject);
      socket.on('close', (code) => reject(new Error(`the board's socket closed with ${code}`)));
    });
  }

  request(query: string, variables: Record<string, unknown> = {}): Promise<Reply> {
    const id = String(++this.next);
    return new Promise((done) => {
      this.pending.set(id, { reply: {}, done });
      this.socket.send(JSON.stringify({ id, type: 'subscribe', payload: { query, variables } }));
    });
  }

  subscribe(query: string, onNext: () => void): void {
    const id = String(++this.next);
    this.feeds.set(id, onNext);
    this.socket.send(JSON.stringify({ id, type: 'subscribe', payload: { query, variables: {} } }));
  }

  close(): void {
    this.pending.clear();
    this.socket.close(1000);
  }
}

interface Run {
  seconds: number;
  operationsPerSecond: number;
  gatewayCpuSeconds: number;
  gatewayCpuMsPerOperation: number;
  ticketsCpuSeconds: number;
  feedMessages: number;
  waitReads: number;
  waitReadsRefused: number;
}

const round = (value: number, places: number) => Math.round(value * 10 ** places) / 10 ** places;
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

async function main(): Promise<void> {
  const runs = flag('runs', 5);
  const feed = !process.argv.includes('--no-feed');
  // The board budgets stay the platform's defaults: the figure is what a real board gets.
  const env = benchEnv();
  const config = loadConfig(env);
  const stack = await startStack(env);
  try {
    const gatewayPid = childRunning(stack.pid, 'gateway/main.js');
    const ticketsPid = childRunning(stack.pid, 'subgraphs/tickets/main.js');
    const { graph, token, branchId } = await benchVenue(stack.gatewayUrl, {
      who: 'board-sync',
      venue: 'Bench Bakery',
      branch: 'Counter',
    });
    const results: Run[] = [];
    for (let run = 0; run <= runs; run++) {
      const { createBoardDevice } = await graph<{ createBoardDevice: { code: string } }>(
        'mutation ($i: CreateBoardDeviceInput!) { createBoardDevice(input: $i) { code } }',
        { i: { branchId, name: `Counter tablet ${run}` } },
      );
      const { pairBoardDevice } = await gatewayData<{ pairBoardDevice: { secret: string } }>(
        stack.gatewayUrl,
        'mutation ($c: String!) { pairBoardDevice(code: $c) { secret } }',
        { c: createBoardDevice.code },
      );
      const key = pairBoardDevice.secret;
      // The numbers the board leased while it was online, 50 at most a lease.
      const numbers: string[] = [];
      while (numbers.length < TICKETS) {
        const { reserveTicketNumbers } = await gatewayData<{ reserveTicketNumbers: { numbers: string[] } }>(
          stack.gatewayUrl,
          'mutation ($n: Int) { reserveTicketNumbers(count: $n) { numbers day validUntil prefix } }',
          { n: Math.min(50, TICKETS - numbers.length) },
          key,
        );
        numbers.push(...reserveTicketNumbers.numbers);
      }
      const queue = offlineQueue(Date.now());
      if (queue.length !== 500) throw new Error(`the queue holds ${queue.length} operations, not 500`);

      const socket = await BoardSocket.open(stack.gatewayUrl.replace(/^http/, 'ws'), {
        'accept-language': 'en',
        authorization: `Bearer ${key}`,
      });
      const cpuBefore = cpuSeconds(gatewayPid);
      const ticketsBefore = cpuSeconds(ticketsPid);
      const started = performance.now();
      let feedMessages = 0;
      let waitReads = 0;
      let waitReadsRefused = 0;
      let waitTimer: NodeJS.Timeout | undefined;
      const waitsInFlight: Promise<void>[] = [];
      if (feed) {
        // What the board does on every connection before it sends its queue (board.js, start()).
        socket.subscribe(`subscription { branchTicketsUpdated { ${FIELDS} } }`, () => {
          feedMessages += 1;
          waitTimer ??= setTimeout(() => {
            waitTimer = undefined;
            waitReads += 1;
            waitsInFlight.push(
              socket.request(`query { currentBranch { ${WAIT} } }`).then((reply) => {
                if (reply.data == null) waitReadsRefused += 1;
              }),
            );
          }, 1000);
        });
        const first = await socket.request(
          `query { currentBranch { name ${WAIT} } currentBoardDevice { numberPrefix callsWhenOffline } waiting: tickets(perPage: 100, filter: { status: WAITING }) { items { ${FIELDS} } } ready: tickets(perPage: 100, filter: { status: READY }) { items { ${FIELDS} } } }`,
        );
        if (first.data == null)
          throw new Error(`run ${run}: the board's first read: ${JSON.stringify(first)}`);
      }
      const ids: string[] = [];
      for (const [k, change] of queue.entries()) {
        const at = new Date(change.at).toISOString();
        const idempotencyKey = randomUUID();
        let ticket: Ticket | null | undefined;
        if (change.kind === 'create') {
          const input = { number: numbers[change.ticket], customerName: `Guest ${change.ticket + 1}` };
          const reply = await socket.request(CREATE, { i: input, k: idempotencyKey, at });
          ticket = (reply.data?.createTicket as { ticket?: Ticket } | undefined)?.ticket;
          if (ticket === undefined || ticket.status !== 'WAITING')
            throw new Error(`run ${run}, operation ${k + 1} (create): ${JSON.stringify(reply)}`);
          ids[change.ticket] = ticket.id;
        } else {
          const { field, status } = MOVES[change.kind];
          const reply = await socket.request(moveQuery(field), {
            id: ids[change.ticket],
            k: idempotencyKey,
            at,
          });
          ticket = reply.data?.[field] as Ticket | null | undefined;
          if (ticket == null || ticket.status !== status)
            throw new Error(`run ${run}, operation ${k + 1} (${change.kind}): ${JSON.stringify(reply)}`);
        }
      }
      const seconds = (performance.now() - started) / 1000;
      const gatewayCpu = cpuSeconds(gatewayPid) - cpuBefore;
      const ticketsCpu = cpuSeconds(ticketsPid) - ticketsBefore;
      await new Promise((resolve) => setTimeout(resolve, 1500));
      clearTimeout(waitTimer);
      await Promise.all(waitsInFlight);
      socket.close();

      await checkBranch(stack.gatewayUrl, token, branchId, queue, ids, numbers, run);
      const result: Run = {
        seconds: round(seconds, 2),
        operationsPerSecond: round(queue.length / seconds, 1),
        gatewayCpuSeconds: round(gatewayCpu, 2),
        gatewayCpuMsPerOperation: round((gatewayCpu * 1000) / queue.length, 2),
        ticketsCpuSeconds: round(ticketsCpu, 2),
        feedMessages,
        waitReads,
        waitReadsRefused,
      };
      process.stderr.write(`run ${run}${run === 0 ? ' (warming up)' : ''}: ${JSON.stringify(result)}\n`);
      if (run > 0) results.push(result);
    }
    const sample = offlineQueue(Date.now());
    const middle = (pick: (run: Run) => number) => median(results.map(pick));
    console.log(
      JSON.stringify(
        {
          benchmark: 'board-sync',
          operations: 500,
          queue: Object.fromEntries(
            (['create', 'ready', 'collected', 'cancel'] as const).map((kind) => [
              kind,
              sample.filter((change) => change.kind === kind).length,
            ]),
          ),
          feed,
          runs,
          seconds: middle((r) => r.seconds),
          operationsPerSecond: middle((r) => r.operationsPerSecond),
          gatewayCpuSeconds: middle((r) => r.gatewayCpuSeconds),
          gatewayCpuMsPerOperation: middle((r) => r.gatewayCpuMsPerOperation),
          ticketsCpuSeconds: middle((r) => r.ticketsCpuSeconds),
          budgets: { boardSyncRateLimit: config.boardSyncRateLimit, boardRateLimit: config.boardRateLimit },
          byRun: results,
        },
        null,
        2,
      ),
    );
  } finally {
    await stack.stop();
  }
}

/** The branch as the owner's panel reads it: each of this run's tickets with the status and moments sent. */
async function checkBranch(
  gatewayUrl: string,
  token: string,
  branchId: string,
  queue: Change[],
  ids: string[],
  numbers: string[],
  run: number,
): Promise<void> {
  const held = new Map<string, Ticket>();
  for (let page = 1; ; page++) {
    const response = await fetch(gatewayUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${token}`,
        [BRANCH_HEADER]: branchId,
      },
      body: JSON.stringify({
        query:
          'query ($p: Int!) { tickets(page: $p, perPage: 100) { total lastPage items { id number status createdAt readyAt collectedAt cancelledAt } } }',
        variables: { p: page },
      }),
    });
    const body = (await response.json()) as {
      data?: { tickets: { total: number; lastPage: number; items: Ticket[] } };
      errors?: unknown;
    };
    if (body.data === undefined) throw new Error(`run ${run}: reading the branch: ${JSON.stringify(body)}`);
    for (const ticket of body.data.tickets.items) held.set(ticket.id, ticket);
    if (page >= body.data.tickets.lastPage) break;
  }
  if (held.size !== TICKETS * (run + 1))
    throw new Error(`run ${run}: the branch holds ${held.size} tickets, not ${TICKETS * (run + 1)}`);
  const iso = (at: number | undefined) => (at === undefined ? null : new Date(at).toISOString());
  for (const [i, id] of ids.entries()) {
    const moment = (kind: Change['kind']) => iso(queue.find((c) => c.ticket === i && c.kind === kind)?.at);
    const moves = fateOf(i).map((move) => move.kind);
    const last = moves.at(-1)!;
    const expected = {
      number: numbers[i],
      status: MOVES[last].status,
      createdAt: moment('create'),
      readyAt: moment('ready'),
      collectedAt: moment('collected'),
      cancelledAt: moment('cancel'),
    };
    const ticket = held.get(id);
    const got = ticket && {
      number: ticket.number,
      status: ticket.status,
      createdAt: ticket.createdAt,
      readyAt: ticket.readyAt,
      collectedAt: ticket.collectedAt,
      cancelledAt: ticket.cancelledAt,
    };
    if (JSON.stringify(got) !== JSON.stringify(expected))
      throw new Error(
        `run ${run}: ticket ${i + 1} is ${JSON.stringify(got)}, not ${JSON.stringify(expected)}`,
      );
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
