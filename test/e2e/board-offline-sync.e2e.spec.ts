import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { startEvents, type RunningEvents } from '../../subgraphs/tickets/events/events';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { askGraph, bearer, graphData, signUpPerson, type GraphReply, type SignedUp } from '../support/graph';
import { hookReceiver, startPlatform, type Platform } from '../support/platform';
import { awayFromWindowEdge } from '../support/wait';
import { WebhookReceiver } from '../support/webhook-receiver';

const BOARD_BUDGET = 60;
/** What the board page reads of a ticket (rest-adapter/public/assets/board.js), and the times it keeps. */
const FIELDS = 'id number status customerName ringCount readyAt collectedAt cancelledAt createdAt updatedAt';

type Reply = Partial<Pick<GraphReply, 'data' | 'errors'>>;
type Ticket = {
  id: string;
  number: string;
  status: string;
  readyAt: string | null;
  collectedAt: string | null;
  cancelledAt: string | null;
  createdAt: string;
};

/** A board device's graphql-ws socket, as the board page opens it, and one operation on it. */
function deviceSocket(
  url: string,
  key: string,
): { client: Client; send: (query: string, variables?: object) => Promise<Reply> } {
  const client = createClient({
    url: url.replace(/^http/, 'ws'),
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${key}` },
    retryAttempts: 0,
  });
  const send = (query: string, variables: object = {}) =>
    new Promise<Reply>((resolve) => {
      let reply: Reply = {};
      client.subscribe(
        { query, variables: variables as Record<string, unknown> },
        {
          next: (value) => (reply = value as Reply),
          error: (errors) => resolve({ errors: errors as GraphReply['errors'] }),
          complete: () => resolve(reply),
        },
      );
    });
  return { client, send };
}

const CREATE = `mutation ($i: CreateTicketInput!, $k: String, $at: DateTimeISO) {
  createTicket(input: $i, idempotencyKey: $k, occurredAt: $at) { replayed ticket { ${FIELDS} } } }`;
const move = (mutation: string) => `mutation ($id: ID, $k: String, $at: DateTimeISO) {
  ${mutation}(id: $id, idempotencyKey: $k, occurredAt: $at) { ${FIELDS} } }`;

describe('a board’s offline work replayed through the gateway: leased numbers, keyed and dated moves, the sync allowance', () => {
  let database: TestDatabase;
  let platform: Platform;
  let events: RunningEvents;
  let owner: SignedUp;
  let venueId: string;
  let branchId: string;
  const receiver = new WebhookReceiver();

  beforeAll(async () => {
    database = await createTestDatabase();
    platform = await startPlatform(database, { WEBHOOK_ALLOW_INSECURE: 'true' });
    events = await startEvents(platform.config);
    owner = await signUpPerson(platform.gatewayUrl, { email: 'offline@example.test', name: 'Owner' });
    venueId = (
      await asOwner<{ createVenue: { id: string } }>(
        'mutation { createVenue(input: { name: "Samad" }) { id } }',
      )
    ).createVenue.id;
    branchId = (
      await asOwner<{ createBranch: { id: string } }>(
        'mutation ($i: CreateBranchInput!) { createBranch(input: $i) { id } }',
        { i: { venueId, name: 'Counter' } },
      )
    ).createBranch.id;
    await hookReceiver(
      platform.config,
      Number(venueId),
      receiver,
      'ticket.created,ticket.ready,ticket.collected,ticket.cancelled',
    );
  });

  afterAll(async () => {
    await receiver.stop();
    await events?.stop();
    await platform?.stop();
    await database.drop();
  });

  function asOwner<T>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
    return graphData<T>(platform.gatewayUrl, query, variables, bearer(owner.token));
  }

  /** A paired board device of the branch with the settings given: its key. */
  async function pairDevice(name: string, settings: Record<string, unknown> = {}): Promise<string> {
    const { createBoardDevice } = await asOwner<{ createBoardDevice: { code: string } }>(
      'mutation ($i: CreateBoardDeviceInput!) { createBoardDevice(input: $i) { code } }',
      { i: { branchId, name, ...settings } },
    );
    return (
      await graphData<{ pairBoardDevice: { secret: string } }>(
        platform.gatewayUrl,
        'mutation ($c: String!) { pairBoardDevice(code: $c) { secret } }',
        { c: createBoardDevice.code },
      )
    ).pairBoardDevice.secret;
  }

  const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();

  it('lets a device read its own settings, changed by a manager, and nobody else’s', async () => {
    const key = await pairDevice('Counter tablet', { numberPrefix: 'A' });
    const read = () =>
      askGraph(
        platform.gatewayUrl,
        '{ currentBoardDevice { name numberPrefix callsWhenOffline } }',
        {},
        bearer(key),
      );
    expect((await read()).data).toEqual({
      currentBoardDevice: { name: 'Counter tablet', numberPrefix: 'A', callsWhenOffline: false },
    });
    const { boardDevices } = (
      await asOwner<{ venue: { boardDevices: { id: string }[] } }>(
        'query ($v: ID!) { venue(id: $v) { boardDevices { id } } }',
        { v: venueId },
      )
    ).venue;
    await asOwner('mutation ($i: UpdateBoardDeviceInput!) { updateBoardDevice(input: $i) { id } }', {
      i: { id: boardDevices[0]!.id, numberPrefix: 'B', callsWhenOffline: true },
    });
    expect((await read()).data).toEqual({
      currentBoardDevice: { name: 'Counter tablet', numberPrefix: 'B', callsWhenOffline: true },
    });
    expect(await asOwner('{ currentBoardDevice { id } }')).toEqual({ currentBoardDevice: null });
    const refused = await askGraph(
      platform.gatewayUrl,
      'mutation ($i: CreateBoardDeviceInput!) { createBoardDevice(input: $i) { code } }',
      { i: { branchId, name: 'Copy', numberPrefix: 'B' } },
      bearer(owner.token),
    );
    expect(refused.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(refused.errors?.[0]?.extensions?.errors).toEqual({
      numberPrefix: ['The number prefix B is already used by another board device of this branch.'],
    });
  });

  it('lands a batch of offline creates and moves exactly once, repeated after a lost answer, with the stamped times and one webhook each', async () => {
    const key = await pairDevice('Sync tablet', { numberPrefix: 'S' });
    const socket = deviceSocket(platform.gatewayUrl, key);
    try {
      const lease = await socket.send(
        'mutation { reserveTicketNumbers(count: 5) { numbers day validUntil prefix } }',
      );
      const { numbers, prefix, validUntil } = (
        lease.data as { reserveTicketNumbers: Record<string, unknown> }
      ).reserveTicketNumbers as { numbers: string[]; prefix: string; validUntil: string };
      expect(numbers).toHaveLength(5);
      expect(prefix).toBe('S');
      expect(Date.parse(validUntil)).toBeGreaterThan(Date.now());
      // The queue the board kept while offline: five creates, then a ready each, then closing moves.
      const queue: { query: string; variables: Record<string, unknown> }[] = numbers.map((number, i) => ({
        query: CREATE,
        variables: {
          i: { number, customerName: `Guest ${i}` },
          k: `create-${number}`,
          at: minutesAgo(30 - i),
        },
      }));
      const sent = async (entry: (typeof queue)[number]) => {
        const reply = await socket.send(entry.query, entry.variables);
        expect(reply.errors).toBeUndefined();
        return reply.data!;
      };
      const created: Ticket[] = [];
      for (const entry of queue)
        created.push(((await sent(entry)).createTicket as { ticket: Ticket }).ticket);
      expect(created.map((ticket) => ticket.number)).toEqual(numbers);
      const moves = created.flatMap((ticket, i) => [
        {
          query: move('markTicketReady'),
          variables: { id: ticket.id, k: `ready-${ticket.id}`, at: minutesAgo(20 - i) },
        },
        i < 3
          ? {
              query: move('markTicketCollected'),
              variables: { id: ticket.id, k: `collected-${ticket.id}`, at: minutesAgo(10 - i) },
            }
          : {
              query: move('cancelTicket'),
              variables: { id: ticket.id, k: `cancel-${ticket.id}`, at: minutesAgo(10 - i) },
            },
      ]);
      for (const entry of moves) await sent(entry);
      // Every answer was lost: the board replays its whole queue, over HTTP this time.
      for (const entry of [...queue, ...moves]) {
        const again = await askGraph(platform.gatewayUrl, entry.query, entry.variables, bearer(key));
        expect(again.errors).toBeUndefined();
      }

      const { tickets } = await graphData<{ tickets: { total: number; items: Ticket[] } }>(
        platform.gatewayUrl,
        `{ tickets(perPage: 100) { total items { ${FIELDS} } } }`,
        {},
        bearer(key),
      );
      expect(tickets.total).toBe(5);
      for (const [i, ticket] of [...tickets.items].reverse().entries()) {
        expect(ticket.number).toBe(numbers[i]);
        expect(ticket.createdAt).toBe(queue[i]!.variables.at);
        expect(ticket.readyAt).toBe(moves[i * 2]!.variables.at);
        expect(i < 3 ? ticket.collectedAt : ticket.cancelledAt).toBe(moves[i * 2 + 1]!.variables.at);
      }
      const ids = new Set(created.map((ticket) => Number(ticket.id)));
      const mine = () => receiver.received.filter((hook) => ids.has(Number(hook.json.data.ticket.id)));
      await receiver.waitFor(() => mine().length >= 15);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const hooks = mine();
      expect(hooks.every((hook) => hook.verdict.ok)).toBe(true);
      const count = (event: string) => hooks.filter((hook) => hook.json.event === event).length;
      expect([
        count('ticket.created'),
        count('ticket.ready'),
        count('ticket.collected'),
        count('ticket.cancelled'),
      ]).toEqual([5, 5, 3, 2]);
      for (const hook of hooks.filter((h) => h.json.event === 'ticket.ready')) {
        const i = numbers.indexOf(String(hook.json.data.ticket.number));
        expect(Date.parse(String(hook.json.data.ticket.ready_at))).toBe(
          Date.parse(String(moves[i * 2]!.variables.at)),
        );
        expect(Date.parse(String(hook.json.data.ticket.created_at))).toBe(
          Date.parse(String(queue[i]!.variables.at)),
        );
      }
      // The branch's own sequence went on after the lease.
      const next = await socket.send('mutation { createTicket(input: {}) { ticket { number } } }');
      expect((next.data as { createTicket: { ticket: { number: string } } }).createTicket.ticket.number).toBe(
        String(Number(numbers[4]) + 1),
      );
    } finally {
      await socket.client.dispose();
    }
  });

  it('refuses an occurredAt a day old or in the future as BAD_USER_INPUT naming occurredAt', async () => {
    const key = await pairDevice('Clock tablet');
    const answers = [
      await askGraph(platform.gatewayUrl, CREATE, { i: {}, at: minutesAgo(24 * 60 + 5) }, bearer(key)),
      await askGraph(platform.gatewayUrl, CREATE, { i: {}, at: minutesAgo(-5) }, bearer(key)),
    ];
    expect(answers.map((answer) => answer.errors?.[0]?.extensions?.errors)).toEqual([
      {
        occurredAt: [
          'The occurredAt must be within the last 24 hours: a change older than that is not taken.',
        ],
      },
      {
        occurredAt: [
          'The occurredAt must not be later than now: a clock up to 60 seconds ahead is taken as now, this one is further.',
        ],
      },
    ]);
    expect(answers.map((answer) => answer.errors?.[0]?.extensions?.code)).toEqual([
      'BAD_USER_INPUT',
      'BAD_USER_INPUT',
    ]);
  });

  // 500 round trips, one at a time, then a wait away from the budget window's edge: about 35 s on
  // idle cores, and over a minute beside the suite's heaviest files.
  it('takes 500 offline operations of one device back to back, while its ordinary budget still holds for the rest', async () => {
    const key = await pairDevice('Catch-up tablet');
    const socket = deviceSocket(platform.gatewayUrl, key);
    try {
      const ids: string[] = [];
      const started = Date.now();
      for (let i = 0; i < 250; i += 1) {
        const reply = await socket.send(CREATE, { i: {}, k: `c-${i}`, at: minutesAgo(60) });
        expect(reply.errors).toBeUndefined();
        ids.push((reply.data as { createTicket: { ticket: { id: string } } }).createTicket.ticket.id);
      }
      for (const [i, id] of ids.entries()) {
        // Half of them over HTTP: both doors count the same way.
        const variables = { id, k: `r-${i}`, at: minutesAgo(30) };
        const reply =
          i % 2 === 0
            ? await socket.send(move('markTicketReady'), variables)
            : await askGraph(platform.gatewayUrl, move('markTicketReady'), variables, bearer(key));
        expect(reply.errors).toBeUndefined();
      }
      process.stdout.write(`500 offline operations of one device applied in ${Date.now() - started} ms\n`);

      // The same device's ordinary work still has its minute's budget, and no more.
      await awayFromWindowEdge();
      let last: Response | undefined;
      let served = 0;
      for (let i = 1; i <= BOARD_BUDGET + 1; i += 1) {
        last = await fetch(platform.gatewayUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...bearer(key) },
          body: JSON.stringify({ query: '{ currentBranch { id } }' }),
        });
        if (last.status === 429) break;
        served += 1;
      }
      expect(last!.status).toBe(429);
      expect(served).toBeGreaterThanOrEqual(BOARD_BUDGET - 2);
      // A move without occurredAt is ordinary work too: refused over graphql-ws now.
      const ordinary = await socket.send(move('markTicketCollected'), { id: ids[0] });
      expect(ordinary.errors?.[0]?.extensions?.code).toBe('RATE_LIMITED');
      // A replay still has its allowance.
      const replay = await socket.send(move('markTicketCollected'), {
        id: ids[0],
        k: 'late',
        at: minutesAgo(1),
      });
      expect(replay.errors).toBeUndefined();
    } finally {
      await socket.client.dispose();
    }
  }, 180_000);
});
