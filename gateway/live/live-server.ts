import type { Server } from 'node:http';
import {
  buildSchema,
  createSourceEventStream,
  GraphQLError,
  printSchema,
  type ExecutionResult,
  type FormattedExecutionResult,
  type GraphQLField,
  type GraphQLResolveInfo,
  type GraphQLSchema,
} from 'graphql';
import type { Context, SubscribePayload } from 'graphql-ws';
import { useServer, type Extra } from 'graphql-ws/use/ws';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Config } from '../../common/config';
import { NotFoundError, UnauthenticatedError } from '../../common/errors';
import { languageOf, type TextLanguage } from '../../common/language';
import type { Logger } from '../../common/logger';
import type { Redis } from '../../common/redis';
import { accessChannel } from '../../subgraphs/tickets/access-cache';
import { liveEventsChannel, type LiveEvent } from '../../subgraphs/tickets/events/live-event';
import type { GatewayContext } from '../header-forwarding.data-source';
import { LiveHub, type LiveReader, type RunQuery } from './live-hub';
import { livePlanOf } from './live-plan';

/** Codes that mean the key itself is refused, as opposed to the graph being unable to answer. */
const REFUSED = new Set(['UNAUTHENTICATED', 'PAYMENT_REQUIRED', 'FORBIDDEN']);

/**
 * A revocation is announced once the database has it, and every tickets subgraph forgets its cached
 * answer on the same announcement; the gateway asks again only after they have had time to.
 */
const RECHECK_DELAY_MS = 500;

/** Queries arrive as small JSON messages; anything bigger is not a client of this API. */
const MAX_MESSAGE_BYTES = 64 * 1024;

interface Connection {
  socket: WebSocket;
  language: TextLanguage;
  authorization?: string;
  branchId?: number;
}

interface LiveContext {
  connection: Connection;
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
  redis: Redis;
  config: Config;
  logger: Logger;
}): Promise<RunningLiveServer> {
  const { runQuery, logger, config } = options;
  const schema = buildSchema(printSchema(options.apiSchema));
  const hub = new LiveHub(schema, runQuery, logger);
  const connections = new WeakMap<
    Context<Record<string, unknown>, Extra & Partial<Record<PropertyKey, never>>>,
    Connection
  >();
  const byKey = new Map<string, Set<WebSocket>>();

  /** The branch of a key, null when the key is refused; throws when the graph cannot tell. */
  const branchOf = async (authorization: string): Promise<number | null> => {
    const result = await runQuery('query LiveBranch { currentBranch { id } }', {}, { authorization });
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
  if (ticketUpdated === undefined || branchUpdated === undefined) {
    throw new Error('the supergraph lacks Subscription.ticketUpdated or branchTicketsUpdated');
  }

  const join = (reader: LiveReader, info: GraphQLResolveInfo) => {
    const rootField = info.fieldNodes[0];
    if (rootField === undefined) throw new Error('a subscription without its field');
    return hub.join({
      reader,
      plan: livePlanOf(info.operation, info.fragments, rootField),
      rootField: info.fieldName,
      variables: info.variableValues,
      operationName: info.operation.name?.value,
    });
  };

  ticketUpdated.subscribe = async (_root, args: { token?: unknown }, context, info) => {
    const token = String(args.token);
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
    return join({ kind: 'token', token, language: context.connection.language }, info);
  };

  branchUpdated.subscribe = (_root, _args, context, info) => {
    const { authorization, branchId, language } = context.connection;
    if (authorization === undefined || branchId === undefined) {
      throw new UnauthenticatedError(
        'branchTicketsUpdated needs a key: send {"authorization": "Bearer …"} in connection_init.',
      );
    }
    return join({ kind: 'branch', branchId, authorization, language }, info);
  };

  const headersOf = (connection: Connection): GatewayContext['headers'] => ({
    'accept-language': connection.language,
    ...(connection.authorization !== undefined ? { authorization: connection.authorization } : {}),
  });

  const wss = new WebSocketServer({
    server: options.server,
    path: '/graphql',
    maxPayload: MAX_MESSAGE_BYTES,
  });
  const disposable = useServer<Record<string, unknown>>(
    {
      schema,
      context: (ctx, _id, payload): LiveContext => ({ connection: connectionOf(ctx), payload }),
      onConnect: async (ctx) => {
        const params = lowerCaseKeys(ctx.connectionParams);
        const connection: Connection = {
          socket: ctx.extra.socket,
          language: languageOf(stringOr(params['accept-language'])),
        };
        const authorization = stringOr(params.authorization);
        if (authorization !== undefined) {
          const branchId = await branchOf(authorization);
          if (branchId === null) return false;
          connection.authorization = authorization;
          connection.branchId = branchId;
          const sockets = byKey.get(authorization) ?? new Set<WebSocket>();
          sockets.add(ctx.extra.socket);
          byKey.set(authorization, sockets);
        }
        connections.set(ctx, connection);
        return true;
      },
      onClose: (ctx) => {
        const authorization = connections.get(ctx)?.authorization;
        if (authorization === undefined) return;
        const sockets = byKey.get(authorization);
        sockets?.delete(ctx.extra.socket);
        if (sockets?.size === 0) byKey.delete(authorization);
      },
      // The source stream's items are already results (see onNext), so graphql-js maps nothing.
      subscribe: (args) =>
        createSourceEventStream(args) as Promise<AsyncIterable<ExecutionResult> | ExecutionResult>,
      execute: (args) => {
        const { connection, payload } = args.contextValue as LiveContext;
        return runQuery(payload.query, payload.variables ?? {}, headersOf(connection)) as Promise<
          ExecutionResult | FormattedExecutionResult
        > as Promise<ExecutionResult>;
      },
      // Results are already in their wire form: shared by every subscriber of a group, or from Apollo.
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

  /** Closes with 4403 every socket whose key no longer authenticates. */
  const recheckKeys = async () => {
    for (const [authorization, sockets] of byKey) {
      try {
        if ((await branchOf(authorization)) !== null) continue;
      } catch (error) {
        logger.warn({ err: error }, 'could not recheck a subscriber key; keeping its sockets');
        continue;
      }
      for (const socket of sockets) socket.close(4403, 'Forbidden');
      byKey.delete(authorization);
    }
  };

  const events = liveEventsChannel(config.redisPrefix);
  const access = accessChannel(config.redisPrefix);
  const subscriber = options.redis.duplicate({ connectionName: 'gateway:live-events' });
  // Reconnects are reported by readiness; ioredis resubscribes on its own once Redis is back.
  subscriber.on('error', () => undefined);
  subscriber.on('message', (channel: string, message: string) => {
    if (channel === access) {
      setTimeout(() => void recheckKeys(), RECHECK_DELAY_MS).unref();
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
  });
  await subscriber.connect();
  await subscriber.subscribe(events, access);

  return {
    hub,
    stop: async () => {
      await disposable.dispose();
      subscriber.disconnect();
    },
  };
}

function lowerCaseKeys(params: Record<string, unknown> | undefined | null): Record<string, unknown> {
  return Object.fromEntries(Object.entries(params ?? {}).map(([key, value]) => [key.toLowerCase(), value]));
}

function stringOr(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
