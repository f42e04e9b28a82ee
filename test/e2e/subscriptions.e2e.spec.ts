import { once } from 'node:events';
import { createClient, type Client } from 'graphql-ws';
import { Redis } from 'ioredis';
import WebSocket from 'ws';
import { accessChannel, bearerFingerprint } from '../../contracts/tickets/access-change';
import { startEvents, type RunningEvents } from '../../subgraphs/tickets/events/events';
import { createTestDatabase, type TestDatabase } from '../support/database';
import {
  admin,
  newTicketBranch,
  platformEnv,
  startPlatform,
  type Platform,
  type TicketBranch,
} from '../support/platform';
import { freePorts, startProcess } from '../support/processes';
import { TcpProxy } from '../support/tcp-proxy';
import { waitUntil } from '../support/wait';

/** A result as graphql-ws's client hands it over. */
type Result = Parameters<Parameters<Client['subscribe']>[1]['next']>[0];

interface Subscriber {
  received: Result[];
  client: Client;
  completed: () => boolean;
  close(): Promise<void>;
}

const TICKET_FIELDS = '__typename id number status statusText ringCount readyAt updatedAt';

describe('live ticket subscriptions over graphql-ws, fed through Redis, on real processes', () => {
  let database: TestDatabase;
  let platform: Platform;
  let events: RunningEvents;
  let branch: TicketBranch;

  beforeAll(async () => {
    database = await createTestDatabase();
    platform = await startPlatform(database);
    events = await startEvents(platform.config);
    branch = await newTicketBranch(platform.config);
  });

  afterAll(async () => {
    await events?.stop();
    await platform?.stop();
    await database.drop();
  });

  const wsUrl = (graphqlUrl: string) => graphqlUrl.replace(/^http/, 'ws');

  const post = async (path: string, body: unknown = {}, key = branch.key) => {
    const response = await fetch(`${platform.restUrl}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  const subscribers = async (graphqlUrl: string) => {
    const response = await fetch(graphqlUrl.replace(/\/graphql$/, '/healthz'));
    return ((await response.json()) as { subscribers: number }).subscribers;
  };

  /** Subscribes and returns once the gateway counts the subscription, so no event can slip past. */
  async function subscribe(
    graphqlUrl: string,
    query: string,
    variables: Record<string, unknown>,
    connectionParams: Record<string, unknown> = {},
  ): Promise<Subscriber> {
    const before = await subscribers(graphqlUrl);
    const client = createClient({
      url: wsUrl(graphqlUrl),
      webSocketImpl: WebSocket,
      connectionParams,
      retryAttempts: 0,
    });
    const received: Result[] = [];
    let completed = false;
    const dispose = client.subscribe(
      { query, variables },
      {
        next: (result) => received.push(result),
        error: () => (completed = true),
        complete: () => (completed = true),
      },
    );
    await waitUntil(
      async () => completed || (await subscribers(graphqlUrl)) > before,
      10_000,
      'the subscription',
    );
    return {
      received,
      client,
      completed: () => completed,
      close: async () => {
        dispose();
        await client.dispose();
      },
    };
  }

  const createTicket = async (body: Record<string, unknown> = {}, key = branch.key) => {
    const created = await post('/tickets', body, key);
    expect(created.status).toBe(201);
    return created.body as { id: number; token: string };
  };

  it('gives a customer subscribed by token READY after POST ready, and every ring, in their language', async () => {
    const ticket = await createTicket({ number: 'A-17' });
    const customer = await subscribe(
      platform.gatewayUrl,
      `subscription ($token: String!) { ticketUpdated(token: $token) { ${TICKET_FIELDS} } }`,
      { token: ticket.token },
      { 'Accept-Language': 'ar' },
    );
    try {
      const metrics = await (
        await fetch(`http://127.0.0.1:${platform.ports.gateway.metricsPort}/metrics`)
      ).text();
      expect(metrics).toMatch(/^nida_live_sockets [1-9]/m);
      expect(metrics).toMatch(/^nida_live_subscriptions\{field="ticketUpdated"\} [1-9]/m);
      expect((await post(`/tickets/${ticket.id}/ready`)).status).toBe(200);
      await waitUntil(() => customer.received.length >= 1, 10_000, 'the READY message');
      expect(customer.received[0]).toEqual({
        data: {
          ticketUpdated: {
            __typename: 'Ticket',
            id: String(ticket.id),
            number: 'A-17',
            status: 'READY',
            statusText: 'جاهز',
            ringCount: 1,
            readyAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) as unknown,
            updatedAt: expect.any(String) as unknown,
          },
        },
      });
      await database.query(
        `update tickets.tickets set last_alert_at = now() - interval '31 seconds' where id = $1`,
        [ticket.id],
      );
      expect((await post(`/tickets/${ticket.id}/ring`)).status).toBe(200);
      await waitUntil(() => customer.received.length >= 2, 10_000, 'the ring message');
      expect(customer.received[1]).toMatchObject({
        data: { ticketUpdated: { ringCount: 2, status: 'READY' } },
      });
    } finally {
      await customer.close();
    }
  });

  it('resolves fields beyond the event through the gateway; the token does not reveal what the business wrote', async () => {
    const ticket = await createTicket({ customer_name: 'Zainab', note: 'no onions' });
    const customer = await subscribe(
      platform.gatewayUrl,
      `subscription Page($token: String!) {
         update: ticketUpdated(token: $token) {
           ...Shown
           note
           branch { name venue { name language plan { key } } }
         }
       }
       fragment Shown on Ticket { number status }`,
      { token: ticket.token },
    );
    try {
      await post(`/tickets/${ticket.id}/ready`);
      await waitUntil(() => customer.received.length >= 1, 10_000, 'the READY message');
      const [result] = customer.received;
      expect(result?.data).toEqual({
        update: {
          number: expect.any(String) as unknown,
          status: 'READY',
          note: null,
          branch: {
            name: 'Counter 1',
            venue: { name: 'Samarra Grill', language: 'ar', plan: { key: 'growth' } },
          },
        },
      });
      expect(result?.errors).toEqual([
        expect.objectContaining({
          path: ['update', 'note'],
          extensions: expect.objectContaining({ code: 'FORBIDDEN' }) as unknown,
        }),
      ]);
    } finally {
      await customer.close();
    }
  });

  it('answers an unknown token with NOT_FOUND instead of a silent stream', async () => {
    const customer = await subscribe(
      platform.gatewayUrl,
      'subscription { ticketUpdated(token: "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA") { status } }',
      {},
    );
    try {
      await waitUntil(() => customer.completed(), 10_000, 'the error');
      expect(customer.received).toEqual([
        expect.objectContaining({
          errors: [
            expect.objectContaining({ message: 'Ticket not found.', extensions: { code: 'NOT_FOUND' } }),
          ],
        }),
      ]);
    } finally {
      await customer.close();
    }
  });

  it('closes a connection_init with a bad key with 4403, and refuses the branch stream without a key', async () => {
    const socket = new WebSocket(wsUrl(platform.gatewayUrl), 'graphql-transport-ws');
    await once(socket, 'open');
    socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization: 'Bearer not-a-key' } }));
    const [code, reason] = (await once(socket, 'close')) as [number, Buffer];
    expect(code).toBe(4403);
    expect(reason.toString()).toBe('Forbidden');

    const anonymous = await subscribe(
      platform.gatewayUrl,
      'subscription { branchTicketsUpdated { id } }',
      {},
    );
    try {
      await waitUntil(() => anonymous.completed(), 10_000, 'the error');
      expect(anonymous.received[0]?.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    } finally {
      await anonymous.close();
    }
  });

  it('streams every change of the key’s branch and nothing of another branch', async () => {
    const other = await newTicketBranch(platform.config);
    const desk = await subscribe(
      platform.gatewayUrl,
      'subscription { branchTicketsUpdated { id status customerName branchId } }',
      {},
      { authorization: `Bearer ${branch.key}` },
    );
    try {
      await createTicket({}, other.key);
      const mine = await createTicket({ customer_name: 'Ali' });
      await post(`/tickets/${mine.id}/cancel`);
      await waitUntil(() => desk.received.length >= 2, 10_000, 'two branch messages');
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(desk.received.map((r) => r.data)).toEqual([
        {
          branchTicketsUpdated: {
            id: String(mine.id),
            status: 'WAITING',
            customerName: 'Ali',
            branchId: String(branch.branchId),
          },
        },
        {
          branchTicketsUpdated: {
            id: String(mine.id),
            status: 'CANCELLED',
            customerName: 'Ali',
            branchId: String(branch.branchId),
          },
        },
      ]);
    } finally {
      await desk.close();
    }
  });

  it('closes the sockets of a key once it is revoked, named by its fingerprint so the venue’s other credentials are not checked again', async () => {
    const doomed = await newTicketBranch(platform.config);
    const listener = new Redis(platformEnv(platform.config).REDIS_URL!);
    const announced: string[] = [];
    listener.on('message', (_channel: string, message: string) => announced.push(message));
    await listener.subscribe(accessChannel(platform.config.redisPrefix));
    try {
      const socket = new WebSocket(wsUrl(platform.gatewayUrl), 'graphql-transport-ws');
      await once(socket, 'open');
      socket.send(
        JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${doomed.key}` } }),
      );
      const [ack] = (await once(socket, 'message')) as [Buffer];
      // The acknowledgement carries the gateway's clock, which an offline board corrects its own by.
      const acknowledged = JSON.parse(ack.toString()) as { type: string; payload: { serverTime: string } };
      expect(acknowledged.type).toBe('connection_ack');
      expect(Object.keys(acknowledged.payload)).toEqual(['serverTime']);
      expect(Math.abs(Date.parse(acknowledged.payload.serverTime) - Date.now())).toBeLessThan(5_000);
      const closed = once(socket, 'close') as Promise<[number, Buffer]>;
      const printed = await admin<Record<string, unknown>>(
        platform.config,
        'key',
        'revoke',
        '--id',
        String(doomed.keyId),
      );
      // The operator sees the key and when it was revoked, not what the processes were told.
      expect(Object.keys(printed).sort()).toEqual(['id', 'revoked_at']);
      const [code] = await closed;
      expect(code).toBe(4403);
      const revocation = () =>
        announced.map((m) => JSON.parse(m) as { keyId?: number }).find((c) => c.keyId === doomed.keyId);
      await waitUntil(() => revocation() !== undefined, 10_000, 'the revocation announced');
      expect(revocation()).toEqual({
        keyId: doomed.keyId,
        venueId: doomed.venueId,
        keyFingerprint: bearerFingerprint(`Bearer ${doomed.key}`),
      });
    } finally {
      listener.disconnect();
    }
  });

  it('runs queries sent over the socket through the gateway', async () => {
    const ticket = await createTicket({ number: 'Q-1' });
    const client = createClient({
      url: wsUrl(platform.gatewayUrl),
      webSocketImpl: WebSocket,
      retryAttempts: 0,
    });
    try {
      const result = await new Promise<Result>((resolve, reject) => {
        let value: Result | undefined;
        client.subscribe(
          {
            query: 'query ($t: String!) { ticketByToken(token: $t) { number status } }',
            variables: { t: ticket.token },
          },
          { next: (r) => (value = r), error: reject, complete: () => resolve(value!) },
        );
      });
      expect(result).toEqual({ data: { ticketByToken: { number: 'Q-1', status: 'WAITING' } } });
    } finally {
      await client.dispose();
    }
  });

  it('answers a query sent right after a subscription on one socket only once the subscription listens, as a page’s refetch after a reconnect needs', async () => {
    // A gateway whose Redis is slow to acknowledge a SUBSCRIBE: its first subscription's join waits
    // that long, and a page's refetch answered meanwhile would be older than what it listens for.
    const redisUrl = new URL(platformEnv(platform.config).REDIS_URL!);
    const proxy = new TcpProxy({ host: redisUrl.hostname, port: Number(redisUrl.port) }, (chunk) =>
      /subscribe/i.test(chunk.toString('latin1')) ? 400 : 0,
    );
    redisUrl.port = String(await proxy.listen());
    const [port] = (await freePorts(1)) as [number];
    const url = `http://127.0.0.1:${port}/graphql`;
    const slow = await startProcess(
      'gateway/main.js',
      platformEnv(platform.config, { GATEWAY_PORT: String(port), REDIS_URL: redisUrl.toString() }),
      url.replace('/graphql', '/readyz'),
    );
    const ticket = await createTicket();
    const socket = new WebSocket(wsUrl(url), 'graphql-transport-ws');
    try {
      const messages: { id?: string; type: string; payload?: unknown }[] = [];
      socket.on('message', (data: Buffer) => messages.push(JSON.parse(data.toString()) as { type: string }));
      await once(socket, 'open');
      socket.send(JSON.stringify({ type: 'connection_init', payload: {} }));
      await waitUntil(() => messages.some((m) => m.type === 'connection_ack'), 5_000, 'the ack');
      const send = (id: string, query: string) =>
        socket.send(
          JSON.stringify({ id, type: 'subscribe', payload: { query, variables: { t: ticket.token } } }),
        );
      send('1', 'subscription ($t: String!) { ticketUpdated(token: $t) { status } }');
      send('2', 'query ($t: String!) { ticketByToken(token: $t) { status } }');
      await waitUntil(
        () => messages.some((m) => m.id === '2' && m.type === 'complete'),
        5_000,
        'the refetch',
      );
      const listening = await subscribers(url);
      expect(messages.filter((m) => m.id === '2')).toEqual([
        { id: '2', type: 'next', payload: { data: { ticketByToken: { status: 'WAITING' } } } },
        { id: '2', type: 'complete' },
      ]);
      expect(listening).toBe(1);
      await post(`/tickets/${ticket.id}/ready`);
      await waitUntil(() => messages.some((m) => m.id === '1'), 10_000, 'the READY event');
      expect(messages.filter((m) => m.id === '1')).toEqual([
        { id: '1', type: 'next', payload: { data: { ticketUpdated: { status: 'READY' } } } },
      ]);
    } finally {
      socket.close();
      await slow.stop();
      await proxy.close();
    }
  });

  it('delivers to a subscriber on a second gateway process a change made through the first', async () => {
    const [port] = (await freePorts(1)) as [number];
    const secondUrl = `http://127.0.0.1:${port}/graphql`;
    const second = await startProcess(
      'gateway/main.js',
      platformEnv(platform.config, { GATEWAY_PORT: String(port) }),
      secondUrl.replace('/graphql', '/readyz'),
    );
    try {
      const ticket = await createTicket();
      const customer = await subscribe(
        secondUrl,
        'subscription ($token: String!) { ticketUpdated(token: $token) { id status } }',
        { token: ticket.token },
      );
      try {
        // The REST adapter talks to the first gateway only.
        expect(new URL(platform.config.gatewayUrl).port).not.toBe(String(port));
        await post(`/tickets/${ticket.id}/ready`);
        await waitUntil(
          () => customer.received.length >= 1,
          10_000,
          'the READY message on the second gateway',
        );
        expect(customer.received[0]).toEqual({
          data: { ticketUpdated: { id: String(ticket.id), status: 'READY' } },
        });
      } finally {
        await customer.close();
      }
    } finally {
      await second.stop();
    }
  });
});
