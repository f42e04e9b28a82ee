import type { Server } from 'node:http';
import { buildSchema, printSchema, type GraphQLSchema } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import { proxyTrust } from '../../common/client-address';
import type { Config } from '../../common/config';
import type { Logger } from '../../common/logger';
import type { Redis } from '../../common/redis';
import type { RunQuery } from '../context';
import type { CostModel, GatewayRateLimits } from '../limits';
import { credentialCheck, LiveAdmission, type LiveSocketContext } from './live-admission';
import { LiveAccess } from './live-access';
import { LiveFeed } from './live-feed';
import { LiveHub } from './live-hub';
import { LiveRegistry, type LiveContext } from './live-registry';
import { registerWire } from './live-wire';

/** Queries arrive as small JSON messages; anything bigger is not a client of this API. */
const MAX_MESSAGE_BYTES = 64 * 1024;

export interface LiveServerOptions {
  /** The gateway's HTTP server: graphql-ws shares its port and its `/graphql`. */
  server: Server;
  apiSchema: GraphQLSchema;
  runQuery: RunQuery;
  /** Each operation sent over a socket counts against the connection's budget, as over HTTP. */
  limits: GatewayRateLimits;
  /** The subgraphs' declared list sizes and weights, for a subscription's estimate. */
  costModel: CostModel;
  redis: Redis;
  config: Config;
  logger: Logger;
  /** Told of each access announcement the feed hears, before the sockets it concerns are. */
  accessChanged?: () => void;
  /** Told of each live event the feed hears, before its subscribers are. */
  ticketsChanged?: () => void;
}

export interface RunningLiveServer {
  hub: LiveHub;
  /** Open sockets, for the metrics. */
  sockets(): number;
  /** Whether access announcements reach this process now (the feed's subscription is whole). */
  hearsAccess(): boolean;
  stop(): Promise<void>;
}

/**
 * graphql-ws on the gateway's `/graphql`: `ticketUpdated`, `branchTicketsUpdated` and
 * `displayTicketsUpdated` are fed by the tickets relay's Redis channel, so a subscriber on any
 * replica sees changes made through any other; queries and mutations sent over the socket run
 * through the gateway like HTTP ones. Its parts: admission (who may open and send what), the
 * registry (the operations and subscriptions sockets hold), access (revocation), the feed (Redis)
 * and the hub (fan-out).
 */
/**
 * A socket's acknowledgement once admitted: it carries the gateway's clock, by which a board that
 * worked offline corrects its own when it stamps each queued change with the moment it happened.
 */
async function acknowledgement(
  admission: LiveAdmission,
  ctx: LiveSocketContext,
): Promise<false | { serverTime: string }> {
  return (await admission.connect(ctx)) ? { serverTime: new Date().toISOString() } : false;
}

export async function startLiveServer(options: LiveServerOptions): Promise<RunningLiveServer> {
  const { runQuery, logger, config } = options;
  const schema = buildSchema(printSchema(options.apiSchema));
  // The feed opens last (it needs the hub and the sockets); the hub and the registry reach it
  // through this, and a subscription that comes first waits for it.
  const feedRef: { opening?: Promise<LiveFeed>; feed?: LiveFeed } = {};
  const hub = new LiveHub(schema, runQuery, logger, () => feedRef.feed?.idle());
  const access = new LiveAccess(credentialCheck(runQuery), logger);
  const admission = new LiveAdmission({
    limits: config.live,
    budgets: options.limits,
    refused: (decision) => options.limits.reportRefusal('live', decision),
    access,
    trust: proxyTrust(config.trustedProxies),
  });
  const registry = new LiveRegistry(schema, {
    hub,
    access,
    runQuery,
    queryLimits: config.graphqlLimits,
    costModel: options.costModel,
    production: config.nodeEnv === 'production',
    // Set before any socket can be read: the feed's opening starts in this same turn.
    follow: async () => (await feedRef.opening)?.follow(),
  });

  const wss = new WebSocketServer({
    server: options.server,
    path: '/graphql',
    maxPayload: MAX_MESSAGE_BYTES,
    // Never compressed: events are written to the connection framed once for all (live-wire.ts).
    perMessageDeflate: false,
  });
  const disposable = useServer<Record<string, unknown>>(
    {
      schema,
      // Admission first, so an operation refused by count or budget costs no parsing.
      onSubscribe: (ctx, _id, payload) =>
        registry.admit(admission.connectionOf(ctx), payload, () => admission.refusalOf(ctx, payload)),
      context: (ctx, id, payload): LiveContext => ({ connection: admission.connectionOf(ctx), id, payload }),
      onConnect: (ctx) => acknowledgement(admission, ctx),
      // The source stream is a LiveSink, which writes its own frames; graphql-js maps nothing.
      subscribe: (args) => registry.subscribe(args),
      execute: (args) => registry.execute(args),
      // Results of queries over the socket come from Apollo already in their wire form.
      onNext: (_ctx, _id, _payload, _args, result) => result,
    },
    wss,
  );

  feedRef.opening = LiveFeed.open(options.redis, config.redisPrefix, {
    hub,
    access: {
      announce: (message) => {
        options.accessChanged?.();
        access.announce(message);
      },
    },
    sockets: wss.clients,
    ticketsChanged: options.ticketsChanged,
    logger,
  });
  const feed = await feedRef.opening;
  feedRef.feed = feed;
  wss.on('connection', (socket, request) => {
    registerWire(socket, request.socket);
    // A socket the feed turns away is not counted against its address.
    if (!feed.refuses(socket)) admission.opened(socket, request);
  });

  return {
    hub,
    sockets: () => wss.clients.size,
    hearsAccess: () => feed.isLive,
    stop: async () => {
      await disposable.dispose();
      await feed.close();
    },
  };
}
