import { RemoteGraphQLDataSource, type GraphQLDataSourceProcessOptions } from '@apollo/gateway';
import { inSpan, markActiveSpanFailed } from '../common/trace-context';
import { INTERNAL_CREDENTIAL_HEADER } from '../common/internal-credential';
import type { RateDecision } from '../common/rate-budget';
import { MESSAGE_IDS_HEADER, REQUEST_ID_HEADER } from '../common/request-context';
import {
  BRANCH_HEADER,
  CLIENT_ADDRESS_HEADER,
  SESSION_ID_HEADER,
  SESSION_USER_HEADER,
} from '../contracts/identity/session';
import { TICKET_TOKEN_HEADER } from '../contracts/tickets/live-event';
import { ACCESS_RECHECK_HEADER } from '../contracts/tickets/access-change';
import { REST_DOOR_HEADER } from '../contracts/tickets/board-device';
import { mayShareFetch, type InflightFetches } from './inflight-fetches';

/** Headers of the client a subgraph needs to decide who is asking and how to answer. */
export const FORWARDED_HEADERS = [
  REQUEST_ID_HEADER,
  'authorization',
  'x-api-key',
  'accept-language',
  TICKET_TOKEN_HEADER,
  MESSAGE_IDS_HEADER,
  BRANCH_HEADER,
  // Only ever narrows what a key may do, so a client may send it too.
  REST_DOOR_HEADER,
] as const;

/**
 * Headers only the gateway sets (contracts/identity/session.ts): never taken from a client, always
 * passed on to the subgraphs.
 */
export const GATEWAY_SET_HEADERS = [
  SESSION_USER_HEADER,
  SESSION_ID_HEADER,
  CLIENT_ADDRESS_HEADER,
  ACCESS_RECHECK_HEADER,
] as const;

export interface GatewayContext {
  headers: Record<string, string | undefined>;
  /**
   * Present when the operation comes from a client through this gateway's own door (HTTP or
   * graphql-ws) and counts against its budgets; absent for the platform's own operations.
   */
  client?: {
    address: string | undefined;
    /** The count of an HTTP request, started as it arrived; graphql-ws counts before it parses. */
    counting?: Promise<RateDecision[]>;
  };
}

/**
 * Passes the caller's credentials and request id on to every subgraph fetch of an operation, with
 * the platform's own credential, without which no subgraph answers. Given `inflight`, a query's
 * fetch joins an identical one in flight instead of being sent.
 */
export class HeaderForwardingDataSource extends RemoteGraphQLDataSource<GatewayContext> {
  constructor(
    config: ConstructorParameters<typeof RemoteGraphQLDataSource<GatewayContext>>[0],
    private readonly internalSecret: string,
    private readonly subgraphName: string,
    private readonly inflight?: InflightFetches,
  ) {
    super(config);
    if (inflight !== undefined) this.fetcher = inflight.fetcher(subgraphName, this.fetcher);
  }

  /**
   * Each subgraph fetch is a span naming its subgraph, the parent of the HTTP client span that
   * carries `traceparent` on to the subgraph (node:http, so the http instrumentation injects it).
   */
  override process(
    options: GraphQLDataSourceProcessOptions<GatewayContext>,
  ): ReturnType<RemoteGraphQLDataSource<GatewayContext>['process']> {
    return inSpan(
      `subgraph ${this.subgraphName}`,
      { attributes: { 'graphql.federation.subgraph.name': this.subgraphName } },
      async () => {
        const response =
          this.inflight !== undefined && mayShareFetch(options)
            ? await this.inflight.sharing(() => super.process(options))
            : await super.process(options);
        if (response.errors !== undefined && response.errors.length > 0) {
          markActiveSpanFailed(`${response.errors.length} error(s) from ${this.subgraphName}`);
        }
        return response;
      },
    );
  }

  override willSendRequest({ request, context }: GraphQLDataSourceProcessOptions<GatewayContext>): void {
    if (request.http === undefined) return;
    request.http.headers.set(INTERNAL_CREDENTIAL_HEADER, this.internalSecret);
    // Entity fetches during query planning run without a request context.
    const headers = 'headers' in context ? (context as GatewayContext).headers : undefined;
    if (headers === undefined) return;
    for (const name of [...FORWARDED_HEADERS, ...GATEWAY_SET_HEADERS]) {
      const value = headers[name];
      if (value !== undefined) request.http.headers.set(name, value);
    }
  }
}
