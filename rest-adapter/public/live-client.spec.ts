import { EventEmitter, on } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { createContext, Script } from 'node:vm';
import { GraphQLNonNull, GraphQLObjectType, GraphQLSchema, GraphQLString } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocket, WebSocketServer } from 'ws';
import { projectRoot } from '../../common/paths';
import { waitUntil } from '../../test/support/wait';
import { loopbackUrl } from '../../test/support/loopback';

/** What `assets/live.js` takes and gives, as the pages use it. */
interface LiveOptions {
  url: string;
  params?: () => Record<string, unknown>;
  refetch?: () => void;
  onStatus?: (status: 'connecting' | 'live' | 'offline', info?: { code: number; delay: number }) => void;
  onClose?: (code: number) => number | undefined;
  offlineError?: string;
  heartbeat?: number;
  backoff?: { first: number; max: number };
  ackResetsBackoff?: boolean;
}
interface LiveResult {
  data?: Record<string, unknown>;
  errors?: { message: string }[];
}
interface LiveClient {
  connect(): void;
  reconnect(): void;
  drop(): void;
  stop(): void;
  resetBackoff(): void;
  isLive(): boolean;
  subscribe(
    query: string,
    variables: Record<string, unknown>,
    handlers: {
      next?: (payload: LiveResult) => void;
      error?: (errors: unknown[]) => void;
      complete?: () => void;
    },
  ): { stop(): void };
  request(query: string, variables?: Record<string, unknown>): Promise<LiveResult>;
}

/**
 * The real browser script, run as a page runs it: a script whose `window` is its global, with the
 * `ws` package's WebSocket standing in for the browser's and Node's own timers.
 */
function loadLiveClient(): (options: LiveOptions) => LiveClient {
  const file = join(projectRoot(), 'rest-adapter', 'public', 'assets', 'live.js');
  const globals: Record<string, unknown> = {
    WebSocket,
    setTimeout,
    clearTimeout,
    setInterval,
    clearInterval,
  };
  globals.window = globals;
  new Script(readFileSync(file, 'utf8'), { filename: file }).runInContext(createContext(globals));
  return globals.liveClient as (options: LiveOptions) => LiveClient;
}

const SUBSCRIPTION = 'subscription { statusChanged }';
const REFETCH = '{ status }';
/** Short steps, so a run of retries takes a fraction of a second. */
const BACKOFF = { first: 40, max: 160 };

/** How the server answers a connection_init: admit it, kill the socket, or close it with a code. */
type Admission = 'accept' | 'kill' | number;

/**
 * A real graphql-ws server on a free loopback port: a ticket-like status, read by a query and
 * announced by a subscription, with hooks for the faults a page meets.
 */
async function startServer() {
  const events = new EventEmitter();
  let status = 'WAITING';
  let releaseSlow: () => void = () => undefined;
  const slow = new Promise<string>((resolve) => (releaseSlow = () => resolve('late')));
  const schema = new GraphQLSchema({
    query: new GraphQLObjectType({
      name: 'Query',
      fields: {
        status: { type: new GraphQLNonNull(GraphQLString), resolve: () => status },
        slow: { type: GraphQLString, resolve: () => slow },
      },
    }),
    subscription: new GraphQLObjectType({
      name: 'Subscription',
      fields: {
        statusChanged: {
          type: new GraphQLNonNull(GraphQLString),
          subscribe: () => on(events, 'status'),
          resolve: ([value]: [string]) => value,
        },
      },
    }),
  });
  const http = createServer();
  const wss = new WebSocketServer({ server: http });
  const attemptOf = new WeakMap<object, number>();
  const server = {
    /** connection_inits in order: when, and with what parameters. */
    attempts: [] as { at: number; params: unknown }[],
    /** Operations as they arrived, by the 1-based attempt whose socket carried them. */
    operations: [] as { attempt: number; query: string }[],
    pongs: 0,
    admit: (_attempt: number): Admission => 'accept',
    /** Whether the attempt's socket leaves the client's pings unanswered (a link gone dead). */
    silent: (_attempt: number) => false,
    url: '',
    setStatus(next: string) {
      status = next;
      events.emit('status', next);
    },
    subscribers: () => events.listenerCount('status'),
    kill: () => wss.clients.forEach((socket) => socket.terminate()),
    closeAll: (code: number) => wss.clients.forEach((socket) => socket.close(code, 'closed by the test')),
    ping: () => wss.clients.forEach((socket) => socket.send(JSON.stringify({ type: 'ping' }))),
    async stop() {
      releaseSlow();
      await disposable.dispose();
      await new Promise((resolve) => http.close(resolve));
    },
  };
  const disposable = useServer(
    {
      schema,
      onConnect: (ctx) => {
        const attempt = server.attempts.push({ at: Date.now(), params: ctx.connectionParams });
        attemptOf.set(ctx.extra.socket, attempt);
        const admission = server.admit(attempt);
        if (admission === 'kill') ctx.extra.socket.terminate();
        else if (admission !== 'accept') ctx.extra.socket.close(admission, 'refused by the test');
        return admission === 'accept';
      },
      onSubscribe: (ctx, _id, payload) => {
        server.operations.push({ attempt: attemptOf.get(ctx.extra.socket) ?? 0, query: payload.query });
      },
      onPing: async (ctx) => {
        if (!server.silent(attemptOf.get(ctx.extra.socket) ?? 0)) return;
        await new Promise((resolve) => ctx.extra.socket.once('close', resolve));
      },
      onPong: () => {
        server.pongs += 1;
      },
    },
    wss,
    // No ws-level keep-alive: only the protocol's own pings are under test.
    0,
  );
  server.url = `${await loopbackUrl(http, 'ws')}/graphql`;
  return server;
}

type Server = Awaited<ReturnType<typeof startServer>>;
type Seen = { status: string; at: number; code?: number; delay?: number };

describe('the public pages’ live client (assets/live.js) against a real graphql-ws server', () => {
  const liveClient = loadLiveClient();
  let server: Server;
  let clients: LiveClient[];

  beforeEach(async () => {
    server = await startServer();
    clients = [];
  });

  afterEach(async () => {
    clients.forEach((client) => client.stop());
    await server.stop();
  });

  /** A client with short backoff steps that records its statuses, as a page's banner would follow them. */
  function open(options: Partial<LiveOptions> = {}): { client: LiveClient; seen: Seen[] } {
    const seen: Seen[] = [];
    const client = liveClient({
      url: server.url,
      backoff: BACKOFF,
      ...options,
      onStatus: (status, info) => seen.push({ status, at: Date.now(), ...info }),
    });
    clients.push(client);
    return { client, seen };
  }

  const until = (condition: () => boolean, what: string) => waitUntil(condition, 3_000, what);
  const statuses = (seen: Seen[]) => seen.map((entry) => entry.status);

  it('sends the page’s connection params, delivers its subscription’s events and answers its requests', async () => {
    const { client, seen } = open({
      params: () => ({ 'accept-language': 'ar', authorization: 'Bearer bd_test' }),
    });
    const events: string[] = [];
    const feed = client.subscribe(
      SUBSCRIPTION,
      {},
      {
        next: (payload) => events.push(String(payload.data?.statusChanged)),
      },
    );
    client.connect();
    await until(() => server.subscribers() === 1, 'the subscription at the server');

    expect(server.attempts.map((attempt) => attempt.params)).toEqual([
      { 'accept-language': 'ar', authorization: 'Bearer bd_test' },
    ]);
    expect(statuses(seen)).toEqual(['connecting', 'live']);
    expect(client.isLive()).toBe(true);
    server.setStatus('READY');
    server.setStatus('COLLECTED');
    await until(() => events.length === 2, 'both events');
    expect(events).toEqual(['READY', 'COLLECTED']);

    expect(await client.request(REFETCH)).toEqual({ data: { status: 'COLLECTED' } });
    const refused = await client.request('{ nothing }');
    expect(refused.errors?.[0]?.message).toMatch(/Cannot query field "nothing"/);

    feed.stop();
    await until(() => server.subscribers() === 0, 'the subscription’s end at the server');
  });

  it('goes offline when the socket is killed, retries after growing capped delays, then resubscribes, refetches and is live again', async () => {
    const refetched: string[] = [];
    const events: string[] = [];
    const { client, seen } = open({
      refetch: () => {
        void client.request(REFETCH).then((result) => refetched.push(String(result.data?.status)));
      },
    });
    client.subscribe(
      SUBSCRIPTION,
      {},
      { next: (payload) => events.push(String(payload.data?.statusChanged)) },
    );
    client.connect();
    await until(() => refetched.length === 1, 'the first refetch');

    // The line goes down: the live socket is killed and the next four attempts are killed too.
    server.admit = (attempt) => (attempt >= 2 && attempt <= 5 ? 'kill' : 'accept');
    server.kill();
    await until(() => statuses(seen).includes('offline'), 'the offline status');
    expect(client.isLive()).toBe(false);
    // A change while offline reaches no subscriber: only the refetch can bring it.
    server.setStatus('READY');
    await until(() => refetched.length === 2, 'the refetch after reconnecting');

    expect(refetched).toEqual(['WAITING', 'READY']);
    expect(server.attempts).toHaveLength(6);
    const offline = seen.filter((entry) => entry.status === 'offline');
    const delays = offline.map((entry) => entry.delay!);
    expect(offline.map((entry) => entry.code)).toEqual([1006, 1006, 1006, 1006, 1006]);
    // Doubling from the first step, up to the cap, each jittered down by at most half.
    delays.forEach((delay, retry) => {
      const step = Math.min(BACKOFF.max, BACKOFF.first * 2 ** retry);
      expect(delay).toBeGreaterThanOrEqual(step / 2);
      expect(delay).toBeLessThanOrEqual(step);
    });
    expect(delays[1]!).toBeGreaterThanOrEqual(delays[0]!);
    expect(delays[2]!).toBeGreaterThanOrEqual(delays[1]!);
    expect(Math.max(...delays)).toBeLessThanOrEqual(BACKOFF.max);
    // Each retry really waited its delay (a timer may fire a millisecond early).
    offline.forEach((entry, retry) => {
      expect(server.attempts[retry + 1]!.at - entry.at).toBeGreaterThanOrEqual(entry.delay! - 2);
    });
    expect(statuses(seen).slice(-2)).toEqual(['connecting', 'live']);

    // Subscribed again before the refetch on the new socket, and only once.
    expect(server.operations.filter((operation) => operation.attempt === 6).map((o) => o.query)).toEqual([
      SUBSCRIPTION,
      REFETCH,
    ]);
    expect(server.subscribers()).toBe(1);
    server.setStatus('COLLECTED');
    await until(() => events.includes('COLLECTED'), 'an event on the new socket');
    expect(events).toEqual(['COLLECTED']);

    // An acknowledged socket starts the backoff over from its first step.
    server.kill();
    await until(() => seen.filter((entry) => entry.status === 'offline').length === 6, 'the next loss');
    expect(seen.filter((entry) => entry.status === 'offline').at(-1)!.delay).toBeLessThanOrEqual(
      BACKOFF.first,
    );
  });

  it('answers a request asked offline, or cut off by a lost socket, with the page’s offline message', async () => {
    const { client } = open({ offlineError: 'Not sent: offline' });
    expect(await client.request(REFETCH)).toEqual({ errors: [{ message: 'Not sent: offline' }] });
    client.connect();
    await until(() => client.isLive(), 'the live socket');
    const inFlight = client.request('{ slow }');
    await until(() => server.operations.length === 1, 'the request at the server');
    server.kill();
    expect(await inFlight).toEqual({ errors: [{ message: 'Not sent: offline' }] });
  });

  it('stays closed when the page stops on a close code, as a revoked display does on 4403', async () => {
    const codes: number[] = [];
    const { client, seen } = open({
      onClose: (code) => {
        codes.push(code);
        if (code === 4403) client.stop();
        return undefined;
      },
    });
    client.connect();
    await until(() => client.isLive(), 'the live socket');
    server.closeAll(4403);
    await until(() => codes.length === 1, 'the close');
    client.connect();
    await new Promise((resolve) => setTimeout(resolve, 3 * BACKOFF.max));

    expect(codes).toEqual([4403]);
    expect(server.attempts).toHaveLength(1);
    expect(statuses(seen)).toEqual(['connecting', 'live']);
  });

  it('retries at once, without a backoff step, when the page answers a delay for a close code (4205)', async () => {
    const { client, seen } = open({
      ackResetsBackoff: false,
      onClose: (code) => (code === 4205 ? 0 : undefined),
    });
    client.connect();
    await until(() => client.isLive(), 'the live socket');
    server.closeAll(4205);
    await until(() => server.attempts.length === 2 && client.isLive(), 'the second live socket');
    server.kill();
    await until(() => server.attempts.length === 3, 'the third socket');

    const offline = seen.filter((entry) => entry.status === 'offline');
    expect(offline.map((entry) => [entry.code, entry.delay === 0])).toEqual([
      [4205, true],
      [1006, false],
    ]);
    // The first backoff step still: the 4205 retry did not count, and no ack reset it here.
    expect(offline[1]!.delay).toBeLessThanOrEqual(BACKOFF.first);
  });

  it('starts over at once with new params when the page reconnects on a close, as a board sent back to pairing does', async () => {
    let credential: string | null = 'bd_revoked';
    const { client, seen } = open({
      params: () => (credential === null ? {} : { authorization: `Bearer ${credential}` }),
      onClose: (code) => {
        if (code === 4403) {
          credential = null;
          client.reconnect();
        }
        return undefined;
      },
    });
    client.connect();
    await until(() => client.isLive(), 'the live socket');
    server.closeAll(4403);
    await until(() => server.attempts.length === 2 && client.isLive(), 'the socket without a credential');

    expect(server.attempts.map((attempt) => attempt.params)).toEqual([
      { authorization: 'Bearer bd_revoked' },
      {},
    ]);
    expect(statuses(seen)).toEqual(['connecting', 'live', 'connecting', 'live']);
  });

  it('answers the server’s pings, and gives up a socket whose own pings go unanswered', async () => {
    server.silent = (attempt) => attempt === 1;
    const { client, seen } = open({ heartbeat: 100 });
    client.connect();
    await until(() => client.isLive(), 'the live socket');
    server.ping();
    await until(() => server.pongs === 1, 'the client’s pong');

    await until(() => server.attempts.length === 2 && client.isLive(), 'a new socket after the silence');
    expect(seen.filter((entry) => entry.status === 'offline').map((entry) => entry.code)).toEqual([1006]);
  });

  it('keeps backing off past acknowledged sockets until the page says a connection is whole', async () => {
    const { client, seen } = open({ ackResetsBackoff: false });
    client.connect();
    await until(() => client.isLive(), 'the live socket');
    server.kill();
    await until(() => server.attempts.length === 2 && client.isLive(), 'the second socket');
    server.kill();
    await until(() => server.attempts.length === 3 && client.isLive(), 'the third socket');
    client.resetBackoff();
    server.kill();
    await until(() => server.attempts.length === 4, 'the fourth socket');

    const delays = seen.filter((entry) => entry.status === 'offline').map((entry) => entry.delay!);
    expect(delays[1]!).toBeGreaterThanOrEqual(BACKOFF.first);
    expect(delays[2]!).toBeLessThanOrEqual(BACKOFF.first);
  });
});
