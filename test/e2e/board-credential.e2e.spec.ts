import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { TICKET_ROUTES } from '../../rest-adapter/tickets/tickets.routes';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { askGraph, bearer, graphData, signUpPerson, type GraphReply, type SignedUp } from '../support/graph';
import { startPlatform, type Platform } from '../support/platform';
import { awayFromWindowEdge } from '../support/wait';

const BOARD_BUDGET = 60;
const PLAN_WITHOUT_API = 'Your plan does not include API access. Upgrade to Growth or above.';
/** What the board page reads and writes (rest-adapter/public/assets/board.js). */
const FIELDS = 'id number status customerName ringCount readyAt createdAt updatedAt';

describe('a paired board device’s key: the staff board on any plan, never the paid POS API', () => {
  let database: TestDatabase;
  let platform: Platform;
  let owner: SignedUp;
  let venueId: string;
  let branchId: string;
  let device: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    platform = await startPlatform(database);
    owner = await signUpPerson(platform.gatewayUrl, { email: 'starter@example.test', name: 'Owner' });
    // A new venue is on the starter plan, which does not include the API.
    venueId = (
      await data<{ createVenue: { id: string } }>(
        'mutation { createVenue(input: { name: "Tigris" }) { id } }',
      )
    ).createVenue.id;
    branchId = (
      await data<{ createBranch: { id: string } }>(
        'mutation ($i: CreateBranchInput!) { createBranch(input: $i) { id } }',
        { i: { venueId, name: 'Front' } },
      )
    ).createBranch.id;
    device = await pairDevice('Counter tablet');
  });

  /** A newly paired board device of the branch: its key. */
  async function pairDevice(name: string): Promise<string> {
    const { createBoardDevice } = await data<{ createBoardDevice: { code: string } }>(
      'mutation ($i: CreateBoardDeviceInput!) { createBoardDevice(input: $i) { code } }',
      { i: { branchId, name } },
    );
    return (
      await data<{ pairBoardDevice: { secret: string } }>(
        'mutation ($c: String!) { pairBoardDevice(code: $c) { secret } }',
        { c: createBoardDevice.code },
        {},
      )
    ).pairBoardDevice.secret;
  }

  afterAll(async () => {
    await platform?.stop();
    await database.drop();
  });

  function data<T>(
    query: string,
    variables: Record<string, unknown> = {},
    headers: Record<string, string> = bearer(owner.token),
  ): Promise<T> {
    return graphData<T>(platform.gatewayUrl, query, variables, headers);
  }

  const asDevice = (query: string, variables: Record<string, unknown> = {}): Promise<GraphReply> =>
    askGraph(platform.gatewayUrl, query, variables, bearer(device));

  it('works the board on a starter plan over graphql-ws, as the board page does', async () => {
    const client = createClient({
      url: platform.gatewayUrl.replace(/^http/, 'ws'),
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${device}` },
      retryAttempts: 0,
    });
    const request = <T>(query: string, variables: Record<string, unknown> = {}) =>
      new Promise<T>((resolve, reject) => {
        let result: unknown;
        client.subscribe(
          { query, variables },
          {
            next: (value) => (result = value),
            error: reject,
            complete: () => {
              const { data: answer, errors } = result as { data?: T; errors?: unknown[] };
              if (errors !== undefined) reject(new Error(JSON.stringify(errors)));
              else resolve(answer as T);
            },
          },
        );
      });
    try {
      const board = await request<{ currentBranch: { name: string }; waiting: { items: unknown[] } }>(
        `query { currentBranch { name } waiting: tickets(perPage: 100, filter: { status: WAITING }) { items { ${FIELDS} } } ready: tickets(perPage: 100, filter: { status: READY }) { items { ${FIELDS} } } }`,
      );
      expect(board.currentBranch.name).toBe('Front');
      const { createTicket } = await request<{ createTicket: { ticket: { id: string; status: string } } }>(
        `mutation ($i: CreateTicketInput!) { createTicket(input: $i) { ticket { ${FIELDS} } } }`,
        { i: { number: '17', customerName: 'Sara', customerPhone: '0770 123 4567' } },
      );
      expect(createTicket.ticket.status).toBe('WAITING');
      const act = async (mutation: string) =>
        (
          await request<Record<string, { status: string }>>(
            `mutation ($id: ID) { ${mutation}(id: $id) { ${FIELDS} } }`,
            { id: createTicket.ticket.id },
          )
        )[mutation]!.status;
      expect(await act('markTicketReady')).toBe('READY');
      expect(await act('markTicketCollected')).toBe('COLLECTED');
      const other = await request<{ createTicket: { ticket: { id: string } } }>(
        'mutation ($i: CreateTicketInput!) { createTicket(input: $i) { ticket { id } } }',
        { i: { number: '18' } },
      );
      const cancelled = await request<{ cancelTicket: { status: string } }>(
        'mutation ($id: ID) { cancelTicket(id: $id) { status } }',
        { id: other.createTicket.ticket.id },
      );
      expect(cancelled.cancelTicket.status).toBe('CANCELLED');
    } finally {
      await client.dispose();
    }
  });

  it('is refused with 402 on every REST ticket route, as a branch key of a plan without API access is', async () => {
    const { createTicket } = await data<{ createTicket: { ticket: { id: string } } }>(
      'mutation { createTicket(input: { number: "21" }) { ticket { id } } }',
      {},
      bearer(device),
    );
    const apiKey = (
      await data<{ issueApiKey: { secret: string } }>(
        'mutation ($i: IssueApiKeyInput!) { issueApiKey(input: $i) { secret } }',
        { i: { branchId, name: 'POS' } },
      )
    ).issueApiKey.secret;
    const answers: string[] = [];
    for (const route of TICKET_ROUTES) {
      const path = route.path.replace(':id', createTicket.ticket.id).replace(':externalId', 'pos-order-1');
      const call = async (key: string) => {
        const response = await fetch(`${platform.restUrl}${path}`, {
          method: route.method.toUpperCase(),
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          ...(route.method === 'post' ? { body: JSON.stringify({ external_id: 'pos-order-1' }) } : {}),
        });
        return `${route.method.toUpperCase()} ${route.path} ${response.status} ${JSON.stringify(await response.json())}`;
      };
      const byDevice = await call(device);
      expect(byDevice).toBe(await call(apiKey));
      answers.push(byDevice);
    }
    expect(answers).toHaveLength(13);
    for (const answer of answers)
      expect(answer).toMatch(/ 402 \{"message":"Your plan does not include API access/);
    expect(answers[0]).toBe(`GET /tickets 402 ${JSON.stringify({ message: PLAN_WITHOUT_API })}`);
  });

  it('does none of a POS integration’s own work on the graph (no order ids), but retries safely with its own keys', async () => {
    const keyed = () =>
      asDevice(
        'mutation { createTicket(input: { number: "30" }, idempotencyKey: "retry-1") { replayed ticket { id } } }',
      );
    const [first, again] = [await keyed(), await keyed()];
    expect(first.errors).toBeUndefined();
    expect(again.data).toEqual({
      createTicket: {
        replayed: true,
        ticket: (first.data as { createTicket: { ticket: unknown } }).createTicket.ticket,
      },
    });
    const refusals = [
      await asDevice('mutation { createTicket(input: { externalId: "pos-1" }) { ticket { id } } }'),
      await asDevice('{ ticketByExternalId(externalId: "pos-1") { id } }'),
      await asDevice('{ tickets(filter: { externalId: "pos-1" }) { total } }'),
      await asDevice('mutation { markTicketReady(externalId: "pos-1") { id } }'),
      await asDevice('mutation { ringTicket(externalId: "pos-1") { id } }'),
    ];
    expect(
      refusals.map((reply) => [reply.errors?.[0]?.extensions?.code, reply.errors?.[0]?.message]),
    ).toEqual([
      [
        'FORBIDDEN',
        'A board device’s key cannot use externalId: that is the POS API’s, which needs an API key of the branch.',
      ],
      ['FORBIDDEN', expect.stringMatching(/cannot use externalId/)],
      ['FORBIDDEN', expect.stringMatching(/cannot use externalId/)],
      ['FORBIDDEN', expect.stringMatching(/cannot use externalId/)],
      ['FORBIDDEN', expect.stringMatching(/cannot use externalId/)],
    ]);
  });

  it('counts a board device against its own budget on the graph, a person’s pace at a counter', async () => {
    await awayFromWindowEdge();
    let last: Response | undefined;
    for (let i = 1; i <= BOARD_BUDGET + 1; i += 1) {
      last = await fetch(platform.gatewayUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...bearer(device) },
        body: JSON.stringify({ query: '{ currentBranch { id } }' }),
      });
      if (last.status === 429) break;
    }
    expect(last!.status).toBe(429);
    expect(last!.headers.get('ratelimit-policy')).toBe(`"boards";q=${BOARD_BUDGET};w=60`);
    const body = (await last!.json()) as { errors: { message: string }[] };
    expect(body.errors[0]!.message).toMatch(
      /^Too many requests: the limit is 60 a minute per board device, each root field of an operation counting as one\./,
    );
  });

  /** A graphql-ws client of the device, sending `authorization` as given, and one operation on it. */
  function deviceSocket(authorization: string) {
    const client = createClient({
      url: platform.gatewayUrl.replace(/^http/, 'ws'),
      webSocketImpl: WebSocket,
      connectionParams: { authorization },
      retryAttempts: 0,
    });
    type Outcome = Partial<Pick<GraphReply, 'data' | 'errors'>>;
    const send = (query: string) =>
      new Promise<Outcome>((resolve) => {
        let reply: Outcome = {};
        client.subscribe(
          { query },
          {
            next: (value) => (reply = value as Outcome),
            error: (errors) => resolve({ errors: errors as GraphReply['errors'] }),
            complete: () => resolve(reply),
          },
        );
      });
    return { client, send };
  }

  it('counts every spelling of a device’s key on the device’s budget, a trailing space over graphql-ws included', async () => {
    const key = await pairDevice('Spelling tablet');
    const spellings = [`Bearer ${key}`, `bearer ${key}`, `BEARER ${key}`, `bEarer ${key}`, `Bearer  ${key}`];
    await awayFromWindowEdge();
    const remaining: number[] = [];
    for (let i = 0; i < BOARD_BUDGET; i += 1) {
      const reply = await fetch(platform.gatewayUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: spellings[i % spellings.length]! },
        body: JSON.stringify({ query: '{ currentBranch { id } }' }),
      });
      expect(reply.status).toBe(200);
      remaining.push(Number(/"boards";r=(\d+)/.exec(reply.headers.get('ratelimit') ?? '')?.[1]));
    }
    expect(remaining).toEqual(Array.from({ length: BOARD_BUDGET }, (_, i) => BOARD_BUDGET - 1 - i));
    const socket = deviceSocket(`Bearer ${key} `);
    const refused = await socket.send('{ currentBranch { id } }');
    await socket.client.dispose();
    expect(refused.errors?.[0]?.extensions?.code).toBe('RATE_LIMITED');
    expect(refused.errors?.[0]?.message).toMatch(/the limit is 60 a minute per board device/);
  });

  it('counts each root field of an operation: fifteen aliased creates cost fifteen, on HTTP and over graphql-ws', async () => {
    const key = await pairDevice('Batch tablet');
    const creates = (from: number) =>
      `mutation { ${Array.from(
        { length: 15 },
        (_, i) => `c${i}: createTicket(input: { number: "${from + i}" }) { ticket { id } }`,
      ).join(' ')} }`;
    const total = async () =>
      (
        await data<{ tickets: { total: number } }>(
          '{ tickets { total } }',
          {},
          { ...bearer(owner.token), 'x-branch-id': branchId },
        )
      ).tickets.total;
    await awayFromWindowEdge();
    const before = await total();
    const overHttp = await fetch(platform.gatewayUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(key) },
      body: JSON.stringify({ query: creates(100) }),
    });
    expect(overHttp.status).toBe(200);
    expect(overHttp.headers.get('ratelimit')).toMatch(new RegExp(`"boards";r=${BOARD_BUDGET - 15};`));
    const socket = deviceSocket(`Bearer ${key}`);
    expect((await socket.send(creates(200))).errors).toBeUndefined();
    expect((await socket.send(creates(300))).errors).toBeUndefined();
    // 45 of 60 spent, and one more: fifteen more are too many, and none of them is made.
    expect((await socket.send('{ currentBranch { id } }')).errors).toBeUndefined();
    const refused = await socket.send(creates(400));
    await socket.client.dispose();
    expect(refused.errors?.[0]?.extensions?.code).toBe('RATE_LIMITED');
    expect(await total()).toBe(before + 45);
  });

  it('refuses a mutation of more root fields than GRAPHQL_MAX_MUTATION_FIELDS, naming the limit', async () => {
    // Fifteen aliases, within GRAPHQL_MAX_ALIASES, and a sixteenth field under its own name.
    const fields = [
      ...Array.from({ length: 15 }, (_, i) => `c${i}: cancelTicket(id: "${i + 1}") { id }`),
      'cancelTicket(id: "99") { id }',
    ].join(' ');
    const reply = await fetch(platform.gatewayUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(owner.token) },
      body: JSON.stringify({ query: `mutation { ${fields} }` }),
    });
    expect(reply.status).toBe(400);
    const body = (await reply.json()) as { errors: { message: string; extensions: { code: string } }[] };
    expect(body.errors.map((error) => [error.extensions.code, error.message])).toEqual([
      [
        'GRAPHQL_VALIDATION_FAILED',
        'A mutation may have at most 15 root fields, aliases counting (GRAPHQL_MAX_MUTATION_FIELDS); this one has 16. Send the rest in another operation.',
      ],
    ]);
  });
});
