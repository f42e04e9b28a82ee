import type { ApolloServer } from '@apollo/server';
import type { Config } from '../../common/config';
import { mountGraphQL, PHOTO_BODY_LIMIT } from '../../common/graphql-server';
import type { HttpService } from '../../common/http-service';
import type { Logger } from '../../common/logger';
import { nameRoute } from '../../common/metrics';
import { REQUEST_ID_HEADER } from '../../common/request-context';
import { CLIENT_ADDRESS_HEADER } from '../../contracts/identity/session';
import { forwardedHeaders, type GatewayContext, type SessionResolver } from '../context';
import type { PreparedOperations } from '../fetch';
import type { GatewayRateLimits } from '../limits';
import { clientOf, countOnArrival } from './arrival-count';
import { graphqlDoor } from './graphql-door';

/** What HTTP `/graphql` is served by: the Apollo server, and what counts and knows each request. */
export interface GraphRoute {
  apollo: ApolloServer<GatewayContext>;
  limits: GatewayRateLimits;
  sessions: SessionResolver;
  /** Absent when the door is to hand every request to Apollo (GATEWAY_PREPARED_OPERATIONS=false). */
  prepared: PreparedOperations | undefined;
}

/** HTTP `/graphql`: counted as it arrives, then planned with the client's forwarded headers. */
export function mountGraph(
  service: HttpService,
  { apollo, limits, sessions, prepared }: GraphRoute,
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
  service.app.use('/graphql', nameRoute('/graphql'), countOnArrival(limits, forwardedHeaders));
  mountGraphQL(
    service,
    apollo,
    ({ req, res }) => context(forwardedHeaders(req), req.ip, clientOf(req, res.locals)),
    PHOTO_BODY_LIMIT,
  );
}
