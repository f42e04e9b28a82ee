import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginInlineTraceDisabled } from '@apollo/server/plugin/disabled';
import { buildSubgraphSchema, printSubgraphSchema } from '@apollo/subgraph';
import type { GraphQLResolverMap } from '@apollo/subgraph/dist/schema-helper';
import { printSchemaWithDirectives } from '@graphql-tools/utils';
import type { RequestHandler } from 'express';
import { GraphQLError, Kind, parse, type GraphQLSchema } from 'graphql';
import type { IncomingHttpHeaders } from 'node:http';
import { buildSchema, createResolversMap, type ContainerType } from 'type-graphql';
import type { Config, SubgraphName } from './config';
import {
  openSchema,
  postgresAnswering,
  type EntityManager,
  type MikroORM,
  type SchemaModule,
} from './database';
import { graphqlDoor } from './graphql-door';
import { GRAPHQL_BODY_LIMIT, mountGraphQL, platformApolloOptions, type BodyLimit } from './graphql-server';
import { HEADER_LIMITS, HttpService } from './http-service';
import { presentsInternalCredential, requireInternalCredential } from './internal-credential';
import { createLogger, type Logger } from './logger';
import { nameRoute, ormPoolState, ProcessMetrics } from './metrics';
import { stopOnce, type Running } from './process';
import { connectRedis, type Redis } from './redis';
import { REQUEST_ID_HEADER } from './request-context';
import { COST_LINK } from './cost.graphql';

const FEDERATION_LINK = `extend schema @link(url: "https://specs.apollo.dev/federation/v2.7", import: ["@key", "@shareable", "@external", "@requires", "@provides", "@inaccessible"]) ${COST_LINK}`;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each entity's reference has its own key shape
type ReferenceResolver = (reference: any, context: SubgraphContext) => unknown;

/** What one request of a subgraph may use; services get their EntityManager from here only. */
export interface RequestScope {
  em: EntityManager;
  redis: Redis;
  config: Config;
  logger: Logger;
  requestId: string;
  headers: Record<string, string | undefined>;
  /** What the subgraph's `startShared` made once for the whole process, if anything. */
  shared: SharedState | undefined;
}

/** Process-wide state of a subgraph (caches and their subscriptions), closed when it stops. */
export interface SharedState {
  close(): void | Promise<void>;
  /** Figures `/healthz` reports for it, such as the cv subgraph's renderer. */
  health?(): Record<string, unknown>;
}

export interface SubgraphContext {
  scope: RequestScope;
  container: ContainerType;
}

/** A route beside `/graphql` that only the platform's processes may call (a stream GraphQL cannot carry). */
export interface InternalRoute {
  method: 'get';
  path: string;
  handler: RequestHandler;
}

/** Everything that makes one subgraph: its schema module, its GraphQL resolvers and how to build them. */
export interface SubgraphDefinition {
  name: SubgraphName;
  schemaModule: SchemaModule;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type -- type-graphql's resolver class type
  resolvers: Function[];
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type -- type-graphql's object type class type
  orphanedTypes?: Function[];
  /** `__resolveReference` per entity type, for the gateway's entity fetches. */
  referenceResolvers?: Record<string, { __resolveReference: ReferenceResolver }>;
  /**
   * SDL of a `Subscription` type the subgraph declares for the graph but does not serve: the
   * gateway serves subscriptions over graphql-ws from the subgraph's events (docs/ARCHITECTURE.md).
   */
  subscriptionTypeDefs?: string;
  /** Largest request body `/graphql` accepts; 1 MB unless the subgraph takes uploads. */
  bodyLimit?: BodyLimit;
  /** Resolver instances for one request, wired with that request's scope. */
  createResolvers(scope: RequestScope): object[];
  /**
   * Routes other than `/graphql`, behind the same internal credential; `scopeOf` gives a request
   * its scope as a GraphQL request gets one.
   */
  internalRoutes?(scopeOf: (headers: IncomingHttpHeaders) => RequestScope): InternalRoute[];
  /** Makes the process-wide state handed to every request as `scope.shared`. */
  startShared?(base: {
    config: Config;
    redis: Redis;
    logger: Logger;
    metrics: ProcessMetrics;
  }): Promise<SharedState>;
}

/** The federated schema of a subgraph: type-graphql types and resolvers plus the federation link. */
export async function buildSubgraphGraphQLSchema(definition: SubgraphDefinition): Promise<GraphQLSchema> {
  const [first, ...rest] = definition.resolvers;
  if (first === undefined) {
    // A subgraph whose domain has no fields yet still answers the gateway's `_service` query.
    return buildSubgraphSchema({ typeDefs: parse(FEDERATION_LINK) });
  }
  const typeGraphQLSchema = await buildSchema({
    resolvers: [first, ...rest],
    orphanedTypes: definition.orphanedTypes ?? [],
    container: ({ context }: { context: SubgraphContext }) => context.container,
    validate: false,
    skipCheck: true,
  });
  const resolvers = createResolversMap(typeGraphQLSchema) as GraphQLResolverMap<unknown>;
  for (const [typeName, fields] of Object.entries(definition.referenceResolvers ?? {})) {
    resolvers[typeName] = {
      ...(resolvers[typeName] ?? {}),
      ...fields,
    } as GraphQLResolverMap<unknown>[string];
  }
  const subscriptions = definition.subscriptionTypeDefs ?? '';
  if (subscriptions !== '') resolvers.Subscription = servedByTheGateway(subscriptions);
  return buildSubgraphSchema({
    typeDefs: parse(`${FEDERATION_LINK}\n${printSchemaWithDirectives(typeGraphQLSchema)}\n${subscriptions}`),
    resolvers,
  });
}

/** Each declared subscription field answers a direct subscribe with where to subscribe instead. */
function servedByTheGateway(typeDefs: string): GraphQLResolverMap<unknown>[string] {
  const fields: Record<string, { subscribe: () => never }> = {};
  for (const definition of parse(typeDefs).definitions) {
    if (definition.kind !== Kind.OBJECT_TYPE_DEFINITION || definition.name.value !== 'Subscription') continue;
    for (const field of definition.fields ?? []) {
      fields[field.name.value] = {
        subscribe: () => {
          throw new GraphQLError('Subscriptions are served by the gateway over graphql-ws on /graphql.');
        },
      };
    }
  }
  return fields;
}

/** The SDL a subgraph contributes to the supergraph, as committed under `schema/`. */
export async function printSubgraphSdl(definition: SubgraphDefinition): Promise<string> {
  return printSubgraphSchema(await buildSubgraphGraphQLSchema(definition));
}

/** A container that hands type-graphql the request's own resolver instances. */
function requestContainer(instances: object[]): ContainerType {
  return {
    get(someClass: unknown) {
      const instance = instances.find((candidate) => candidate.constructor === someClass);
      if (instance === undefined) throw new Error(`No resolver instance for ${String(someClass)}`);
      return instance;
    },
  };
}

export interface RunningSubgraph extends Running {
  port: number;
  metricsPort: number;
  orm: MikroORM;
}

/** What a subgraph process holds open for its lifetime, shared by every request. */
interface SubgraphConnections {
  orm: MikroORM;
  redis: Redis;
  shared: SharedState | undefined;
}

/** Opens the schema, Redis and the subgraph's shared state; what opened is closed if a later one fails. */
async function openConnections(
  definition: SubgraphDefinition,
  config: Config,
  logger: Logger,
  metrics: ProcessMetrics,
): Promise<SubgraphConnections> {
  const orm = await openSchema(config, definition.schemaModule, logger);
  let redis: Redis;
  try {
    redis = await connectRedis(config.redis, `${definition.name}-subgraph`, logger);
  } catch (error) {
    await orm.close(true);
    throw error;
  }
  try {
    const shared = await definition.startShared?.({ config, redis, logger, metrics });
    return { orm, redis, shared };
  } catch (error) {
    await orm.close(true);
    redis.disconnect();
    throw error;
  }
}

/** A request's scope from its headers: its own EntityManager, the process's connections. */
function requestScopes(
  { orm, redis, shared }: SubgraphConnections,
  config: Config,
  logger: Logger,
): (headers: IncomingHttpHeaders) => RequestScope {
  return (requestHeaders) => {
    const headers = Object.fromEntries(
      Object.entries(requestHeaders).map(([name, value]) => [name, Array.isArray(value) ? value[0] : value]),
    );
    return {
      em: orm.em.fork(),
      redis,
      config,
      logger,
      requestId: headers[REQUEST_ID_HEADER] ?? '',
      headers,
      shared,
    };
  };
}

/**
 * `/graphql` and the subgraph's internal routes, each behind the internal credential, and the
 * front door that answers plain GraphQL POSTs ahead of express when configured.
 */
function mountSubgraphRoutes(
  service: HttpService,
  apollo: ApolloServer<SubgraphContext>,
  definition: SubgraphDefinition,
  {
    config,
    logger,
    scopeOf,
  }: { config: Config; logger: Logger; scopeOf: (headers: IncomingHttpHeaders) => RequestScope },
): void {
  service.app.use(
    '/graphql',
    nameRoute('/graphql'),
    requireInternalCredential(config.acceptedInternalSecrets),
  );
  for (const route of definition.internalRoutes?.(scopeOf) ?? []) {
    service.app[route.method](
      route.path,
      nameRoute(route.path),
      requireInternalCredential(config.acceptedInternalSecrets),
      route.handler,
    );
  }
  const contextOf = (requestHeaders: IncomingHttpHeaders): Promise<SubgraphContext> => {
    const scope = scopeOf(requestHeaders);
    return Promise.resolve({ scope, container: requestContainer(definition.createResolvers(scope)) });
  };
  const bodyLimit = definition.bodyLimit ?? GRAPHQL_BODY_LIMIT;
  if (config.subgraphFrontDoor) {
    service.setFrontDoor(
      graphqlDoor<SubgraphContext>({
        service,
        apollo,
        logger,
        serving: `the ${definition.name} subgraph`,
        bodyLimit,
        // Anyone else is refused by express's `requireInternalCredential`, as before the door.
        admitsAlso: presentsInternalCredential(config.acceptedInternalSecrets),
        arriving: (req) => ({ context: () => contextOf(req.headers) }),
      }),
    );
  }
  mountGraphQL(service, apollo, ({ req }) => contextOf(req.headers), bodyLimit);
}

/** Starts one subgraph as its own HTTP server: `/graphql`, `/healthz`, `/readyz`. */
export async function startSubgraph(
  definition: SubgraphDefinition,
  config: Config,
): Promise<RunningSubgraph> {
  const logger = createLogger({ service: `${definition.name}-subgraph`, level: config.logLevel });
  const metrics = new ProcessMetrics(`${definition.name}-subgraph`);
  const connections = await openConnections(definition, config, logger, metrics);
  const { orm, redis, shared } = connections;
  const schema = await buildSubgraphGraphQLSchema(definition);
  const apollo = new ApolloServer<SubgraphContext>({
    schema,
    ...platformApolloOptions(logger, config.nodeEnv),
    // Traces are for Apollo's hosted reporting, which the platform does not use.
    plugins: [ApolloServerPluginInlineTraceDisabled()],
  });
  await apollo.start();

  const service = HttpService.forPlatform(
    config,
    `${definition.name}-subgraph`,
    logger,
    {
      postgres: postgresAnswering(orm, config.readyCheckTimeoutMs),
      redis,
      health: () => shared?.health?.() ?? {},
      metrics,
      pool: ormPoolState(orm),
    },
    HEADER_LIMITS.subgraph,
  );
  mountSubgraphRoutes(service, apollo, definition, {
    config,
    logger,
    scopeOf: requestScopes(connections, config, logger),
  });
  const port = await service.listen(config.ports[definition.name], config.listenHost);

  return {
    port,
    metricsPort: service.metricsPort,
    orm,
    stop: stopOnce(async () => {
      await service.close();
      await apollo.stop();
      await orm.close(true);
      await shared?.close();
      redis.disconnect();
      logger.info(`${definition.name}-subgraph stopped`);
    }),
  };
}
