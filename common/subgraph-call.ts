import type { Config, SubgraphName } from './config';
import { internalCredentialHeaders } from './internal-credential';
import { REQUEST_ID_HEADER } from './request-context';

/**
 * GraphQL calls from one subgraph to another subgraph's own address, with the platform's
 * credential: how the cv and tickets subgraphs ask billing for plans and meter usage without
 * reading billing's tables. Any GraphQL error is the caller's failure, named after what was asked.
 */
export class SubgraphClient {
  private readonly headers: Record<string, string>;

  constructor(
    private readonly url: string,
    internalSecret: string,
    private readonly timeoutMs = 5_000,
  ) {
    this.headers = { 'content-type': 'application/json', ...internalCredentialHeaders(internalSecret) };
  }

  /** The client of a subgraph at the address the configuration gives it. */
  static of(config: Pick<Config, 'subgraphUrls' | 'internalSecret'>, name: SubgraphName): SubgraphClient {
    return new SubgraphClient(config.subgraphUrls[name], config.internalSecret);
  }

  async call<T>(
    what: string,
    query: string,
    variables: Record<string, unknown>,
    { requestId }: { requestId?: string } = {},
  ): Promise<T> {
    const response = await fetch(this.url, {
      method: 'POST',
      headers: { ...this.headers, ...(requestId ? { [REQUEST_ID_HEADER]: requestId } : {}) },
      body: JSON.stringify({ query, variables }),
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    const body = (await response.json()) as { data?: T; errors?: { message: string }[] };
    if (body.errors?.length || body.data === undefined || body.data === null) {
      throw new Error(`${what} failed: ${body.errors?.[0]?.message ?? `HTTP ${response.status}`}`);
    }
    return body.data;
  }
}
