import { RemoteGraphQLDataSource, type GraphQLDataSourceProcessOptions } from '@apollo/gateway';
import { OperationTypeNode } from 'graphql';
import { holdsOnlyQueries } from '../../common/inflight-join';
import { inSpan, markActiveSpanFailed } from '../../common/trace-context';
import { INTERNAL_CREDENTIAL_HEADER } from '../../common/internal-credential';
import { ACCESS_RECHECK_HEADER } from '../../contracts/tickets/access-change';
import { FORWARDED_HEADERS, GATEWAY_SET_HEADERS, type GatewayContext } from '../context';
import { cacheHintOf, type SubgraphCacheHint } from './cache-hint';
import type { InflightFetches } from './inflight-fetches';

export type SubgraphResponse = Awaited<ReturnType<RemoteGraphQLDataSource<GatewayContext>['process']>>;

/** What one subgraph fetch came to: its answer, or what sending it threw. */
export type SettledFetch = { response: SubgraphResponse } | { thrown: unknown };

/** Where a request carries a fetch already sent for it (prepared-operations.ts's single fetch). */
const PREFETCHED = Symbol('prefetched subgraph answer');
type Prefetched = { subgraph: string; query: string; settled: SettledFetch };
type WithPrefetched = Partial<GatewayContext> & { [PREFETCHED]?: Prefetched };

/**
 * Gives the executor's fetch of `query` from `subgraph` for this request the answer already in
 * hand instead of sending it again, once: an operation is never run twice for one request.
 */
export function holdPrefetched(
  context: GatewayContext,
  subgraph: string,
  query: string,
  settled: SettledFetch,
) {
  (context as WithPrefetched)[PREFETCHED] = { subgraph, query, settled };
}

async function answerOf(settled: SettledFetch): Promise<SubgraphResponse> {
  if ('thrown' in settled) throw settled.thrown;
  return Promise.resolve(settled.response);
}

function takePrefetched(
  options: GraphQLDataSourceProcessOptions<GatewayContext>,
  subgraph: string,
): SettledFetch | undefined {
  const context = options.context as WithPrefetched;
  const held = context[PREFETCHED];
  if (held === undefined || held.subgraph !== subgraph || held.query !== options.request.query)
    return undefined;
  delete context[PREFETCHED];
  return held.settled;
}

/** Subgraph documents the query planner has sent, and whether each holds only queries. */
const DOCUMENT_CAP = 1_000;
const queryOnly = new Map<string, boolean>();

/** True when every operation in the document is a query; false for anything else or unparsable. */
export function isQueryOnly(document: string): boolean {
  let known = queryOnly.get(document);
  if (known === undefined) {
    known = holdsOnlyQueries(document);
    // The planner's documents are few and repeat; a client flooding new ones only restarts the map.
    if (queryOnly.size >= DOCUMENT_CAP) queryOnly.clear();
    queryOnly.set(document, known);
  }
  return known;
}

/**
 * Whether a data source's fetch may join an identical one in flight: only a fetch of a client
 * query whose own document is a query. A mutation's later fetches are queries (entities read after
 * the write), and they must see what the write did, so the client operation's type decides too.
 */
export function mayShareFetch(options: GraphQLDataSourceProcessOptions<GatewayContext>): boolean {
  // Health checks and schema loads carry no client operation.
  if (!('incomingRequestContext' in options)) return false;
  if (options.incomingRequestContext.operation?.operation !== OperationTypeNode.QUERY) return false;
  // A recheck must read after the announcement that caused it, never join a read from before.
  const context = options.incomingRequestContext.context as Partial<GatewayContext>;
  if (context.headers?.[ACCESS_RECHECK_HEADER] !== undefined) return false;
  return options.request.query !== undefined && isQueryOnly(options.request.query);
}

/** The part of Apollo's cache policy of an operation that a subgraph's answer restricts. */
interface RestrictablePolicy {
  restrict(hint: SubgraphCacheHint): void;
}

/**
 * Passes the caller's credentials and request id on to every subgraph fetch of an operation, with
 * the platform's own credential, without which no subgraph answers. Given `inflight`, a query's
 * fetch joins an identical one in flight instead of being sent.
 *
 * It sends the fetch itself rather than through `RemoteGraphQLDataSource.process`, which builds
 * two `Headers` objects and a node-fetch `Request` per fetch only to read them back: the same
 * body, the same headers and the same outcomes (its errors for a non-2xx answer or a body that is
 * not an object, its reading of `Cache-Control`), shown side by side with it in
 * header-forwarding.data-source.spec.ts.
 */
export class HeaderForwardingDataSource extends RemoteGraphQLDataSource<GatewayContext> {
  constructor(
    config: ConstructorParameters<typeof RemoteGraphQLDataSource<GatewayContext>>[0],
    private readonly internalSecret: string,
    private readonly subgraphName: string,
    private readonly inflight?: InflightFetches,
    /** Called once anything but a query sent to this subgraph has settled, answered or not. */
    private readonly afterWrite?: () => void,
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
    const prefetched = takePrefetched(options, this.subgraphName);
    if (prefetched !== undefined) return answerOf(prefetched);
    return inSpan(
      `subgraph ${this.subgraphName}`,
      { attributes: { 'graphql.federation.subgraph.name': this.subgraphName } },
      async () => {
        const response =
          this.inflight !== undefined && mayShareFetch(options)
            ? await this.inflight.sharing(() => this.send(options))
            : await this.sendWrite(options);
        if (response.errors !== undefined && response.errors.length > 0) {
          markActiveSpanFailed(`${response.errors.length} error(s) from ${this.subgraphName}`);
        }
        return response;
      },
    );
  }

  /** A fetch that may write: `afterWrite` hears of it once it settles, whatever came of it. */
  private async sendWrite(
    options: GraphQLDataSourceProcessOptions<GatewayContext>,
  ): Promise<SubgraphResponse> {
    if (this.afterWrite === undefined || isQueryOnly(options.request.query ?? '')) return this.send(options);
    try {
      return await this.send(options);
    } finally {
      this.afterWrite();
    }
  }

  /** What the subgraph is sent: its operation's body and the headers it needs, nothing else. */
  headersFor(options: GraphQLDataSourceProcessOptions<GatewayContext>): Record<string, string> {
    const headers: Record<string, string> = {};
    // Only the planner's own trace request (usage reporting, not used) puts headers here.
    for (const [name, value] of options.request.http?.headers ?? []) headers[name.toLowerCase()] = value;
    headers['content-type'] = 'application/json';
    headers[INTERNAL_CREDENTIAL_HEADER] = this.internalSecret;
    // Entity fetches during query planning run without a request context.
    const client = 'headers' in options.context ? (options.context as GatewayContext).headers : undefined;
    if (client === undefined) return headers;
    for (const name of FORWARDED_HEADERS) {
      const value = client[name];
      if (value !== undefined) headers[name] = value;
    }
    for (const name of GATEWAY_SET_HEADERS) {
      const value = client[name];
      if (value !== undefined) headers[name] = value;
    }
    return headers;
  }

  private async send(options: GraphQLDataSourceProcessOptions<GatewayContext>): Promise<SubgraphResponse> {
    const { http: _http, ...operation } = options.request;
    if (!operation.query) throw new Error('Missing query');
    const response = await this.fetcher(this.url, {
      method: 'POST',
      headers: this.headersFor(options),
      body: JSON.stringify(operation),
    });
    if (!response.ok) throw await this.errorFromResponse(response);
    const body = await this.parseBody(response);
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new Error(`Expected JSON response body, but received: ${String(body)}`);
    }
    // Health checks and schema loads have no client operation whose policy it could restrict.
    if (this.honorSubgraphCacheControlHeader && 'incomingRequestContext' in options) {
      const policy = options.incomingRequestContext.overallCachePolicy as RestrictablePolicy | undefined;
      if (policy !== undefined && policy !== null && 'restrict' in policy) {
        policy.restrict(cacheHintOf(response.headers.get('cache-control')));
      }
    }
    return { ...(body as SubgraphResponse), http: response };
  }
}
