import type { ApolloServerPlugin, BaseContext } from '@apollo/server';

/**
 * An operation that failed as a whole because something it needs is unavailable (a subgraph
 * killed or restarting, Postgres away) is answered 503 with `Retry-After`, the longest wait its
 * errors ask for: proxies, load balancers and clients that read only the status then retry rather
 * than give up, as the REST adapter's callers do. A partial answer stays 200, as GraphQL has it.
 */
export function unavailablePlugin<TContext extends BaseContext>(): ApolloServerPlugin<TContext> {
  return {
    requestDidStart: () =>
      Promise.resolve({
        willSendResponse: ({ response }) => {
          if (response.body.kind !== 'single') return Promise.resolve();
          const { data, errors = [] } = response.body.singleResult;
          const waits = errors
            .filter((error) => error.extensions?.code === 'UNAVAILABLE')
            .map((error) => Number(error.extensions?.retryAfter));
          if ((data !== null && data !== undefined) || waits.length === 0) return Promise.resolve();
          response.http.status = 503;
          const retryAfter = Math.max(1, ...waits.filter((wait) => Number.isFinite(wait)));
          response.http.headers.set('retry-after', String(Math.ceil(retryAfter)));
          return Promise.resolve();
        },
      }),
  };
}
