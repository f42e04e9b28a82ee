import type { Server } from 'node:http';
import {
  buildSchema,
  createSourceEventStream,
  getOperationAST,
  getVariableValues,
  GraphQLError,
  OperationTypeNode,
  printSchema,
  specifiedRules,
  validate,
  type DocumentNode,
  type FieldNode,
  type ExecutionResult,
  type FormattedExecutionResult,
  type GraphQLField,
  type GraphQLResolveInfo,
  type GraphQLSchema,
} from 'graphql';
import type { Context, SubscribePayload } from 'graphql-ws';
import { useServer, type Extra } from 'graphql-ws/use/ws';
import { WebSocketServer, type WebSocket } from 'ws';
import { clientAddressOf, proxyTrust } from '../../common/client-address';
import type { Config } from '../../common/config';
import { NotFoundError, UnauthenticatedError } from '../../common/errors';
import { languageOf, type TextLanguage } from '../../common/language';
import type { Logger } from '../../common/logger';
import { RedisSubscription, type Redis } from '../../common/redis';
import { BRANCH_HEADER, sessionTokenOf } from '../../contracts/identity/session';
import { accessChannel } from '../../contracts/tickets/access-change';
import { liveEventsChannel, type LiveEvent } from '../../contracts/tickets/live-event';
import { refusalOf } from '../../common/rate-budget';
import type { GatewayContext } from '../header-forwarding.data-source';
import { costError, costOf, parseWithinLimits, queryLimitRules, withoutSuggestions } from '../query-limits';
import { rateLimitedError, type GatewayRateLimits } from '../rate-limit';
import { LiveHub, type LiveReader, type RunQuery } from './live-hub';
import { livePlanOf, type LivePlan } from './live-plan';

/** Codes that mean the key itself is refused, as opposed to the graph being unable to answer. */
const REFUSED = new Set(['UNAUTHENTICATED', 'PAYMENT_REQUIRED', 'FORBIDDEN']);

/**
 * A revocation is announced once the database has it, and every tickets subgraph forgets its cached
 * answer on the same announcement; the gateway asks again only after they have had time to.
 */
const RECHECK_DELAY_MS = 500;

/**
 * Tokens this process has seen name a ticket. Tickets are never deleted, so a known token stays
 * good; remembering them spares the tickets subgraph a query per subscribe when every page of a
 * busy venue reconnects at once (after a deploy, say).
 */
const KNOWN_TOKENS_MAX = 50_000;

/**
 * Parsed and validated documents by their text: thousands of customer pages send the same
 * subscription, and each would otherwise hold its own syntax tree for as long as it is open.
 */
const DOCUMENTS_MAX = 1_000;

/** WebSocket "Try Again Later": the live feed is away for now; clients retry, then refetch. */
const LIVE_UNAVAILABLE_CODE = 1013;
/** connection_init carried a parameter the gateway cannot read, as graphql-ws's own 4400. */
const BAD_PARAMS_CODE = 4400;
const LIVE_UNAVAILABLE_REASON = 'Live updates are unavailable; reconnect shortly';

/** Queries arrive as small JSON messages; anything bigger is not a client of this API. */
const MAX_MESSAGE_BYTES = 64 * 1024;

interface Connection {
  socket: WebSocket;
  language: TextLanguage;
  /** The client's address, by the same proxy rule as HTTP requests; its budget without a key. */
  address: string | undefined;
  authorization?: string;
  /** The X-Branch-Id of a signed-in member's board; none for a key or a board device. */
  branchHeader?: string;
  branchId?: number;
}

interface LiveContext {
  connection: Connection;
  /** The client's id of this operation, which every `next` frame carries. */
  id: string;
  payload: SubscribePayload;
}

export interface RunningLiveServer {
  hub: LiveHub;
  stop(): Promise<void>;
}

/**
 * graphql-ws on the gateway's `/graphql`: `ticketUpdated` and `branchTicketsUpdated` are fed by the
 * tickets relay's Redis channel, so a subscriber on any replica sees changes made through any other;
 * queries and mutations sent over the socket run through the gateway like HTTP ones.
 */
export async function startLiveServer(options: {
  server: Server;
  apiSchema: GraphQLSchema;
  runQuery: RunQuery;
  /** Each operation sent over a socket counts against the connection's budget, as over HTTP. */
  limits: GatewayRateLimits;
  redis: Redis;
  config: Config;
  logger: Logger;
}): Promise<RunningLiveServer> {
  const { runQuery, limits, logger, config } = options;
  const schema = buildSchema(printSchema(options.apiSchema));
  // The same rule as the HTTP frame's `req.ip`, for the upgrade request that opened a socket.
  const trust = proxyTrust(config.trustedProxies);
  const hub = new LiveHub(schema, runQuery, logger);
  const connections = new WeakMap<
    Context<Record<string, unknown>, Extra & Partial<Record<PropertyKey, never>>>,
    Connection
  >();
  /** Sockets by the credential they authenticated with (a key, a device, or a session and branch). */
  const byKey = new Map<string, { authorization: string; branchHeader?: string; sockets: Set<WebSocket> }>();
  const credentialKey = (authorization: string, branchHeader: string | undefined) =>
    JSON.stringify([authorization, branchHeader ?? null]);
  /** Display sockets by display id, so a revoked or changed display is closed at once. */
  const byDisplay = new Map<number, Set<WebSocket>>();

  /** The branch of a credential, null when it is refused; throws when the graph cannot tell. */
  const branchOf = async (authorization: string, branchHeader?: string): Promise<number | null> => {
    const result = await runQuery(
      'query LiveBranch { currentBranch { id } }',
      {},
      { authorization, ...(branchHeader !== undefined ? { [BRANCH_HEADER]: branchHeader } : {}) },
    );
    const error = result.errors?.[0];
    if (error !== undefined) {
      if (REFUSED.has(String(error.extensions?.code))) return null;
      throw new Error(`could not check the key: ${error.message}`);
    }
    const id = (result.data as { currentBranch?: { id?: string } } | undefined)?.currentBranch?.id;
    return id === undefined ? null : Number(id);
  };

  const subscriptionFields = schema.getSubscriptionType()?.getFields() ?? {};
  const ticketUpdated = subscriptionFields.ticketUpdated as GraphQLField<unknown, LiveContext> | undefined;
  const branchUpdated = subscriptionFields.branchTicketsUpdated as
    GraphQLField<unknown, LiveContext> | undefined;
  const displayUpdated = subscriptionFields.displayTicketsUpdated as
    GraphQLField<unknown, LiveContext> | undefined;
  if (ticketUpdated === undefined || branchUpdated === undefined || displayUpdated === undefined) {
    throw new Error(
      'the supergraph lacks Subscription.ticketUpdated, branchTicketsUpdated or displayTicketsUpdated',
    );
  }

  const documents = new Map<string, DocumentNode>();
  const limitRules = queryLimitRules(config.graphqlLimits);
  const production = config.nodeEnv === 'production';
  const validated = new WeakMap<DocumentNode, readonly GraphQLError[]>();
  const plans = new WeakMap<FieldNode, LivePlan>();

  const join = (reader: LiveReader, context: LiveContext, info: GraphQLResolveInfo) => {
    const rootField = info.fieldNodes[0];
    if (rootField === undefined) throw new Error('a subscription without its field');
    let plan = plans.get(rootField);
    if (plan === undefined) {
      plan = livePlanOf(info.operation, info.fragments, rootField);
      plans.set(rootField, plan);
    }
    return hub.join(
      {
        reader,
        plan,
        rootField: info.fieldName,
        variables: info.variableValues,
        operationName: info.operation.name?.value,
      },
      context.connection.socket,
      context.id,
    );
  };

  const knownTokens = new Set<string>();
  const checkToken = async (token: string) => {
    if (knownTokens.has(token)) return;
    const found = await runQuery(
      'query LiveTicket($token: String!) { ticketByToken(token: $token) { number } }',
      { token },
      {},
    );
    const error = found.errors?.[0];
    if (error !== undefined) throw new GraphQLError(error.message, { extensions: error.extensions });
    if ((found.data as { ticketByToken: unknown } | undefined)?.ticketByToken == null) {
      throw new NotFoundError('Ticket not found.');
    }
    if (knownTokens.size >= KNOWN_TOKENS_MAX) knownTokens.clear();
    knownTokens.add(token);
  };

  ticketUpdated.subscribe = async (_root, args: { token?: unknown }, context, info) => {
    const token = String(args.token);
    await checkToken(token);
    return join({ kind: 'token', token, language: context.connection.language }, context, info);
  };

  branchUpdated.subscribe = (_root, _args, context, info) => {
    const { authorization, branchHeader, branchId, language } = context.connection;
    if (authorization === undefined || branchId === undefined) {
      throw new UnauthenticatedError(
        'branchTicketsUpdated needs a key, a board device or a session: send {"authorization": "Bearer …"} (and a session’s {"x-branch-id": "…"}) in connection_init.',
      );
    }
    return join({ kind: 'branch', branchId, authorization, branchHeader, language }, context, info);
  };

  /** The display of a token, or the refusal its page is shown. */
  const displayOf = async (token: string): Promise<{ id: number; branchId: number }> => {
    const found = await runQuery(
      'query LiveDisplay($token: String!) { displayBoard(token: $token) { id branchId } }',
      { token },
      {},
    );
    const error = found.errors?.[0];
    if (error !== undefined) throw new GraphQLError(error.message, { extensions: error.extensions });
    const board = (found.data as { displayBoard: { id: string; branchId: string } }).displayBoard;
    return { id: Number(board.id), branchId: Number(board.branchId) };
  };

  displayUpdated.subscribe = async (_root, args: { token?: unknown }, context, info) => {
    const token = String(args.token);
    const display = await displayOf(token);
    const sockets = byDisplay.get(display.id) ?? new Set<WebSocket>();
    sockets.add(context.connection.socket);
    byDisplay.set(display.id, sockets);
    context.connection.socket.once('close', () => {
      sockets.delete(context.connection.socket);
      if (sockets.size === 0) byDisplay.delete(display.id);
    });
    return join(
      { kind: 'display', branchId: display.branchId, token, language: context.connection.language },
      context,
      info,
    );
  };

  /** A display revoked or given new settings: its screen reconnects and reads what it may now. */
  const closeDisplay = (displayId: number) => {
    for (const socket of byDisplay.get(displayId) ?? []) socket.close(4205, 'Display changed');
    byDisplay.delete(displayId);
  };

  const headersOf = (connection: Connection): GatewayContext['headers'] => ({
    'accept-language': connection.language,
    ...(connection.authorization !== undefined ? { authorization: connection.authorization } : {}),
    ...(connection.branchHeader !== undefined ? { [BRANCH_HEADER]: connection.branchHeader } : {}),
  });

  const wss = new WebSocketServer({
    server: options.server,
    path: '/graphql',
    maxPayload: MAX_MESSAGE_BYTES,
  });
  /** A document once parsed, or the syntax error a client is answered with, not a closed socket. */
  const documentOf = (text: string): DocumentNode | GraphQLError => {
    let document = documents.get(text);
    if (document === undefined) {
      try {
        document = parseWithinLimits(text, config.graphqlLimits);
      } catch (error) {
        return withCode(
          error instanceof GraphQLError ? error : new GraphQLError(String(error)),
          'GRAPHQL_PARSE_FAILED',
        );
      }
      if (documents.size >= DOCUMENTS_MAX) documents.clear();
      documents.set(text, document);
    }
    return document;
  };

  const disposable = useServer<Record<string, unknown>>(
    {
      schema,
      // Counted first, so a flood of operations costs no parsing; refused ones get an error
      // result for that operation and the socket stays open.
      onSubscribe: async (ctx, _id, payload) => {
        const connection = connectionOf(ctx);
        const decisions = await limits.take(headersOf(connection), connection.address);
        if (refusalOf(decisions) !== undefined) return [rateLimitedError(decisions, connection.language)];
        const document = documentOf(payload.query);
        if (document instanceof GraphQLError) return [document];
        let errors = validated.get(document);
        if (errors === undefined) {
          errors = validate(schema, document, [...specifiedRules, ...limitRules]).map((error) =>
            withCode(error, 'GRAPHQL_VALIDATION_FAILED', production ? withoutSuggestions : undefined),
          );
          validated.set(document, errors);
        }
        if (errors.length > 0) return errors;
        // Queries and mutations are weighed by the gateway's Apollo pipeline they run through.
        const operation = getOperationAST(document, payload.operationName);
        if (operation?.operation === OperationTypeNode.SUBSCRIPTION) {
          // Variables are the client's to get right, as over HTTP: a missing or mistyped one is
          // BAD_USER_INPUT for that operation, not a throw that would close the socket with 4500.
          const coerced = getVariableValues(
            schema,
            operation.variableDefinitions ?? [],
            payload.variables ?? {},
          );
          if (coerced.errors !== undefined) {
            return coerced.errors.map((error) => withCode(error, 'BAD_USER_INPUT'));
          }
          const cost = costOf(
            schema,
            document,
            payload.variables ?? undefined,
            payload.operationName ?? undefined,
          );
          if (cost > config.graphqlLimits.maxCost) return [costError(cost, config.graphqlLimits)];
        }
        return {
          schema,
          document,
          operationName: payload.operationName,
          variableValues: payload.variables,
        };
      },
      context: (ctx, id, payload): LiveContext => ({ connection: connectionOf(ctx), id, payload }),
      onConnect: async (ctx) => {
        const params = lowerCaseKeys(ctx.connectionParams);
        const problem = connectionParamProblem(params);
        if (problem !== undefined) {
          // The close wins over graphql-ws's own 4403, so the client learns what to fix.
          ctx.extra.socket.close(BAD_PARAMS_CODE, problem);
          return false;
        }
        const connection: Connection = {
          socket: ctx.extra.socket,
          language: languageOf(stringOr(params['accept-language'])),
          address: clientAddressOf(ctx.extra.request, trust),
        };
        const authorization = stringOr(params.authorization);
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
          const branchId = await branchOf(authorization, branchHeader);
          if (branchId === null) return false;
          connection.authorization = authorization;
          connection.branchHeader = branchHeader;
          connection.branchId = branchId;
          const key = credentialKey(authorization, branchHeader);
          const entry = byKey.get(key) ?? { authorization, branchHeader, sockets: new Set<WebSocket>() };
          entry.sockets.add(ctx.extra.socket);
          byKey.set(key, entry);
        }
        connections.set(ctx, connection);
        return true;
      },
      onClose: (ctx) => {
        const connection = connections.get(ctx);
        if (connection?.authorization === undefined) return;
        const key = credentialKey(connection.authorization, connection.branchHeader);
        const entry = byKey.get(key);
        entry?.sockets.delete(ctx.extra.socket);
        if (entry?.sockets.size === 0) byKey.delete(key);
      },
      // The source stream is a LiveSink, which writes its own frames; graphql-js maps nothing.
      subscribe: (args) =>
        createSourceEventStream(args) as Promise<AsyncIterable<ExecutionResult> | ExecutionResult>,
      execute: (args) => {
        const { connection, payload } = args.contextValue as LiveContext;
        return runQuery(payload.query, payload.variables ?? {}, headersOf(connection), {
          address: connection.address,
        }) as Promise<ExecutionResult | FormattedExecutionResult> as Promise<ExecutionResult>;
      },
      // Results of queries over the socket come from Apollo already in their wire form.
      onNext: (_ctx, _id, _payload, _args, result) => result,
    },
    wss,
  );

  function connectionOf(
    ctx: Context<Record<string, unknown>, Extra & Partial<Record<PropertyKey, never>>>,
  ): Connection {
    const connection = connections.get(ctx);
    if (connection === undefined) throw new Error('an operation before the connection was acknowledged');
    return connection;
  }

  /** Closes with 4403 every socket whose credential no longer authenticates. */
  const recheckKeys = async () => {
    for (const [key, { authorization, branchHeader, sockets }] of byKey) {
      try {
        if ((await branchOf(authorization, branchHeader)) !== null) continue;
      } catch (error) {
        logger.warn({ err: error }, 'could not recheck a subscriber key; keeping its sockets');
        continue;
      }
      for (const socket of sockets) socket.close(4403, 'Forbidden');
      byKey.delete(key);
    }
  };

  const events = liveEventsChannel(config.redisPrefix);
  const access = accessChannel(config.redisPrefix);
  /**
   * While the Redis subscription is lost, events published meanwhile never reach this process, and
   * a subscriber would wait for them in vain. So every socket is closed with 1013 (try again
   * later), which graphql-ws clients and the ticket page retry; new sockets get the same until the
   * subscription is whole again, and a client that connects then refetches what it missed.
   */
  const closeAll = () => {
    for (const socket of wss.clients) socket.close(LIVE_UNAVAILABLE_CODE, LIVE_UNAVAILABLE_REASON);
  };
  const subscription = await RedisSubscription.open(options.redis, 'gateway:live-events', [events, access], {
    message: (channel, message) => {
      if (channel === access) {
        const displayId = displayChangeOf(message);
        if (displayId !== undefined) closeDisplay(displayId);
        else setTimeout(() => void recheckKeys(), RECHECK_DELAY_MS).unref();
        return;
      }
      let event: LiveEvent;
      try {
        event = JSON.parse(message) as LiveEvent;
      } catch (error) {
        logger.warn({ err: error }, 'unreadable live event');
        return;
      }
      hub.dispatch(event);
    },
    lost: () => {
      logger.warn(
        { subscribers: hub.subscribers },
        'live events subscription lost; closing subscriber sockets so they reconnect and refetch',
      );
      closeAll();
    },
    restored: () => logger.info('live events subscription restored; accepting subscribers again'),
  });
  wss.on('connection', (socket) => {
    if (!subscription.isLive) socket.close(LIVE_UNAVAILABLE_CODE, LIVE_UNAVAILABLE_REASON);
  });

  return {
    hub,
    stop: async () => {
      await disposable.dispose();
      await subscription.close();
    },
  };
}

/** The display an access announcement names, if it names one. */
function displayChangeOf(message: string): number | undefined {
  try {
    const change = JSON.parse(message) as Partial<Record<'displayId', unknown>>;
    return typeof change.displayId === 'number' ? change.displayId : undefined;
  } catch {
    return undefined;
  }
}

/** The error with the code Apollo gives the same mistake over HTTP, so clients handle both alike. */
function withCode(error: GraphQLError, code: string, rewrite?: (message: string) => string): GraphQLError {
  return new GraphQLError(rewrite === undefined ? error.message : rewrite(error.message), {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    extensions: { ...error.extensions, code },
  });
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
function connectionParamProblem(params: Record<string, unknown>): string | undefined {
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

function lowerCaseKeys(params: Record<string, unknown> | undefined | null): Record<string, unknown> {
  return Object.fromEntries(Object.entries(params ?? {}).map(([key, value]) => [key.toLowerCase(), value]));
}

function stringOr(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
