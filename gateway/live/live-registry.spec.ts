import 'reflect-metadata';
import { readFile } from 'node:fs/promises';
import { ApolloGateway } from '@apollo/gateway';
import {
  buildSchema,
  GraphQLError,
  printSchema,
  type ExecutionArgs,
  type ExecutionResult,
  type FormattedExecutionResult,
  type GraphQLSchema,
} from 'graphql';
import { loadConfig } from '../../common/config';
import { createLogger } from '../../common/logger';
import { SUPERGRAPH_FILE } from '../../common/paths';
import { CostModel } from '../limits';
import type { GraphTicket } from '../../contracts/tickets/ticket.resource';
import type { LiveEvent } from '../../contracts/tickets/live-event';
import type { RunQuery } from '../context';
import { GatedSocket, LiveAccess } from './live-access';
import type { LiveConnection } from './live-admission';
import { LiveHub } from './live-hub';
import { OperationOrder } from './live-order';
import { LiveRegistry, type LiveContext } from './live-registry';
import { FakeSocket } from '../../test/support/fake-socket';

const logger = createLogger({ service: 'test', level: 'silent' });
const defaultLimits = loadConfig({}).graphqlLimits;

/** The gateway as the registry asks it: answers by the operation's name, and every question asked. */
class FakeGateway {
  readonly asked: { query: string; variables: Record<string, unknown>; headers: Record<string, unknown> }[] =
    [];
  readonly answers = new Map<string, FormattedExecutionResult>();

  /** Operations whose answer waits until the test lets it go. */
  private readonly held = new Map<string, Promise<void>>();

  readonly runQuery: RunQuery = async (query, variables, headers) => {
    this.asked.push({ query, variables, headers });
    const name = /^(?:query|mutation) (\w+)/.exec(query)?.[1] ?? '';
    await this.held.get(name);
    return this.answers.get(name) ?? { data: null };
  };

  /** Holds the answers to the operation named `name`; the returned function lets them go. */
  hold(name: string): () => void {
    let release!: () => void;
    this.held.set(name, new Promise<void>((resolve) => (release = resolve)));
    return () => {
      this.held.delete(name);
      release();
    };
  }
}

function ticket(fields: Partial<GraphTicket>): GraphTicket {
  return fields as GraphTicket;
}

function eventOf(token: string, branchId: number, number: string): LiveEvent {
  const fields = ticket({ number, status: 'READY' });
  return {
    id: `event-${number}`,
    event: 'ticket.ready',
    venueId: 7,
    branchId,
    ticketId: 1,
    token,
    ticket: { en: fields, ar: fields },
  };
}

/** Lets the hub's deliveries, which run on promises, write their frames. */
const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('LiveRegistry: the operations sockets send and the subscriptions they hold', () => {
  let apiSchema: GraphQLSchema;
  let apollo: ApolloGateway;
  let schema: GraphQLSchema;
  let gateway: FakeGateway;
  let hub: LiveHub;
  let access: LiveAccess;
  let costModel: CostModel;

  const registryWith = (options: { production?: boolean; maxCost?: number } = {}) =>
    new LiveRegistry(schema, {
      hub,
      access,
      runQuery: gateway.runQuery,
      queryLimits: { ...defaultLimits, maxCost: options.maxCost ?? defaultLimits.maxCost },
      costModel,
      production: options.production ?? false,
    });

  const connectionOf = (socket: FakeSocket, extra: Partial<LiveConnection> = {}): LiveConnection => ({
    socket: socket.asWebSocket(),
    language: 'en',
    address: '198.51.100.7',
    order: new OperationOrder(),
    ...extra,
  });

  /** What graphql-ws does with an operation the registry accepted: its source stream, or errors. */
  async function subscribe(
    registry: LiveRegistry,
    query: string,
    connection: LiveConnection,
    id = '1',
  ): Promise<ExecutionResult | AsyncIterable<unknown>> {
    const payload = { query };
    const args = await registry.admit(connection, payload, () => Promise.resolve(undefined));
    if (Array.isArray(args))
      throw new Error(`refused: ${(args as GraphQLError[]).map((e) => e.message).join()}`);
    const context: LiveContext = { connection, id, payload };
    return registry.subscribe({ ...(args as ExecutionArgs), contextValue: context });
  }

  /** What graphql-ws does with a query sent over a socket: admitted in its turn, then run. */
  async function query(registry: LiveRegistry, text: string, connection: LiveConnection, id: string) {
    const payload = { query: text };
    const args = await registry.admit(connection, payload, () => Promise.resolve(undefined));
    return registry.execute({ ...(args as ExecutionArgs), contextValue: { connection, id, payload } });
  }

  const codesOf = (result: ExecutionResult | AsyncIterable<unknown>) =>
    'errors' in result ? result.errors?.map((error) => error.extensions.code) : 'a stream';

  beforeAll(async () => {
    process.env.APOLLO_TELEMETRY_DISABLED = 'true';
    const supergraphSdl = await readFile(SUPERGRAPH_FILE(), 'utf8');
    costModel = CostModel.fromSupergraph(supergraphSdl);
    apollo = new ApolloGateway({ supergraphSdl });
    apiSchema = (await apollo.load()).schema;
  });

  afterAll(async () => {
    await apollo.stop();
  });

  beforeEach(() => {
    schema = buildSchema(printSchema(apiSchema));
    gateway = new FakeGateway();
    hub = new LiveHub(schema, gateway.runQuery, logger);
    access = new LiveAccess(() => Promise.resolve(null), logger);
  });

  it('refuses a schema without the three subscription fields', () => {
    const options = {
      hub,
      access,
      runQuery: gateway.runQuery,
      queryLimits: defaultLimits,
      costModel,
      production: false,
    };
    expect(() => new LiveRegistry(buildSchema('type Query { a: Int }'), options)).toThrow(
      'the supergraph lacks Subscription.ticketUpdated, branchTicketsUpdated or displayTicketsUpdated',
    );
  });

  it('parses a text once for every socket that sends it', () => {
    const registry = registryWith();
    const query = 'subscription { ticketUpdated(token: "t") { number } }';
    const first = registry.operationOf({ query }) as ExecutionArgs;
    const second = registry.operationOf({ query }) as ExecutionArgs;
    expect(first.schema).toBe(schema);
    expect(second.document).toBe(first.document);
  });

  it('answers a syntax error with GRAPHQL_PARSE_FAILED, and a document past the token limit alike', () => {
    const registry = registryWith();
    const broken = registry.operationOf({ query: 'subscription {' }) as GraphQLError[];
    expect(broken.map((error) => error.extensions.code)).toEqual(['GRAPHQL_PARSE_FAILED']);
    const long = `query { ${'__typename '.repeat(defaultLimits.maxTokens)} }`;
    const tooLong = registry.operationOf({ query: long }) as GraphQLError[];
    expect(tooLong.map((error) => [error.extensions.code, error.message])).toEqual([
      ['GRAPHQL_PARSE_FAILED', expect.stringContaining('tokens')],
    ]);
  });

  it('answers an unknown field with GRAPHQL_VALIDATION_FAILED, with its suggestion only outside production', () => {
    const query = 'subscription { ticketUpdated(token: "t") { numbr } }';
    const [developing] = registryWith().operationOf({ query }) as GraphQLError[];
    expect(developing?.extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(developing?.message).toContain('Did you mean "number"?');
    const [production] = registryWith({ production: true }).operationOf({ query }) as GraphQLError[];
    expect(production?.message).toContain('[Suggestion hidden]');
    expect(production?.message).not.toContain('"number"');
  });

  it('answers a subscription’s missing variable with BAD_USER_INPUT rather than closing its socket', () => {
    const errors = registryWith().operationOf({
      query: 'subscription ($t: String!) { ticketUpdated(token: $t) { number } }',
      variables: {},
    }) as GraphQLError[];
    expect(errors.map((error) => error.extensions.code)).toEqual(['BAD_USER_INPUT']);
  });

  it('refuses a subscription over the cost limit, and leaves a query’s cost to the gateway it runs through', () => {
    const registry = registryWith({ maxCost: 3 });
    const selection = '{ number status createdAt ringCount }';
    const refused = registry.operationOf({
      query: `subscription { ticketUpdated(token: "t") ${selection} }`,
    }) as GraphQLError[];
    expect(refused.map((error) => [error.extensions.code, error.message])).toEqual([
      ['GRAPHQL_VALIDATION_FAILED', expect.stringContaining('Query cost limit of 3 exceeded, found 5')],
    ]);
    const query = registry.operationOf({ query: `query { ticketByToken(token: "t") ${selection} }` });
    expect(Array.isArray(query)).toBe(false);
  });

  it('runs a query sent over a socket through the gateway with the connection’s headers and address', async () => {
    gateway.answers.set('Mine', { data: { currentBranch: { id: '3' } } });
    const registry = registryWith();
    const payload = { query: 'query Mine { currentBranch { id } }', variables: { a: 1 } };
    const connection = connectionOf(new FakeSocket(), { authorization: 'Bearer tk_a', language: 'ar' });
    const result = await registry.execute({
      ...(registry.operationOf(payload) as ExecutionArgs),
      contextValue: { connection, id: '1', payload } satisfies LiveContext,
    });
    expect(result).toEqual({ data: { currentBranch: { id: '3' } } });
    expect(gateway.asked).toEqual([
      {
        query: payload.query,
        variables: { a: 1 },
        headers: { 'accept-language': 'ar', authorization: 'Bearer tk_a' },
      },
    ]);
  });

  it('runs a query sent after a subscription on the same socket only once that subscription listens', async () => {
    gateway.answers.set('LiveTicket', { data: { ticketByToken: { number: 'A1' } } });
    gateway.answers.set('Refetch', { data: { ticketByToken: { number: 'A1', status: 'WAITING' } } });
    const release = gateway.hold('LiveTicket');
    const registry = registryWith();
    const connection = connectionOf(new FakeSocket());
    const subscribed = subscribe(
      registry,
      'subscription { ticketUpdated(token: "tok") { status } }',
      connection,
    );
    const answered = query(
      registry,
      'query Refetch { ticketByToken(token: "tok") { number status } }',
      connection,
      '2',
    );
    await settled();
    // The token check is still out: the refetch has not been asked, so nothing it reads can be
    // older than what the subscription will hear.
    expect(gateway.asked.map((asked) => /query (\w+)/.exec(asked.query)?.[1])).toEqual(['LiveTicket']);
    expect(hub.subscribers).toBe(0);

    release();
    expect(codesOf(await subscribed)).toBe('a stream');
    expect(await answered).toEqual({ data: { ticketByToken: { number: 'A1', status: 'WAITING' } } });
    expect(gateway.asked.map((asked) => /query (\w+)/.exec(asked.query)?.[1])).toEqual([
      'LiveTicket',
      'Refetch',
    ]);
    expect(connection.order.size).toBe(0);
  });

  it('lets a query go once the subscription before it is refused, and a query never waits on a query', async () => {
    gateway.answers.set('LiveTicket', { data: { ticketByToken: null } });
    const release = gateway.hold('Slow');
    const registry = registryWith();
    const connection = connectionOf(new FakeSocket());
    const run = (id: string, text: string) => query(registry, text, connection, id);
    const slow = run('1', 'query Slow { plans { code } }');
    expect(await run('2', 'query Fast { plans { code } }')).toEqual({ data: null });
    const refused = await subscribe(
      registry,
      'subscription { ticketUpdated(token: "unknown") { number } }',
      connection,
      '3',
    );
    expect(codesOf(refused)).toEqual(['NOT_FOUND']);
    expect(await run('4', 'query After { plans { code } }')).toEqual({ data: null });
    release();
    expect(await slow).toEqual({ data: null });
    expect(connection.order.size).toBe(0);
  });

  it('keeps each operation’s own place when a client sends an id again while its first subscription joins', async () => {
    gateway.answers.set('LiveTicket', { data: { ticketByToken: { number: 'A1' } } });
    const release = gateway.hold('LiveTicket');
    const registry = registryWith();
    const connection = connectionOf(new FakeSocket());
    const subscription = 'subscription { ticketUpdated(token: "tok") { number } }';
    // graphql-ws lets an id be used again once its operation is completed, joined or not.
    const [first, again] = [
      subscribe(registry, subscription, connection, '1'),
      subscribe(registry, subscription, connection, '1'),
    ];
    const answered = query(registry, 'query Refetch { plans { code } }', connection, '2');
    await settled();
    expect(connection.order.size).toBe(2);
    release();
    expect([codesOf(await first), codesOf(await again)]).toEqual(['a stream', 'a stream']);
    expect(await answered).toEqual({ data: null });
    expect(connection.order.size).toBe(0);
  });

  it('settles an operation refused at admission, so the socket’s next query is not held by it', async () => {
    const registry = registryWith();
    const connection = connectionOf(new FakeSocket());
    const refusal = [new GraphQLError('Too many requests', { extensions: { code: 'RATE_LIMITED' } })];
    const subscription = { query: 'subscription { ticketUpdated(token: "tok") { number } }' };
    expect(await registry.admit(connection, subscription, () => Promise.resolve(refusal))).toBe(refusal);
    const broken = { query: 'subscription { ticketUpdated(token: "tok") { nope } }' };
    expect(
      codesOf({
        errors: (await registry.admit(connection, broken, () =>
          Promise.resolve(undefined),
        )) as GraphQLError[],
      }),
    ).toEqual(['GRAPHQL_VALIDATION_FAILED']);
    await expect(
      registry.admit(connection, subscription, () => Promise.reject(new Error('Redis is gone'))),
    ).rejects.toThrow('Redis is gone');
    expect(connection.order.size).toBe(0);
  });

  it('ticketUpdated refuses a token that names no ticket with NOT_FOUND', async () => {
    gateway.answers.set('LiveTicket', { data: { ticketByToken: null } });
    const result = await subscribe(
      registryWith(),
      'subscription { ticketUpdated(token: "unknown") { number } }',
      connectionOf(new FakeSocket()),
    );
    expect(codesOf(result)).toEqual(['NOT_FOUND']);
    expect(hub.subscribers).toBe(0);
  });

  it('ticketUpdated asks the graph about a token once, and joins its subscribers to the token’s events', async () => {
    gateway.answers.set('LiveTicket', { data: { ticketByToken: { number: 'A1' } } });
    const registry = registryWith();
    const query = 'subscription { ticketUpdated(token: "tok") { number } }';
    const [first, second] = [new FakeSocket(), new FakeSocket()];
    expect(codesOf(await subscribe(registry, query, connectionOf(first), 'a'))).toBe('a stream');
    expect(codesOf(await subscribe(registry, query, connectionOf(second), 'b'))).toBe('a stream');
    expect(gateway.asked.map((asked) => asked.variables)).toEqual([{ token: 'tok' }]);
    expect(hub.subscribers).toBe(2);

    hub.dispatch(eventOf('other', 3, 'B2'));
    hub.dispatch(eventOf('tok', 3, 'A1'));
    await settled();
    expect(first.sent).toEqual([
      '{"id":"a","type":"next","payload":{"data":{"ticketUpdated":{"number":"A1"}}}}',
    ]);
    expect(second.sent).toEqual([
      '{"id":"b","type":"next","payload":{"data":{"ticketUpdated":{"number":"A1"}}}}',
    ]);
  });

  it('encodes an event’s frame once per operation id and writes those same bytes to each socket with it', async () => {
    gateway.answers.set('LiveTicket', { data: { ticketByToken: { number: 'A1' } } });
    const registry = registryWith();
    const query = 'subscription { ticketUpdated(token: "tok") { number status } }';
    const sockets = [new FakeSocket(), new FakeSocket(), new FakeSocket()];
    for (const [socket, id] of [
      [sockets[0]!, '1'],
      [sockets[1]!, '1'],
      [sockets[2]!, 'x'],
    ] as const) {
      await subscribe(registry, query, connectionOf(socket), id);
    }

    hub.dispatch(eventOf('tok', 3, 'A1'));
    await settled();
    const [first, second, third] = sockets.map((socket) => socket.raw);
    expect(first).toHaveLength(1);
    expect(second![0]).toBe(first![0]);
    expect(third![0]).not.toBe(first![0]);
    expect(sockets.map((socket) => socket.sent)).toEqual(
      ['1', '1', 'x'].map((id) => [
        `{"id":"${id}","type":"next","payload":{"data":{"ticketUpdated":{"number":"A1","status":"READY"}}}}`,
      ]),
    );
  });

  it('branchTicketsUpdated refuses a connection without a credential with UNAUTHENTICATED', async () => {
    const result = await subscribe(
      registryWith(),
      'subscription { branchTicketsUpdated { number } }',
      connectionOf(new FakeSocket()),
    );
    expect(codesOf(result)).toEqual(['UNAUTHENTICATED']);
  });

  it('branchTicketsUpdated joins the credential’s branch and writes through its gate, so a held socket waits', async () => {
    const socket = new FakeSocket();
    const gate = new GatedSocket(socket.asWebSocket());
    const connection = connectionOf(socket, { authorization: 'Bearer tk_a', branchId: 3, gate });
    await subscribe(registryWith(), 'subscription { branchTicketsUpdated { number } }', connection);

    gate.hold();
    hub.dispatch(eventOf('any', 4, 'X9'));
    hub.dispatch(eventOf('any', 3, 'A1'));
    await settled();
    expect(socket.sent).toEqual([]);
    gate.release();
    expect(socket.sent).toEqual([
      '{"id":"1","type":"next","payload":{"data":{"branchTicketsUpdated":{"number":"A1"}}}}',
    ]);
  });

  it('displayTicketsUpdated joins the display’s branch, and its socket closes with 4205 when the display is announced', async () => {
    gateway.answers.set('LiveDisplay', { data: { displayBoard: { id: '9', branchId: '3' } } });
    const socket = new FakeSocket();
    await subscribe(
      registryWith(),
      'subscription { displayTicketsUpdated(token: "dsp_x") { number } }',
      connectionOf(socket),
    );
    expect(gateway.asked.map((asked) => asked.variables)).toEqual([{ token: 'dsp_x' }]);
    hub.dispatch(eventOf('any', 3, 'A1'));
    await settled();
    expect(socket.sent).toEqual([
      '{"id":"1","type":"next","payload":{"data":{"displayTicketsUpdated":{"number":"A1"}}}}',
    ]);

    access.announce(JSON.stringify({ displayId: 9 }));
    expect(socket.closedWith).toBe(4205);
  });

  it('answers a display token the graph refuses with the graph’s own code', async () => {
    gateway.answers.set('LiveDisplay', {
      errors: [{ message: 'Display not found.', extensions: { code: 'NOT_FOUND' } }],
    });
    const result = await subscribe(
      registryWith(),
      'subscription { displayTicketsUpdated(token: "dsp_gone") { number } }',
      connectionOf(new FakeSocket()),
    );
    expect(codesOf(result)).toEqual(['NOT_FOUND']);
    expect(access.size.displays).toBe(0);
  });
});
