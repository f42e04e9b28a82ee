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
import {
  ADMISSION_CLOSE,
  connectionParamProblem,
  lowerCaseKeys,
  SocketsPerAddress,
  stringOr,
} from './live-admission';
import { LiveAccess, type CredentialSubject, type GatedSocket } from './live-access';
import { LiveHub, type LiveReader, type RunQuery } from './live-hub';
import { livePlanOf, type LivePlan } from './live-plan';

/** Codes that mean the key itself is refused, as opposed to the graph being unable to answer. */
const REFUSED = new Set(['UNAUTHENTICATED', 'PAYMENT_REQUIRED', 'FORBIDDEN']);

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
  /** Where a credentialed connection's events are written, held while its credential is rechecked. */
  gate?: GatedSocket;
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
  const access = new LiveAccess(
    (authorization, branchHeader) => credentialSubject(runQuery, authorization, branchHeader),
    logger,
  );
  const socketsPerAddress = new SocketsPerAddress(config.live.maxSocketsPerAddress);

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
      context.connection.gate ?? context.connection.socket,
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
    access.watchDisplay(display.id, context.connection.socket);
    return join(
      { kind: 'display', branchId: display.branchId, token, language: context.connection.language },
      context,
      info,
    );
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
        if (Object.keys(ctx.subscriptions).length > config.live.maxOperationsPerSocket) {
          const { code, reason } = ADMISSION_CLOSE.tooManyOperations;
          ctx.extra.socket.close(code, reason);
          return [new GraphQLError(reason, { extensions: { code: 'RATE_LIMITED' } })];
        }
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
          ctx.extra.socket.close(ADMISSION_CLOSE.badParams, problem);
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
          const mark = access.mark;
          const subject = await access.subjectOf(authorization, branchHeader);
          if (subject === null) return false;
          connection.authorization = authorization;
          connection.branchHeader = branchHeader;
          connection.branchId = subject.branchId;
          connection.gate = access.admit(ctx.extra.socket, authorization, branchHeader, subject, mark);
        }
        connections.set(ctx, connection);
        return true;
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

  const events = liveEventsChannel(config.redisPrefix);
  const accessChanges = accessChannel(config.redisPrefix);
  /**
   * While the Redis subscription is lost, events published meanwhile never reach this process, and
   * a subscriber would wait for them in vain. So every socket is closed with 1013 (try again
   * later), which graphql-ws clients and the ticket page retry; new sockets get the same until the
   * subscription is whole again, and a client that connects then refetches what it missed.
   */
  const closeAll = () => {
    for (const socket of wss.clients) socket.close(LIVE_UNAVAILABLE_CODE, LIVE_UNAVAILABLE_REASON);
  };
  const subscription = await RedisSubscription.open(
    options.redis,
    'gateway:live-events',
    [events, accessChanges],
    {
      message: (channel, message) => {
        if (channel === accessChanges) {
          access.announce(message);
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
    },
  );
  wss.on('connection', (socket, request) => {
    if (!subscription.isLive) {
      socket.close(LIVE_UNAVAILABLE_CODE, LIVE_UNAVAILABLE_REASON);
    } else if (!socketsPerAddress.take(clientAddressOf(request, trust), socket)) {
      socket.close(ADMISSION_CLOSE.tooManySockets.code, ADMISSION_CLOSE.tooManySockets.reason);
    }
  });

  return {
    hub,
    stop: async () => {
      await disposable.dispose();
      await subscription.close();
    },
  };
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

/**
 * Who a credential is, asked of the graph past the tickets subgraph's cache (which may not have
 * heard an announcement yet): its branch and venue, and a session's person. Null when refused; a
 * throw when the graph cannot tell.
 */
async function credentialSubject(
  runQuery: RunQuery,
  authorization: string,
  branchHeader: string | undefined,
): Promise<CredentialSubject | null> {
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
}
