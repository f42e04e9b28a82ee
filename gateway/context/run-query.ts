import type { ApolloServer } from '@apollo/server';
import { REQUEST_ID_HEADER } from '../../common/request-context';
import { CLIENT_ADDRESS_HEADER } from '../../contracts/identity/session';
import { ACCESS_RECHECK_HEADER } from '../../contracts/tickets/access-change';
import type { GatewayContext, RunQuery } from './gateway-context';
import { GATEWAY_SET_HEADERS } from './request-headers';
import type { SessionResolver } from './sessions';

/**
 * Operations the gateway runs itself (graphql-ws, the live hub, credential lookups) are resolved
 * as an HTTP request is: a `Bearer ses_…` becomes the session's user, and only the gateway says so.
 */
export function gatewayRunQuery(apollo: ApolloServer<GatewayContext>, sessions: SessionResolver): RunQuery {
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
