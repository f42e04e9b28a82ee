import { once } from 'node:events';
import WebSocket from 'ws';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { newTicketBranch, startPlatform, type Platform } from '../support/platform';

const MAX_SOCKETS = 3;
const MAX_OPERATIONS = 2;

/** A graphql-transport-ws socket from `localAddress`, acknowledged, or closed with a code. */
async function open(
  url: string,
  localAddress: string,
): Promise<{ socket: WebSocket; closed: Promise<number> }> {
  const socket = new WebSocket(url, 'graphql-transport-ws', { localAddress });
  const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
  await once(socket, 'open');
  socket.send(JSON.stringify({ type: 'connection_init', payload: {} }));
  await Promise.race([
    new Promise<void>((resolve) =>
      socket.on('message', (data: Buffer) => {
        if ((JSON.parse(data.toString()) as { type: string }).type === 'connection_ack') resolve();
      }),
    ),
    closed,
  ]);
  return { socket, closed };
}

/** How a socket ended within two seconds, or that it did not. */
function closeCodeOf(closed: Promise<number>): Promise<number | 'still open'> {
  return Promise.race([
    closed,
    new Promise<'still open'>((resolve) => setTimeout(() => resolve('still open'), 2_000)),
  ]);
}

describe('what one client may hold open on the live server', () => {
  let database: TestDatabase;
  let platform: Platform;
  let url: string;
  let token: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    platform = await startPlatform(database, {
      LIVE_MAX_SOCKETS_PER_ADDRESS: String(MAX_SOCKETS),
      LIVE_MAX_OPERATIONS_PER_SOCKET: String(MAX_OPERATIONS),
    });
    url = platform.gatewayUrl.replace(/^http/, 'ws');
    const branch = await newTicketBranch(platform.config);
    const created = await fetch(`${platform.restUrl}/tickets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${branch.key}`, 'content-type': 'application/json' },
      body: '{}',
    });
    const { public_url: publicUrl } = (await created.json()) as { public_url: string };
    token = new URL(publicUrl).pathname.split('/').pop()!;
  });

  afterAll(async () => {
    await platform?.stop();
    await database.drop();
  });

  it('closes a client address’s socket past LIVE_MAX_SOCKETS_PER_ADDRESS with 4430, and takes one again once one closes', async () => {
    // Each test speaks from a loopback address of its own: the cap is per client address.
    const address = '127.0.0.31';
    const sockets = [];
    for (let i = 0; i < MAX_SOCKETS; i += 1) sockets.push(await open(url, address));
    const extra = await open(url, address);
    expect(await closeCodeOf(extra.closed)).toBe(4430);
    // Another address is not affected.
    const neighbour = await open(url, '127.0.0.32');
    expect(neighbour.socket.readyState).toBe(WebSocket.OPEN);

    sockets[0]!.socket.close();
    await sockets[0]!.closed;
    // The server hears the close a moment after the client does.
    let again = await open(url, address);
    for (let tries = 0; again.socket.readyState !== WebSocket.OPEN && tries < 20; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      again = await open(url, address);
    }
    expect(again.socket.readyState).toBe(WebSocket.OPEN);
    for (const { socket } of [...sockets, neighbour, again]) socket.close();
  });

  it('closes a socket that holds more than LIVE_MAX_OPERATIONS_PER_SOCKET operations with 4431', async () => {
    const { socket, closed } = await open(url, '127.0.0.33');
    const reason = new Promise<string>((resolve) =>
      socket.once('close', (_code, why: Buffer) => resolve(why.toString())),
    );
    const subscribe = (id: number) =>
      socket.send(
        JSON.stringify({
          id: String(id),
          type: 'subscribe',
          payload: {
            query: 'subscription ($t: String!) { ticketUpdated(token: $t) { status } }',
            variables: { t: token },
          },
        }),
      );
    for (let id = 1; id <= MAX_OPERATIONS; id += 1) subscribe(id);
    // The subscriptions stay open; the socket with them.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(socket.readyState).toBe(WebSocket.OPEN);
    subscribe(MAX_OPERATIONS + 1);
    expect(await closeCodeOf(closed)).toBe(4431);
    expect(await reason).toBe('Too many operations on this socket');
  });
});
