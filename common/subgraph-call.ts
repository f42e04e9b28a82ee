import type { Config, SubgraphName } from './config';
import { internalCredentialHeaders } from './internal-credential';
import { JsonHttpClient } from './json-http';
import { REQUEST_ID_HEADER } from './request-context';

/**
 * GraphQL calls from one subgraph to another subgraph's own address, with the platform's
 * credential: how the cv and tickets subgraphs ask billing for plans and meter usage without
 * reading billing's tables. Any GraphQL error is the caller's failure, named after what was asked.
 */
export class SubgraphClient {
  private readonly headers: Record<string, string>;
  // Kept-alive node:http, not fetch: a session's look-up runs on every signed-in request at the
  // gateway, where fetch's streams and Request objects cost more than the rest of the call.
  private readonly client: JsonHttpClient;

  constructor(url: string, internalSecret: string, timeoutMs = 5_000) {
    this.client = new JsonHttpClient(url, timeoutMs);
    this.headers = internalCredentialHeaders(internalSecret);
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
    const answer = await this.client.post(
      JSON.stringify({ query, variables }),
      requestId ? { ...this.headers, [REQUEST_ID_HEADER]: requestId } : this.headers,
    );
    let body: { data?: T; errors?: { message: string }[] } | null;
    try {
      body = JSON.parse(answer.text) as typeof body;
    } catch {
      throw new Error(`${what} failed: HTTP ${answer.status} with a body that is not JSON`);
    }
    if (
      typeof body !== 'object' ||
      body === null ||
      body.data === undefined ||
      body.data === null ||
      body.errors?.length
    ) {
      throw new Error(`${what} failed: ${body?.errors?.[0]?.message ?? `HTTP ${answer.status}`}`);
    }
    return body.data;
  }
}
