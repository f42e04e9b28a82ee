import type { IncomingMessage } from 'node:http';
import { GraphQLError } from 'graphql';
import type { Context } from 'graphql-ws';
import type { Extra } from 'graphql-ws/use/ws';
import type { WebSocket } from 'ws';
import { clientAddressOf, type ProxyTrust } from '../../common/client-address';
import type { Config } from '../../common/config';
import { languageOf, type TextLanguage } from '../../common/language';
import { refusalOf, type RateDecision } from '../../common/rate-budget';
import { readAuthorization } from '../../contracts/authorization';
import { BRANCH_HEADER, sessionTokenOf } from '../../contracts/identity/session';
import type { GatewayContext, RunQuery } from '../context';
import { mayReplayOfflineWork, rateLimitedError } from '../limits';
import { presentedCredentials } from '../../contracts/credentials';
import type { CheckCredential, GatedSocket, LiveAccess } from './live-access';
import { OperationOrder } from './live-order';

/** WebSocket close codes of the live server's admission: what a client may open and send. */
export const ADMISSION_CLOSE = {
  /** connection_init carried a parameter the gateway cannot read, as graphql-ws's own 4400. */
  badParams: 4400,
  /** More sockets from one client address than one gateway process takes. */
  tooManySockets: { code: 4430, reason: 'Too many live connections from this address' },
  /** More operations at once on one socket than it may hold. */
  tooManyOperations: { code: 4431, reason: 'Too many operations on this socket' },
  /** A credential to check while its client address has no budget left for the check. */
  tooManyRequests: { code: 4432, reason: 'Too many requests from this address: retry later' },
} as const;

/**
 * Sockets open per client address on this process. The cap bounds what one address can make one
 * gateway process hold in memory, which is a per-process resource, so the count is kept here
 * rather than in Redis; the per-address request budget, which is in Redis, bounds how fast any
 * address opens them platform-wide.
 */
export class SocketsPerAddress {
  private readonly open = new Map<string, number>();

  constructor(private readonly max: number) {}

  /** Counts the socket under its address until it closes; false, and not counted, past the cap. */
  take(address: string | undefined, socket: WebSocket): boolean {
    if (address === undefined) return true;
    const count = this.open.get(address) ?? 0;
    if (count >= this.max) return false;
    this.open.set(address, count + 1);
    socket.once('close', () => {
      const left = (this.open.get(address) ?? 1) - 1;
      if (left <= 0) this.open.delete(address);
      else this.open.set(address, left);
    });
    return true;
  }

  of(address: string): number {
    return this.open.get(address) ?? 0;
  }
}

/** The connection_init parameters the gateway reads; it passes them on as HTTP headers. */
const READ_PARAMS = ['authorization', 'x-api-key', BRANCH_HEADER, 'accept-language'] as const;
/** What an HTTP header value may hold: no NUL, CR, LF or other controls, and nothing beyond Latin-1. */
const HEADER_TEXT = /^[\t\x20-\x7e\x80-\xff]*$/;
/**
 * Longer than any credential, branch id or language list; with the four of them at this length a
 * subgraph request still fits HEADER_LIMITS.subgraph.
 */
const MAX_PARAM_CHARS = 2048;

/**
 * Why a parameter of connection_init cannot be used, or undefined when all can. Over HTTP such
 * values cannot arrive at all (Node refuses the request), so here they are refused as plainly
 * instead of failing later as a header no subgraph request can carry.
 */
export function connectionParamProblem(params: Record<string, unknown>): string | undefined {
  for (const name of READ_PARAMS) {
    const value = params[name];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string') return `Bad connection_init: ${name} must be a string.`;
    if (value.length > MAX_PARAM_CHARS)
      return `Bad connection_init: ${name} is longer than ${MAX_PARAM_CHARS} characters.`;
    if (!HEADER_TEXT.test(value))
      return `Bad connection_init: ${name} holds a character no HTTP header can carry.`;
  }
  return undefined;
}

export function lowerCaseKeys(params: Record<string, unknown> | undefined | null): Record<string, unknown> {
  return Object.fromEntries(Object.entries(params ?? {}).map(([key, value]) => [key.toLowerCase(), value]));
}

export function stringOr(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** graphql-ws's view of one socket of the live server. */
export type LiveSocketContext = Context<Record<string, unknown>, Extra & Partial<Record<PropertyKey, never>>>;

/** An acknowledged socket: who its operations run as, and where its events are written. */
export interface LiveConnection {
  socket: WebSocket;
  language: TextLanguage;
  /** The client's address, by the same proxy rule as HTTP requests; its budget without a key. */
  address: string | undefined;
  authorization?: string;
  /** The X-Branch-Id of a signed-in member's board; none for a key or a board device. */
  branchHeader?: string;
  branchId?: number;
  /** Where a credentialed connection's events are written, held while its credential is rechecked. */
  gate?: GatedSocket;
  /** A query sent after a subscription runs once that subscription listens (OperationOrder). */
  order: OperationOrder;
  /**
   * What each operation's count said as it arrived, by the payload graphql-ws hands over: the
   * operation's count goes on from it once parsed (GatewayRateLimits), as an HTTP request's does.
   */
  counted?: WeakMap<object, RateDecision[]>;
}

/** The headers a connection's own operations carry through the gateway, as an HTTP request's would. */
export function headersOf(connection: LiveConnection): GatewayContext['headers'] {
  return {
    'accept-language': connection.language,
    ...(connection.authorization !== undefined ? { authorization: connection.authorization } : {}),
    ...(connection.branchHeader !== undefined ? { [BRANCH_HEADER]: connection.branchHeader } : {}),
  };
}

/** Counts one operation against the budgets of the credential it carries (GatewayRateLimits). */
export interface OperationBudgets {
  take(headers: GatewayContext['headers'], address: string | undefined): Promise<RateDecision[]>;
  /** Counts the address for a credential not known as valid, before it is checked with the graph. */
  takeUnknown(headers: GatewayContext['headers'], address: string | undefined): Promise<RateDecision[]>;
}

export interface LiveAdmissionOptions {
  limits: Config['live'];
  budgets: OperationBudgets;
  access: LiveAccess;
  /** The same rule as the HTTP frame's `req.ip`, for the upgrade request that opened a socket. */
  trust: ProxyTrust;
  /** Told of each operation a budget refused. */
  refused?: (decision: RateDecision) => void;
}

/**
 * What a client may open and send on the live server: sockets per client address as each opens,
 * the credential and parameters of `connection_init`, and, for every operation, the operations its
 * socket already holds and the budget it counts against.
 */
export class LiveAdmission {
  private readonly connections = new WeakMap<LiveSocketContext, LiveConnection>();
  private readonly socketsPerAddress: SocketsPerAddress;

  constructor(private readonly options: LiveAdmissionOptions) {
    this.socketsPerAddress = new SocketsPerAddress(options.limits.maxSocketsPerAddress);
  }

  /** A socket as it opens, before its `connection_init`: closed with 4430 past its address's cap. */
  opened(socket: WebSocket, request: IncomingMessage): void {
    if (!this.socketsPerAddress.take(clientAddressOf(request, this.options.trust), socket)) {
      socket.close(ADMISSION_CLOSE.tooManySockets.code, ADMISSION_CLOSE.tooManySockets.reason);
    }
  }

  /**
   * graphql-ws's `onConnect`: true once the socket's parameters and credential are accepted. False
   * closes it with graphql-ws's 4403; a credential the graph cannot judge throws, which closes it
   * with 4500.
   */
  async connect(ctx: LiveSocketContext): Promise<boolean> {
    const params = lowerCaseKeys(ctx.connectionParams);
    const problem = connectionParamProblem(params);
    if (problem !== undefined) {
      // The close wins over graphql-ws's own 4403, so the client learns what to fix.
      ctx.extra.socket.close(ADMISSION_CLOSE.badParams, problem);
      return false;
    }
    const connection: LiveConnection = {
      socket: ctx.extra.socket,
      language: languageOf(stringOr(params['accept-language'])),
      address: clientAddressOf(ctx.extra.request, this.options.trust),
      order: new OperationOrder(),
      counted: new WeakMap(),
    };
    // Read as every door reads it: one spelling per credential, whatever the client sent.
    const reading = readAuthorization(stringOr(params.authorization));
    if (reading.kind === 'malformed') {
      // Counted against its address, as over HTTP, then refused as the graph refuses a credential.
      await this.options.budgets.take({}, connection.address);
      return false;
    }
    const authorization = reading.kind === 'bearer' ? reading.header : undefined;
    const branchHeader = stringOr(params[BRANCH_HEADER]);
    if (
      authorization !== undefined &&
      branchHeader === undefined &&
      sessionTokenOf(authorization) !== undefined
    ) {
      // A signed-in person before choosing a branch (the board's sign-in): their operations run
      // as the session; a branch feed needs the branch named.
      connection.authorization = authorization;
    } else if (authorization !== undefined) {
      // Checking an unknown credential with the graph costs its address one request, as over HTTP.
      const counted = await this.options.budgets.takeUnknown({ authorization }, connection.address);
      const refused = refusalOf(counted);
      if (refused !== undefined) {
        this.options.refused?.(refused);
        const { code, reason } = ADMISSION_CLOSE.tooManyRequests;
        ctx.extra.socket.close(code, reason);
        return false;
      }
      const { access } = this.options;
      const mark = access.mark;
      const subject = await access.subjectOf(authorization, branchHeader);
      if (subject === null) return false;
      connection.authorization = authorization;
      connection.branchHeader = branchHeader;
      connection.branchId = subject.branchId;
      connection.gate = access.admit(ctx.extra.socket, authorization, branchHeader, subject, mark);
    }
    this.connections.set(ctx, connection);
    return true;
  }

  /** The connection `connect` accepted for a socket. */
  connectionOf(ctx: LiveSocketContext): LiveConnection {
    const connection = this.connections.get(ctx);
    if (connection === undefined) throw new Error('an operation before the connection was acknowledged');
    return connection;
  }

  /**
   * Why an operation the socket sent is refused, or undefined when it may go on. Counted before
   * anything of it is parsed, so a flood of operations costs no parsing. A refused operation gets
   * an error result and its socket stays open, except past the operations a socket may hold (4431).
   * A board device's operation that may replay its offline work (`payload` names occurredAt) is
   * not refused here: once parsed, its device's sync allowance or the same refusal decides.
   */
  async refusalOf(
    ctx: LiveSocketContext,
    payload?: { query?: unknown },
  ): Promise<readonly GraphQLError[] | undefined> {
    if (Object.keys(ctx.subscriptions).length > this.options.limits.maxOperationsPerSocket) {
      const { code, reason } = ADMISSION_CLOSE.tooManyOperations;
      ctx.extra.socket.close(code, reason);
      return [new GraphQLError(reason, { extensions: { code: 'RATE_LIMITED' } })];
    }
    const connection = this.connectionOf(ctx);
    const headers = headersOf(connection);
    const decisions = await this.options.budgets.take(headers, connection.address);
    if (payload !== undefined) connection.counted?.set(payload, decisions);
    const refused = refusalOf(decisions);
    const board = presentedCredentials(headers).credentials.some(({ kind }) => kind === 'board');
    if (refused !== undefined && !(board && payload !== undefined && mayReplayOfflineWork(payload.query))) {
      this.options.refused?.(refused);
      return [rateLimitedError(decisions, connection.language)];
    }
    return undefined;
  }
}

/** Codes that mean the credential itself is refused, as opposed to the graph being unable to answer. */
const REFUSED = new Set(['UNAUTHENTICATED', 'PAYMENT_REQUIRED', 'FORBIDDEN']);

/**
 * Who a credential is, asked of the graph past the tickets subgraph's cache (which may not have
 * heard an announcement yet): its branch and venue, and a session's person. Null when refused; a
 * throw when the graph cannot tell.
 */
export function credentialCheck(runQuery: RunQuery): CheckCredential {
  return async (authorization, branchHeader) => {
    const session = sessionTokenOf(authorization) !== undefined;
    const result = await runQuery(
      session
        ? 'query LiveMember { viewer { id } currentBranch { id venue { id } } }'
        : 'query LiveKey { currentBranch { id venue { id } } }',
      {},
      { authorization, ...(branchHeader !== undefined ? { [BRANCH_HEADER]: branchHeader } : {}) },
      undefined,
      { recheck: true },
    );
    const error = result.errors?.[0];
    if (error !== undefined) {
      if (REFUSED.has(String(error.extensions?.code))) return null;
      throw new Error(`could not check the credential: ${error.message}`);
    }
    const data = result.data as
      | { viewer?: { id: string } | null; currentBranch?: { id: string; venue: { id: string } } | null }
      | undefined;
    const branch = data?.currentBranch;
    if (branch == null || (session && data?.viewer == null)) return null;
    return {
      branchId: Number(branch.id),
      venueId: Number(branch.venue.id),
      ...(session && data?.viewer != null ? { userId: Number(data.viewer.id) } : {}),
    };
  };
}
