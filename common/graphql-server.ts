import { nameRoute } from './metrics';
import type { ApolloServer, ApolloServerOptions, BaseContext, ContextFunction } from '@apollo/server';
import type { Config } from './config';
import { expressMiddleware, type ExpressContextFunctionArgument } from '@as-integrations/express5';
import express from 'express';
import { formatGraphQLError } from './graphql-errors';
import type { HttpService } from './http-service';
import type { Logger } from './logger';
import { graphQLBodyRefusal } from './request-body';

/**
 * Options every Apollo server of the platform (subgraphs and gateway) shares. Introspection is a
 * development aid: off in production, where clients work from the committed schema.
 */
export function platformApolloOptions(logger: Logger, nodeEnv: Config['nodeEnv']) {
  return {
    formatError: formatGraphQLError(logger),
    includeStacktraceInErrorResponses: false,
    introspection: nodeEnv !== 'production',
    // Several operations in one HTTP request would each escape the per-request budget and bounds.
    allowBatchedHttpRequests: false,
    // Apollo's default, kept on purpose: no GraphQL request a browser may send cross-site unasked.
    csrfPrevention: true,
    // The process drains its HTTP server first; Apollo's own signal handler would exit mid-drain.
    stopOnTerminationSignals: false,
  } satisfies Partial<ApolloServerOptions<BaseContext>>;
}

/**
 * A CV photo travels as base64 inside a mutation (4 MB becomes about 5.4 MB), so the gateway and
 * the cv subgraph take bodies up to this size; every other process keeps 1 MB.
 */
export const PHOTO_BODY_LIMIT: BodyLimit = { named: '8mb', bytes: 8 * 1024 * 1024 };
/** The body limit of every other process's `/graphql`. */
export const GRAPHQL_BODY_LIMIT: BodyLimit = { named: '1mb', bytes: 1024 * 1024 };

/** A body limit as body-parser takes it (`named`) and in bytes, as a front door checks it. */
export interface BodyLimit {
  named: string;
  bytes: number;
}

/** Serves a started Apollo server on `/graphql` of the process's HTTP frame. */
export function mountGraphQL<TContext extends BaseContext>(
  service: HttpService,
  apollo: ApolloServer<TContext>,
  context: ContextFunction<[ExpressContextFunctionArgument], TContext>,
  bodyLimit: BodyLimit = GRAPHQL_BODY_LIMIT,
): void {
  service.app.use(
    '/graphql',
    nameRoute('/graphql'),
    express.json({ limit: bodyLimit.named }),
    expressMiddleware(apollo, { context }),
    graphQLBodyRefusal(bodyLimit.named),
  );
}
