import { readFile } from 'node:fs/promises';
import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import type { GraphQLSchema } from 'graphql';
import type { Config } from '../common/config';
import { platformApolloOptions } from '../common/graphql-server';
import { HttpService } from '../common/http-service';
import { createLogger, type Logger } from '../common/logger';
import { pgPoolState, ProcessMetrics } from '../common/metrics';
import { SUPERGRAPH_FILE } from '../common/paths';
import { createProbePool } from '../common/postgres';
import { stopOnce, type Running } from '../common/process';
import { KnownCredentials, RateBudgets, ratePolicies } from '../common/rate-budget';
import { connectRedis, type Redis } from '../common/redis';
import {
  gatewayRunQuery,
  SessionResolver,
  type GatewayContext,
  type Principal,
  type RunQuery,
} from './context';
import { errorStatusPlugin, mountGraph } from './door';
import { mountExplorer, readExplorerBundle } from './explorer';
import { InflightFetches, plannerOf, PreparedOperations, subgraphFetcher } from './fetch';
import { CostModel, GatewayRateLimits, inputGuardPlugin, queryLimitOptions, rateLimitPlugin } from './limits';
import { startLiveServer, type RunningLiveServer } from './live';
import { GatewayMetrics, senderOf } from './observe';

export interface RunningGateway extends Running {
  port: number;
  metricsPort: number;
}

/** The gateway's Apollo server, the budgets its operations count against, and its own way in. */
interface Graph {
  apollo: ApolloServer<GatewayContext>;
  apiSchema: GraphQLSchema;
  limits: GatewayRateLimits;
  sessions: SessionResolver;
  runQuery: RunQuery;
  /** An access announcement arrived: nothing sent before it is joined any more. */
  accessChanged: () => void;
  /** Absent when the door is to hand every request to Apollo (GATEWAY_PREPARED_OPERATIONS=false). */
  prepared: PreparedOperations | undefined;
}

/** Plans operations over the subgraphs composed in schema/supergraph.graphql. */
async function startGraph(
  config: Config,
  logger: Logger,
  backing: {
    supergraphSdl: string;
    costModel: CostModel;
    redis: Redis;
    fetcher: ReturnType<typeof subgraphFetcher>;
    /** Absent when identical fetches are not to be shared (GATEWAY_SHARE_FETCHES=false). */
    inflight: InflightFetches | undefined;
    metrics: GatewayMetrics;
    processMetrics: ProcessMetrics;
  },
): Promise<Graph> {
  const { costModel, redis, metrics, inflight } = backing;
  const sessions = new SessionResolver(config, inflight?.keyed<Principal>());
  const gateway = plannerOf(config, logger, backing, sessions);
  let apiSchema: GraphQLSchema | undefined;
  gateway.onSchemaLoadOrUpdate((loaded) => (apiSchema = loaded.apiSchema));
  const limits = new GatewayRateLimits({
    budgets: new RateBudgets(
      redis,
      config.redisPrefix,
      logger,
      backing.processMetrics.rateBudgetObserver(),
      config.rateCountTimeoutMs,
    ),
    policies: ratePolicies(config),
    credentials: new KnownCredentials(redis, config.redisPrefix),
    runQuery: (...args) => runQuery(...args),
    acceptedInternalSecrets: config.acceptedInternalSecrets,
    logger,
    refused: (door, decision) => metrics.rateLimitedBy(door, decision),
  });
  const bounds = queryLimitOptions(config.graphqlLimits, config.nodeEnv === 'production', costModel);
  const prepared =
    config.frontDoor && config.preparedOperations
      ? new PreparedOperations({
          withinCost: (...args) => bounds.withinCost(...args),
          decisionsOf: (...args) => limits.decisionsOf(...args),
          answered: (operation, name, result, context, decisions) =>
            metrics.answered(operation, name, result, senderOf(context, decisions)),
          logger,
        })
      : undefined;
  // Before Apollo starts: it takes the gateway's executor then.
  prepared?.attach(gateway);
  const apollo = new ApolloServer<GatewayContext>({
    gateway,
    ...platformApolloOptions(logger, config.nodeEnv),
    validationRules: bounds.validationRules,
    parseOptions: bounds.parseOptions,
    plugins: [
      // Apollo's page loads its scripts and fonts from CDNs: blank offline, and in production a
      // browser should get the same 400 as any client without a query. mountExplorer serves ours.
      ApolloServerPluginLandingPageDisabled(),
      metrics.plugin(),
      inputGuardPlugin(),
      ...bounds.plugins,
      rateLimitPlugin(limits),
      errorStatusPlugin(),
      ...(prepared === undefined ? [] : [prepared.plugin()]),
    ],
  });
  await apollo.start();
  if (apiSchema === undefined) throw new Error('the gateway started without its schema');

  const runQuery = gatewayRunQuery(apollo, sessions);
  const accessChanged = () => {
    inflight?.accessChanged();
    limits.accessChanged();
  };
  return { apollo, apiSchema, limits, sessions, runQuery, accessChanged, prepared };
}

/** The one graph, over HTTP and graphql-ws on one port. */
export async function startGateway(config: Config): Promise<RunningGateway> {
  // @apollo/gateway otherwise sends usage metrics to Apollo and probes cloud metadata addresses
  // (169.254.169.254 and the like) at start; the platform talks to nothing it was not told about.
  process.env.APOLLO_TELEMETRY_DISABLED = 'true';
  const logger = createLogger({ service: 'gateway', level: config.logLevel });
  const metrics = new ProcessMetrics('gateway');
  const gatewayMetrics = new GatewayMetrics(metrics);
  const supergraphSdl = await readFile(SUPERGRAPH_FILE(), 'utf8');
  const pool = createProbePool(config.databaseUrl);
  const redis = await connectRedis(config.redis, 'gateway', logger);
  const fetcher = subgraphFetcher(config.upstreamTimeoutMs);
  // The API schema drops the subgraphs' @listSize and @cost; the estimate reads them from here.
  const costModel = CostModel.fromSupergraph(supergraphSdl);
  // Filled once the HTTP server listens, since graphql-ws shares its port.
  const live: { server?: RunningLiveServer } = {};
  // Its feed hears the access announcements; until it listens nothing is shared.
  const inflight = config.shareSubgraphFetches
    ? new InflightFetches({
        logger,
        joined: (subgraph) => gatewayMetrics.fetchShared(subgraph),
        hearsAccess: () => live.server?.hearsAccess() ?? false,
      })
    : undefined;
  const graph = await startGraph(config, logger, {
    supergraphSdl,
    costModel,
    redis,
    fetcher,
    metrics: gatewayMetrics,
    processMetrics: metrics,
    inflight,
  });

  const service = HttpService.forPlatform(config, 'gateway', logger, {
    postgres: () => pool.query('select 1'),
    redis,
    health: () => ({ subscribers: live.server?.hub.subscribers ?? 0 }),
    metrics,
    pool: () => pgPoolState(pool),
  });
  if (config.nodeEnv !== 'production') mountExplorer(service.app, await readExplorerBundle(), logger);
  mountGraph(service, graph, config, logger);
  const port = await service.listen(config.ports.gateway, config.listenHost);
  live.server = await startLiveServer({
    server: service.httpServer,
    apiSchema: graph.apiSchema,
    runQuery: graph.runQuery,
    limits: graph.limits,
    costModel,
    redis,
    config,
    logger,
    accessChanged: graph.accessChanged,
    ticketsChanged: () => inflight?.dataChanged('tickets'),
  });
  const liveServer = live.server;
  gatewayMetrics.watchLive({
    sockets: () => liveServer.sockets(),
    subscribersByField: () => liveServer.hub.subscribersByField(),
  });

  return {
    port,
    metricsPort: service.metricsPort,
    stop: stopOnce(async () => {
      // The load balancer takes this replica out first; then subscribers are told to reconnect
      // (1001, which the page's client answers by reconnecting and refetching) and reach another
      // replica, before the HTTP side drains.
      await service.announceDrain();
      await live.server?.stop();
      await service.close();
      await graph.apollo.stop();
      await pool.end();
      fetcher.close();
      redis.disconnect();
      logger.info('gateway stopped');
    }),
  };
}
