import { STATUS_CODES, type IncomingHttpHeaders } from 'node:http';
import type { Fetcher, FetcherHeaders, FetcherResponse } from '@apollo/utils.fetcher';
import { JsonHttpClient, type JsonHttpAnswer } from '../common/json-http';

function headersOf(incoming: IncomingHttpHeaders): FetcherHeaders {
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  return headers;
}

/** The part of a fetch Response that the gateway's data sources read, over an answer in hand. */
class AnsweredResponse implements FetcherResponse {
  readonly redirected = false;
  readonly ok: boolean;
  readonly status: number;
  readonly statusText: string;
  private used = false;
  private parsedHeaders?: FetcherHeaders;

  constructor(
    readonly url: string,
    private readonly answer: JsonHttpAnswer,
  ) {
    this.status = answer.status;
    this.ok = answer.status >= 200 && answer.status < 300;
    this.statusText = STATUS_CODES[answer.status] ?? '';
  }

  get bodyUsed(): boolean {
    return this.used;
  }

  get headers(): FetcherHeaders {
    return (this.parsedHeaders ??= headersOf(this.answer.headers));
  }

  text(): Promise<string> {
    this.used = true;
    return Promise.resolve(this.answer.text);
  }

  // async, so a body that is not JSON becomes a rejection as with fetch
  // eslint-disable-next-line @typescript-eslint/require-await
  async json(): Promise<unknown> {
    this.used = true;
    return JSON.parse(this.answer.text);
  }

  arrayBuffer(): Promise<ArrayBuffer> {
    this.used = true;
    const bytes = Buffer.from(this.answer.text, 'utf8');
    return Promise.resolve(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  }

  clone(): FetcherResponse {
    return new AnsweredResponse(this.url, this.answer);
  }
}

/**
 * The gateway's fetcher for its subgraphs: kept-alive node:http instead of fetch, because the
 * gateway makes at least one such call per operation and fetch's per-call cost was the largest
 * single item in its profile (docs/PERFORMANCE.md). Subgraph operations are always JSON POSTs.
 */
export function subgraphFetcher(timeoutMs: number): Fetcher & { close(): void } {
  const clients = new Map<string, JsonHttpClient>();
  const fetcher = async (url: string, init?: Parameters<Fetcher>[1]): Promise<FetcherResponse> => {
    if (init?.method !== undefined && init.method !== 'POST') {
      throw new Error(`subgraph fetch of ${url}: only POST is sent, not ${init.method}`);
    }
    let client = clients.get(url);
    if (client === undefined) clients.set(url, (client = new JsonHttpClient(url, timeoutMs)));
    const body = init?.body === undefined ? '' : init.body.toString();
    return new AnsweredResponse(url, await client.post(body, init?.headers ?? {}));
  };
  return Object.assign(fetcher, {
    close: () => {
      for (const client of clients.values()) client.close();
    },
  });
}
