import type WebSocket from 'ws';
import { subscribeToTicket } from './ticket-subscriber';

/**
 * A pool of graphql-ws subscribers for the events benchmark, in a process of its own, so the
 * platform's and the floor's subscribers can stay connected side by side (one process may not hold
 * 20,000 sockets here) and their rounds alternate. The bench forks one pool per server and drives
 * it over IPC:
 *
 *   { type: 'arm' }   forget the last round; answered `{ type: 'armed' }`
 *   { type: 'stop' }  close every socket and exit
 *
 * and the pool reports `{ type: 'ready' }` once all are subscribed and `{ type: 'arrived', at }`
 * (each subscriber's first `next` frame since the last arm, as `performance.timeOrigin + now()`,
 * a clock the bench shares) once all have one.
 *
 *   node dist/bench/events-subscribers.js <ws url> <ticket token> <subscribers>
 */

/** What the pool reports to the bench. */
export type PoolReport = { type: 'ready' } | { type: 'armed' } | { type: 'arrived'; at: number[] };

/** What the bench asks of the pool. */
export type PoolCommand = { type: 'arm' } | { type: 'stop' };

const SUBSCRIPTION =
  'subscription ($token: String!) { ticketUpdated(token: $token) { id status ringCount updatedAt } }';
const CONNECT_BATCH = 250;

const [url = '', token = '', count = '0'] = process.argv.slice(2);
const n = Number(count);
const sockets: WebSocket[] = [];
let arrived = new Array<number>(n).fill(-1);
let received = 0;

const report = (message: PoolReport) => process.send?.(message);

async function connectOne(index: number): Promise<void> {
  const { socket, subscribed } = subscribeToTicket(url, SUBSCRIPTION, token, () => {
    if (arrived[index] !== -1) return;
    arrived[index] = performance.timeOrigin + performance.now();
    received += 1;
    if (received === n) report({ type: 'arrived', at: arrived });
  });
  sockets[index] = socket;
  await subscribed;
}

async function main(): Promise<void> {
  for (let first = 0; first < n; first += CONNECT_BATCH) {
    const batch = [];
    for (let i = first; i < Math.min(n, first + CONNECT_BATCH); i++) batch.push(connectOne(i));
    await Promise.all(batch);
  }
  process.on('message', (command: PoolCommand) => {
    if (command.type === 'arm') {
      arrived = new Array<number>(n).fill(-1);
      received = 0;
      report({ type: 'armed' });
    } else {
      for (const socket of sockets) socket.terminate();
      process.disconnect();
    }
  });
  report({ type: 'ready' });
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
