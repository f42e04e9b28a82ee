import type { ApolloServerPlugin } from '@apollo/server';
import { languageOf } from '../../common/language';
import { rateLimitHeaders, refusalOf } from '../../common/rate-budget';
import { presentsMalformedAuthorization, type GatewayContext } from '../context';
import { malformedAuthorizationError, rateLimitedError, type GatewayRateLimits } from './rate-limit';

/** What the plugin asks of the gateway's rate limits: each operation's decisions, and who to tell. */
export type RateLimitPluginOptions = Pick<GatewayRateLimits, 'decisionsOf' | 'reportRefusal'>;

/**
 * Applies a client operation's count before it is planned: the RateLimit headers on the answer,
 * 429 past the quota, and 401 for an Authorization header that is no Bearer credential (its
 * address counted all the same). The count itself started as the request arrived
 * (door/arrival-count.ts), so the Redis round trip overlaps reading and validating the request.
 */
export function rateLimitPlugin(limits: RateLimitPluginOptions): ApolloServerPlugin<GatewayContext> {
  return {
    requestDidStart: () =>
      Promise.resolve({
        didResolveOperation: async ({ document, operation, contextValue, request, response }) => {
          if (contextValue.client === undefined || operation === undefined) return;
          const decisions = await limits.decisionsOf(contextValue, document, operation, request.variables);
          const language = languageOf(contextValue.headers['accept-language']);
          const refused = refusalOf(decisions);
          if (refused !== undefined) {
            limits.reportRefusal('graphql', refused);
            throw rateLimitedError(decisions, language);
          }
          for (const [name, value] of Object.entries(rateLimitHeaders(decisions))) {
            response.http.headers.set(name.toLowerCase(), value);
          }
          if (presentsMalformedAuthorization(contextValue.headers))
            throw malformedAuthorizationError(language);
        },
      }),
  };
}
