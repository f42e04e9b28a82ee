import { RemoteGraphQLDataSource, type GraphQLDataSourceProcessOptions } from '@apollo/gateway';
import { REQUEST_ID_HEADER } from '../common/request-context';
import { TICKET_TOKEN_HEADER } from '../subgraphs/tickets/events/live-event';

/** Headers a subgraph needs to decide who is asking and how to answer. */
export const FORWARDED_HEADERS = [
  REQUEST_ID_HEADER,
  'authorization',
  'x-api-key',
  'accept-language',
  TICKET_TOKEN_HEADER,
] as const;

export interface GatewayContext {
  headers: Record<string, string | undefined>;
}

/** Passes the caller's credentials and request id on to every subgraph fetch of an operation. */
export class HeaderForwardingDataSource extends RemoteGraphQLDataSource<GatewayContext> {
  override willSendRequest({ request, context }: GraphQLDataSourceProcessOptions<GatewayContext>): void {
    // Entity fetches during query planning run without a request context.
    const headers = 'headers' in context ? (context as GatewayContext).headers : undefined;
    if (headers === undefined || request.http === undefined) return;
    for (const name of FORWARDED_HEADERS) {
      const value = headers[name];
      if (value !== undefined) request.http.headers.set(name, value);
    }
  }
}
