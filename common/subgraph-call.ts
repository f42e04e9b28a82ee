import { REQUEST_ID_HEADER } from './request-context';

/**
 * One GraphQL call from a subgraph to another subgraph's own address: how the cv and tickets
 * subgraphs ask billing for plans and meter usage without reading billing's tables. Any GraphQL
 * error is the caller's failure, named after what was asked.
 */
export async function callSubgraph<T>(
  url: string,
  what: string,
  query: string,
  variables: Record<string, unknown>,
  { requestId, timeoutMs = 5_000 }: { requestId?: string; timeoutMs?: number } = {},
): Promise<T> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(requestId ? { [REQUEST_ID_HEADER]: requestId } : {}) },
    body: JSON.stringify({ query, variables }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const body = (await response.json()) as { data?: T; errors?: { message: string }[] };
  if (body.errors?.length || body.data === undefined || body.data === null) {
    throw new Error(`${what} failed: ${body.errors?.[0]?.message ?? `HTTP ${response.status}`}`);
  }
  return body.data;
}
