import { EventEmitter } from 'node:events';
import type { IncomingMessage } from 'node:http';
import type { FormattedExecutionResult } from 'graphql';
import type { WebSocket } from 'ws';
import { proxyTrust } from '../../common/client-address';
import { createLogger } from '../../common/logger';
import type { RateDecision } from '../../common/rate-budget';
import type { RunQuery } from '../context';
import { LiveAccess } from './live-access';
import {
  connectionParamProblem,
  credentialCheck,
  headersOf,
  LiveAdmission,
  SocketsPerAddress,
  type LiveSocketContext,
  type OperationBudgets,
} from './live-admission';

const socket = () => new EventEmitter() as unknown as WebSocket;

describe('SocketsPerAddress', () => {
  it('takes sockets of an address up to the cap, refuses the next, and takes one again once one closes', () => {
    const open = new SocketsPerAddress(2);
    const first = socket();
    expect(open.take('198.51.100.7', first)).toBe(true);
    expect(open.take('198.51.100.7', socket())).toBe(true);
    expect(open.take('198.51.100.7', socket())).toBe(false);
    expect(open.take('198.51.100.8', socket())).toBe(true);
    expect(open.of('198.51.100.7')).toBe(2);
    first.emit('close');
    expect(open.of('198.51.100.7')).toBe(1);
    expect(open.take('198.51.100.7', socket())).toBe(true);
  });

  it('does not count a refused socket when it closes', () => {
    const open = new SocketsPerAddress(1);
    expect(open.take('198.51.100.7', socket())).toBe(true);
    const refused = socket();
    expect(open.take('198.51.100.7', refused)).toBe(false);
    refused.emit('close');
    expect(open.of('198.51.100.7')).toBe(1);
  });
});

describe('connectionParamProblem', () => {
  it('names a parameter no header can carry', () => {
    expect(connectionParamProblem({ authorization: 7 })).toBe(
      'Bad connection_init: authorization must be a string.',
    );
    expect(connectionParamProblem({ 'x-branch-id': '3\n4' })).toBe(
      'Bad connection_init: x-branch-id holds a character no HTTP header can carry.',
    );
    expect(connectionParamProblem({ 'accept-language': 'a'.repeat(2049) })).toBe(
      'Bad connection_init: accept-language is longer than 2048 characters.',
    );
    expect(connectionParamProblem({ authorization: 'Bearer tk_x', other: { nested: true } })).toBeUndefined();
  });
});

/** A `ws` socket as admission sees it: how it was closed, and the listeners that count it. */
class FakeSocket extends EventEmitter {
  closedWith?: { code: number; reason: string };

  close(code: number, reason: string): void {
    if (this.closedWith !== undefined) return;
    this.closedWith = { code, reason };
    this.emit('close', code);
  }

  asWebSocket(): WebSocket {
    return this as unknown as WebSocket;
  }
}

/** The upgrade request of a socket from `address`, with no proxy in front. */
function upgradeFrom(address: string): IncomingMessage {
  return { socket: { remoteAddress: address }, headers: {} } as unknown as IncomingMessage;
}

/** graphql-ws's context of a socket that sent `params` and holds `operations` operations. */
function contextOf(
  params: Record<string, unknown> | undefined,
  operations = 0,
): { ctx: LiveSocketContext; socket: FakeSocket } {
  const socket = new FakeSocket();
  const ctx = {
    connectionInitReceived: true,
    acknowledged: false,
    connectionParams: params,
    subscriptions: Object.fromEntries(Array.from({ length: operations }, (_, i) => [String(i), null])),
    extra: { socket: socket.asWebSocket(), request: upgradeFrom('198.51.100.7') },
  };
  return { ctx: ctx as unknown as LiveSocketContext, socket };
}

/** The graph as admission asks it who a credential is; the test says what it answers. */
class FakeGraph {
  readonly asked: { query: string; headers: Record<string, unknown>; recheck: boolean }[] = [];
  answer: FormattedExecutionResult = { data: { currentBranch: { id: '3', venue: { id: '7' } } } };

  readonly runQuery: RunQuery = (query, _variables, headers, _client, options) => {
    this.asked.push({ query, headers, recheck: options?.recheck === true });
    return Promise.resolve(this.answer);
  };
}

/** The budgets of the gateway as one operation counts against them; the test says the outcome. */
class FakeBudgets implements OperationBudgets {
  readonly counted: { headers: Record<string, unknown>; address: string | undefined }[] = [];
  readonly unknownCounted: { headers: Record<string, unknown>; address: string | undefined }[] = [];
  decisions: RateDecision[] = [];
  unknownDecisions: RateDecision[] = [];

  take(headers: Record<string, unknown>, address: string | undefined): Promise<RateDecision[]> {
    this.counted.push({ headers, address });
    return Promise.resolve(this.decisions);
  }

  takeUnknown(headers: Record<string, unknown>, address: string | undefined): Promise<RateDecision[]> {
    this.unknownCounted.push({ headers, address });
    return Promise.resolve(this.unknownDecisions);
  }
}

const SPENT_ADDRESS: RateDecision = {
  policy: { name: 'public', quota: 300, windowSeconds: 60 },
  allowed: false,
  remaining: 0,
  resetSeconds: 20,
};

describe('LiveAdmission: what a client may open and send on the live server', () => {
  let graph: FakeGraph;
  let budgets: FakeBudgets;
  let access: LiveAccess;
  let admission: LiveAdmission;

  beforeEach(() => {
    graph = new FakeGraph();
    budgets = new FakeBudgets();
    access = new LiveAccess(
      credentialCheck(graph.runQuery),
      createLogger({ service: 'test', level: 'silent' }),
    );
    admission = new LiveAdmission({
      limits: { maxSocketsPerAddress: 2, maxOperationsPerSocket: 2 },
      budgets,
      access,
      trust: proxyTrust([]),
    });
  });

  it('closes a socket past its address’s cap with 4430 as it opens, and takes the address again once one closes', () => {
    const [first, second, third, neighbour] = [0, 1, 2, 3].map(() => new FakeSocket());
    admission.opened(first!.asWebSocket(), upgradeFrom('198.51.100.7'));
    admission.opened(second!.asWebSocket(), upgradeFrom('198.51.100.7'));
    admission.opened(third!.asWebSocket(), upgradeFrom('198.51.100.7'));
    admission.opened(neighbour!.asWebSocket(), upgradeFrom('198.51.100.8'));
    expect([first, second, neighbour].map((socket) => socket!.closedWith)).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
    expect(third!.closedWith).toEqual({ code: 4430, reason: 'Too many live connections from this address' });

    first!.close(1000, 'done');
    const again = new FakeSocket();
    admission.opened(again.asWebSocket(), upgradeFrom('198.51.100.7'));
    expect(again.closedWith).toBeUndefined();
  });

  it('closes a socket whose connection_init carries what no header can with 4400 naming it, asking the graph nothing', async () => {
    const { ctx, socket } = contextOf({ Authorization: 'Bearer tk_a\r\nx-evil: 1' });
    expect(await admission.connect(ctx)).toBe(false);
    expect(socket.closedWith).toEqual({
      code: 4400,
      reason: 'Bad connection_init: authorization holds a character no HTTP header can carry.',
    });
    expect(graph.asked).toEqual([]);
  });

  it('takes a socket without a credential as its address and language, asking the graph nothing', async () => {
    const { ctx } = contextOf({ 'Accept-Language': 'ar-EG,en;q=0.5' });
    expect(await admission.connect(ctx)).toBe(true);
    const connection = admission.connectionOf(ctx);
    expect(connection).toMatchObject({ language: 'ar', address: '198.51.100.7' });
    expect(connection.authorization).toBeUndefined();
    expect(headersOf(connection)).toEqual({ 'accept-language': 'ar' });
    expect(graph.asked).toEqual([]);
  });

  it('lets a session in before it names a branch, unchecked, so its operations run as the session', async () => {
    const { ctx } = contextOf({ authorization: 'Bearer ses_abc' });
    expect(await admission.connect(ctx)).toBe(true);
    const connection = admission.connectionOf(ctx);
    expect(headersOf(connection)).toEqual({ 'accept-language': 'en', authorization: 'Bearer ses_abc' });
    expect(connection.branchId).toBeUndefined();
    expect(connection.gate).toBeUndefined();
    expect(graph.asked).toEqual([]);
  });

  it('asks the graph past its cache who a key is, and registers the socket under the branch it names', async () => {
    const { ctx } = contextOf({ authorization: 'Bearer tk_a' });
    expect(await admission.connect(ctx)).toBe(true);
    expect(graph.asked).toEqual([
      {
        query: 'query LiveKey { currentBranch { id venue { id } } }',
        headers: { authorization: 'Bearer tk_a' },
        recheck: true,
      },
    ]);
    const connection = admission.connectionOf(ctx);
    expect(connection.branchId).toBe(3);
    expect(connection.gate).toBeDefined();
    expect(access.size.credentials).toBe(1);
  });

  it('asks a session with a branch for its person too, and refuses one whose person the graph does not know', async () => {
    graph.answer = { data: { viewer: { id: '42' }, currentBranch: { id: '3', venue: { id: '7' } } } };
    const member = contextOf({ authorization: 'Bearer ses_abc', 'x-branch-id': '3' });
    expect(await admission.connect(member.ctx)).toBe(true);
    expect(graph.asked[0]).toEqual({
      query: 'query LiveMember { viewer { id } currentBranch { id venue { id } } }',
      headers: { authorization: 'Bearer ses_abc', 'x-branch-id': '3' },
      recheck: true,
    });
    expect(headersOf(admission.connectionOf(member.ctx))).toEqual({
      'accept-language': 'en',
      authorization: 'Bearer ses_abc',
      'x-branch-id': '3',
    });

    graph.answer = { data: { viewer: null, currentBranch: { id: '3', venue: { id: '7' } } } };
    expect(
      await admission.connect(contextOf({ authorization: 'Bearer ses_gone', 'x-branch-id': '3' }).ctx),
    ).toBe(false);
  });

  it('reads every spelling of a Bearer credential as its one spelling, for the graph and for every operation', async () => {
    for (const spelling of ['bearer tk_a', 'BEARER  tk_a', ' bEarer tk_a ', 'Bearer\ttk_a\t']) {
      const { ctx } = contextOf({ authorization: spelling });
      expect(await admission.connect(ctx)).toBe(true);
      expect(headersOf(admission.connectionOf(ctx)).authorization).toBe('Bearer tk_a');
    }
    expect(new Set(graph.asked.map((asked) => asked.headers.authorization))).toEqual(
      new Set(['Bearer tk_a']),
    );
    expect(budgets.unknownCounted.map((counted) => counted.headers)).toEqual(
      Array.from({ length: 4 }, () => ({ authorization: 'Bearer tk_a' })),
    );
  });

  it('refuses an Authorization that is no Bearer credential once its address is counted, asking the graph nothing', async () => {
    for (const header of ['Basic dXNlcjpwYXNz', 'Bearer', 'Bearer tk_a tk_b', 'tk_a']) {
      expect(await admission.connect(contextOf({ authorization: header }).ctx)).toBe(false);
    }
    expect(budgets.counted).toEqual(
      Array.from({ length: 4 }, () => ({ headers: {}, address: '198.51.100.7' })),
    );
    expect(graph.asked).toEqual([]);
  });

  it('closes with 4432 a socket whose unknown credential its address has no budget left to check', async () => {
    budgets.unknownDecisions = [SPENT_ADDRESS];
    const { ctx, socket } = contextOf({ authorization: 'Bearer tk_invented' });
    expect(await admission.connect(ctx)).toBe(false);
    expect(socket.closedWith).toEqual({
      code: 4432,
      reason: 'Too many requests from this address: retry later',
    });
    expect(graph.asked).toEqual([]);
  });

  it('refuses a credential the graph refuses, and throws when the graph cannot tell', async () => {
    for (const code of ['UNAUTHENTICATED', 'PAYMENT_REQUIRED', 'FORBIDDEN']) {
      graph.answer = { errors: [{ message: 'no', extensions: { code } }] };
      expect(await admission.connect(contextOf({ authorization: 'Bearer tk_a' }).ctx)).toBe(false);
    }
    graph.answer = {
      errors: [{ message: 'tickets is away', extensions: { code: 'INTERNAL_SERVER_ERROR' } }],
    };
    await expect(admission.connect(contextOf({ authorization: 'Bearer tk_a' }).ctx)).rejects.toThrow(
      'could not check the credential: tickets is away',
    );
    expect(access.size.credentials).toBe(0);
  });

  it('counts each operation against the connection’s budget with its headers and address', async () => {
    const { ctx, socket } = contextOf({ authorization: 'Bearer tk_a', 'accept-language': 'ar' });
    await admission.connect(ctx);
    expect(await admission.refusalOf(ctx)).toBeUndefined();
    expect(budgets.counted).toEqual([
      { headers: { 'accept-language': 'ar', authorization: 'Bearer tk_a' }, address: '198.51.100.7' },
    ]);

    budgets.decisions = [
      {
        policy: { name: 'tickets', quota: 60, windowSeconds: 60 },
        allowed: false,
        remaining: 0,
        resetSeconds: 12,
      },
    ];
    const refused = await admission.refusalOf(ctx);
    expect(refused?.map((error) => [error.extensions.code, error.extensions.retryAfter])).toEqual([
      ['RATE_LIMITED', 12],
    ]);
    // A refused operation is answered; its socket stays open.
    expect(socket.closedWith).toBeUndefined();
  });

  it('closes a socket that holds more operations than it may with 4431, before counting or parsing anything', async () => {
    const { ctx, socket } = contextOf({}, 3);
    await admission.connect(ctx);
    const refused = await admission.refusalOf(ctx);
    expect(refused?.map((error) => [error.message, error.extensions.code])).toEqual([
      ['Too many operations on this socket', 'RATE_LIMITED'],
    ]);
    expect(socket.closedWith).toEqual({ code: 4431, reason: 'Too many operations on this socket' });
    expect(budgets.counted).toEqual([]);
  });

  it('refuses an operation of a socket it never accepted', async () => {
    const { ctx } = contextOf({ authorization: 'Bearer tk_a' });
    graph.answer = { errors: [{ message: 'no', extensions: { code: 'UNAUTHENTICATED' } }] };
    await admission.connect(ctx);
    await expect(admission.refusalOf(ctx)).rejects.toThrow(
      'an operation before the connection was acknowledged',
    );
  });
});
