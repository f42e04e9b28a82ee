import { readFile } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { ApolloGateway } from '@apollo/gateway';
import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import type { Config, SubgraphName } from '../common/config';
import { createProbePool } from '../common/postgres';
import { mountGraphQL, PHOTO_BODY_LIMIT, platformApolloOptions } from '../common/graphql-server';
import { HttpService } from '../common/http-service';
import { nameRoute, pgPoolState, ProcessMetrics } from '../common/metrics';
import { createLogger, type Logger } from '../common/logger';
import { SUPERGRAPH_FILE } from '../common/paths';
import { stopOnce, type Running } from '../common/process';
import { connectRedis, type Redis } from '../common/redis';
import type { GraphQLSchema } from 'graphql';
import { KnownCredentials, RateBudgets, ratePolicies } from '../common/rate-budget';
import { errorStatusPlugin } from './door/error-status.plugin';
import { CostModel } from './limits/operation-cost';
import { readExplorerBundle } from './explorer/explorer-bundle';
import { mountExplorer } from './explorer/explorer-route';
import { queryLimitOptions } from './limits/query-limits';
import { canonicalHeaders, GatewayRateLimits } from './limits/rate-limit';
import type { RunQuery } from './live/live-hub';
import { startLiveServer, type RunningLiveServer } from './live/live-server';
import { SessionResolver, type Principal } from './context/sessions';
import { subgraphFetcher } from './fetch/subgraph-fetcher';
import { REQUEST_ID_HEADER } from '../common/request-context';
import { CLIENT_ADDRESS_HEADER } from '../contracts/identity/session';
import { ACCESS_RECHECK_HEADER } from '../contracts/tickets/access-change';
import { inputGuardPlugin } from './limits/input-guard.plugin';
import { GatewayMetrics, senderOf } from './observe/gateway-metrics';
import { graphqlDoor } from './door/graphql-door';
import { InflightFetches } from './fetch/inflight-fetches';
import { PreparedOperations } from './fetch/prepared-operations';
import {
  FORWARDED_HEADERS,
  GATEWAY_SET_HEADERS,
  HeaderForwardingDataSource,
  type GatewayContext,
} from './fetch/header-forwarding.data-source';

export interface RunningGateway extends Running {
  port: number;
  metricsPort: number;
}

/** The headers of a client request that the subgraphs are given, credentials in their one spelling. */
function forwardedHeaders(req: IncomingMessage): GatewayContext['headers'] {
  const headers: GatewayContext['headers'] = {};
  for (const name of FORWARDED_HEADERS) {
    const value = req.headers[name];
    headers[name] = Array.isArray(value) ? value[0] : value;
  }
  return canonicalHeaders(headers);
}

function isSubgraphName(name: string): name is SubgraphName {
  return name === 'tickets' || name === 'cv' || name === 'billing' || name === 'identity';
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

/** The query planner over the subgraphs, each fetched through the gateway's own data source. */
function plannerOf(
  config: Config,
  logger: Logger,
  backing: Pick<Parameters<typeof startGraph>[2], 'supergraphSdl' | 'fetcher' | 'inflight' | 'metrics'>,
  sessions: SessionResolver,
): ApolloGateway {
  const { supergraphSdl, fetcher, metrics, inflight } = backing;
  return new ApolloGateway({
    supergraphSdl,
    logger,
    buildService: ({ name, url }) =>
      new HeaderForwardingDataSource(
        {
          url: isSubgraphName(name) ? config.subgraphUrls[name] : url,
          // Inside the sharing: the histogram counts the fetches the subgraphs were sent.
          fetcher: metrics.timedFetcher(isSubgraphName(name) ? name : 'other', fetcher),
        },
        config.internalSecret,
        name,
        inflight,
        // A sign-out, a revoked session or a new password holds here from its answer on.
        name === 'identity' ? () => sessions.forgetKept() : undefined,
      ),
  });
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
    budgets: new RateBudgets(redis, config.redisPrefix, logger, backing.processMetrics.rateBudgetObserver()),
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
      limits.plugin(),
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

/**
 * Operations the gateway runs itself (graphql-ws, the live hub, credential lookups) are resolved
 * as an HTTP request is: a `Bearer ses_…` becomes the session's user, and only the gateway says so.
 */
function gatewayRunQuery(apollo: ApolloServer<GatewayContext>, sessions: SessionResolver): RunQuery {
  return async (query, variables, given, client, options) => {
    const headers: GatewayContext['headers'] = { ...given };
    for (const name of GATEWAY_SET_HEADERS) delete headers[name];
    Object.assign(
      headers,
      await sessions.headersFor(headers.authorization, headers[REQUEST_ID_HEADER], options?.recheck === true),
    );
    if (client?.address !== undefined) headers[CLIENT_ADDRESS_HEADER] = client.address;
    if (options?.recheck === true) headers[ACCESS_RECHECK_HEADER] = '1';
    const response = await apollo.executeOperation(
      { query, variables },
      { contextValue: { headers, client } },
    );
    if (response.body.kind !== 'single') throw new Error('the gateway answered in increments');
    return response.body.singleResult;
  };
}

/** HTTP `/graphql`: counted as it arrives, then planned with the client's forwarded headers. */
function mountGraph(
  service: HttpService,
  { apollo, limits, sessions, prepared }: Graph,
  config: Config,
  logger: Logger,
): void {
  const context = async (
    headers: GatewayContext['headers'],
    address: string | undefined,
    client: GatewayContext['client'],
  ): Promise<GatewayContext> => {
    Object.assign(headers, await sessions.headersFor(headers.authorization, headers[REQUEST_ID_HEADER]));
    headers[CLIENT_ADDRESS_HEADER] = address;
    // Over HTTP only the platform's own requests (the internal credential) come without a client.
    return client === undefined ? { headers, client, platform: true } : { headers, client };
  };
  if (config.frontDoor) {
    service.setFrontDoor(
      graphqlDoor({
        service,
        apollo,
        limits,
        logger,
        forwardedHeaders,
        context,
        prepared,
        bodyLimit: PHOTO_BODY_LIMIT,
      }),
    );
  }
  service.app.use('/graphql', nameRoute('/graphql'), limits.httpMiddleware(forwardedHeaders));
  mountGraphQL(
    service,
    apollo,
    ({ req, res }) => context(forwardedHeaders(req), req.ip, GatewayRateLimits.clientOf(req, res.locals)),
    PHOTO_BODY_LIMIT,
  );
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
