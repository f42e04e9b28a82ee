import { STATUS_CODES, type IncomingHttpHeaders } from 'node:http';
import type { Fetcher, FetcherHeaders, FetcherResponse } from '@apollo/utils.fetcher';
import { JsonHttpClient, type JsonHttpAnswer } from '../../common/json-http';

function headersOf(incoming: IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  return headers;
}

/**
 * An answer's headers as fetch's `Headers` show them. The data source reads one or two by name
 * per fetch, so those are read from node's own object; a full `Headers` is built only for what
 * walks or changes them.
 */
class AnswerHeaders implements FetcherHeaders {
  private built?: Headers;

  constructor(private readonly incoming: IncomingHttpHeaders) {}

  private get all(): Headers {
    return (this.built ??= headersOf(this.incoming));
  }

  get(name: string): string | null {
    if (this.built !== undefined) return this.built.get(name);
    const value = this.incoming[name.toLowerCase()];
    if (value === undefined) return null;
    return Array.isArray(value) ? value.join(', ') : value;
  }

  has(name: string): boolean {
    return this.get(name) !== null;
  }

  append(name: string, value: string): void {
    this.all.append(name, value);
  }

  delete(name: string): void {
    this.all.delete(name);
  }

  set(name: string, value: string): void {
    this.all.set(name, value);
  }

  entries(): HeadersIterator<[string, string]> {
    return this.all.entries();
  }

  keys(): HeadersIterator<string> {
    return this.all.keys();
  }

  values(): HeadersIterator<string> {
    return this.all.values();
  }

  [Symbol.iterator](): HeadersIterator<[string, string]> {
    return this.all[Symbol.iterator]();
  }
}

/** The part of a fetch Response that the gateway's data sources read, over an answer in hand. */
class AnsweredResponse implements FetcherResponse {
  readonly redirected = false;
  readonly ok: boolean;
  readonly status: number;
  readonly statusText: string;
  private used = false;
  private answerHeaders?: FetcherHeaders;

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
    return (this.answerHeaders ??= new AnswerHeaders(this.answer.headers));
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
 * single item in its profile (docs/performance-log/tickets.md). Subgraph operations are always JSON POSTs.
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
