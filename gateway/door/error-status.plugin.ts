import type { ApolloServerPlugin } from '@apollo/server';
import type { GatewayContext } from '../context';

/** The HTTP status of an operation that failed as a whole, by its error's code. */
const STATUS_OF: Record<string, number> = { RATE_LIMITED: 429, UNAVAILABLE: 503 };

/**
 * An operation with no data because a limit was reached (an account's exports, a ring too soon) or
 * a dependency was unavailable is answered with that status and `Retry-After`, as REST answers it,
 * so HTTP clients and proxies can back off without reading the body. A partial answer stays 200.
 */
export function errorStatusPlugin(): ApolloServerPlugin<GatewayContext> {
  return {
    requestDidStart: () =>
      Promise.resolve({
        willSendResponse: ({ response }) => {
          if (response.body.kind !== 'single') return Promise.resolve();
          const { data, errors } = response.body.singleResult;
          if (data !== null && data !== undefined) return Promise.resolve();
          const error = errors?.find((e) => STATUS_OF[String(e.extensions?.code)] !== undefined);
          if (error === undefined) return Promise.resolve();
          response.http.status = STATUS_OF[String(error.extensions?.code)];
          const retryAfter = Number(error.extensions?.retryAfter);
          if (Number.isFinite(retryAfter) && retryAfter > 0) {
            response.http.headers.set('retry-after', String(Math.ceil(retryAfter)));
          }
          return Promise.resolve();
        },
      }),
  };
}
