import 'reflect-metadata';
import WebSocket from 'ws';
import { startStack } from '../tools/stack';
import { benchEnv, gatewayData } from './bench-stack';
import { flag, percentile } from './load';

/**
 * The venue's screens end to end, on `npm start`'s processes: the time from `POST /tickets/{id}/ready`
 * (through the REST adapter, as a POS sends it) to the READY message at each of N open displays,
 * N open staff boards and one customer page of that ticket, all of one branch, measured in one run.
 *
 *   npm run build && npm run bench:boards -- [--rounds 20] [--displays 50] [--boards 50]
 *
 * Each screen is a graphql-ws client speaking exactly what its page sends: a display subscribes
 * `displayTicketsUpdated(token)` with its own display's token, a board `branchTicketsUpdated` with
 * its own paired device's key, the customer page `ticketUpdated(token)`. The time ends when the
 * message arrives at the socket; drawing it is the browser's (tested in Chromium, not timed here).
 * The clients run in this process, on the same two cores as the stack.
 */

interface Screen {
  kind: 'display' | 'board' | 'customer';
  socket: WebSocket;
  /** Milliseconds from the round's POST to this screen's READY; -1 until it arrives. */
  arrived: number;
}

const DISPLAY = 'subscription ($t: String!) { displayTicketsUpdated(token: $t) { id number status } }';
const BOARD = 'subscription { branchTicketsUpdated { id number status customerName } }';
const CUSTOMER = 'subscription ($t: String!) { ticketUpdated(token: $t) { id number status } }';

async function until(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`${what} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

async function main(): Promise<void> {
  const rounds = flag('rounds', 20);
  const displays = flag('displays', 50);
  const boards = flag('boards', 50);
  const env = benchEnv({
    TICKETS_RATE_LIMIT: '100000000',
    SESSION_RATE_LIMIT: '100000000',
    PUBLIC_WRITE_RATE_LIMIT: '100000000',
    SIGNUP_RATE_LIMIT: '100000000',
  });
  const stack = await startStack(env);
  const wsUrl = stack.gatewayUrl.replace(/^http/, 'ws');
  try {
    let token = '';
    const graph = <T>(query: string, variables: Record<string, unknown> = {}) =>
      gatewayData<T>(stack.gatewayUrl, query, variables, token);
    const email = `bench-owner-${Date.now()}@example.test`;
    token = (
      await graph<{ signUp: { token: string } }>(
        'mutation ($i: SignUpInput!) { signUp(input: $i) { token } }',
        { i: { email, password: 'a long bench passphrase', name: 'Bench owner' } },
      )
    ).signUp.token;
    const venueId = (
      await graph<{ createVenue: { id: string } }>(
        'mutation { createVenue(input: { name: "Bench Grill" }) { id } }',
      )
    ).createVenue.id;
    await graph('mutation ($i: ChangePlanInput!) { changePlan(input: $i) { key } }', {
      i: { venueId, plan: 'growth' },
    });
    const branchId = (
      await graph<{ createBranch: { id: string } }>(
        'mutation ($i: CreateBranchInput!) { createBranch(input: $i) { id } }',
        {
          i: { venueId, name: 'Bench counter' },
        },
      )
    ).createBranch.id;
    const posKey = (
      await graph<{ issueApiKey: { secret: string } }>(
        'mutation ($i: IssueApiKeyInput!) { issueApiKey(input: $i) { secret } }',
        {
          i: { branchId, name: 'Bench POS' },
        },
      )
    ).issueApiKey.secret;
    const displayTokens: string[] = [];
    for (let i = 0; i < displays; i++) {
      const { createDisplay } = await graph<{ createDisplay: { url: string } }>(
        'mutation ($i: CreateDisplayInput!) { createDisplay(input: $i) { url } }',
        { i: { branchId, name: `TV ${i}` } },
      );
      displayTokens.push(createDisplay.url.split('/').at(-1)!);
    }
    const boardKeys: string[] = [];
    for (let i = 0; i < boards; i++) {
      const { createBoardDevice } = await graph<{ createBoardDevice: { code: string } }>(
        'mutation ($i: CreateBoardDeviceInput!) { createBoardDevice(input: $i) { code } }',
        { i: { branchId, name: `Tablet ${i}` } },
      );
      const { pairBoardDevice } = await graph<{ pairBoardDevice: { secret: string } }>(
        'mutation ($c: String!) { pairBoardDevice(code: $c) { secret } }',
        { c: createBoardDevice.code },
      );
      boardKeys.push(pairBoardDevice.secret);
    }
    const post = async (path: string, body: unknown = {}) => {
      const response = await fetch(`${stack.restUrl}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${posKey}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      if (!response.ok) throw new Error(`POST ${path}: ${response.status} ${await response.text()}`);
      return (await response.json()) as { id: number; token: string };
    };

    let roundStart = 0;
    const open = (
      kind: Screen['kind'],
      params: Record<string, unknown>,
      query: string,
      variables: Record<string, unknown>,
    ) =>
      new Promise<Screen>((resolve, reject) => {
        const socket = new WebSocket(wsUrl, 'graphql-transport-ws', { perMessageDeflate: false });
        const screen: Screen = { kind, socket, arrived: -1 };
        socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: params })));
        socket.on('message', (data: Buffer) => {
          if (data.includes('"type":"next"')) {
            if (screen.arrived === -1 && data.includes('"READY"'))
              screen.arrived = performance.now() - roundStart;
            return;
          }
          const message = JSON.parse(data.toString()) as { type: string };
          if (message.type === 'connection_ack') {
            socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query, variables } }));
            resolve(screen);
          } else if (message.type === 'ping') socket.send('{"type":"pong"}');
        });
        socket.on('error', reject);
        socket.on('close', (code) => {
          if (screen.arrived === -1 && code !== 1000) reject(new Error(`${kind} closed ${code}`));
        });
      });

    const screens: Screen[] = [];
    for (const t of displayTokens) screens.push(await open('display', {}, DISPLAY, { t }));
    for (const key of boardKeys)
      screens.push(await open('board', { authorization: `Bearer ${key}` }, BOARD, {}));
    // Subscriptions are acknowledged before they are joined: let the gateway count them all.
    await new Promise((resolve) => setTimeout(resolve, 500));

    const times: Record<Screen['kind'], number[]> = { display: [], board: [], customer: [] };
    for (let round = 0; round <= rounds; round++) {
      const ticket = await post('/tickets', { number: `B-${round}` });
      const customer = await open('customer', {}, CUSTOMER, { t: ticket.token });
      await new Promise((resolve) => setTimeout(resolve, 200));
      const all = [...screens, customer];
      for (const screen of all) screen.arrived = -1;
      roundStart = performance.now();
      await post(`/tickets/${ticket.id}/ready`);
      await until(
        () => all.every((screen) => screen.arrived !== -1),
        30_000,
        `round ${round}: not every screen got READY`,
      );
      customer.socket.close(1000);
      if (round === 0) continue; // warming up, as every benchmark's first round
      for (const screen of all) times[screen.kind].push(screen.arrived);
      await post(`/tickets/${ticket.id}/collected`);
    }
    const summary = (kind: Screen['kind']) => {
      const sorted = [...times[kind]].sort((a, b) => a - b);
      return { messages: sorted.length, p50Ms: percentile(sorted, 50), p99Ms: percentile(sorted, 99) };
    };
    const result = {
      benchmark: 'boards',
      rounds,
      displays,
      boards,
      display: summary('display'),
      board: summary('board'),
      customerPage: summary('customer'),
    };
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    for (const screen of screens) screen.socket.close(1000);
  } finally {
    await stack.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`);
  process.exit(1);
});
