import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';

export interface JsonHttpAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/** The upstream could not be reached, timed out, or cut its answer off. */
export class UpstreamUnreachableError extends Error {
  constructor(message: string, options?: { cause: unknown }) {
    super(message, options);
    this.name = 'UpstreamUnreachableError';
  }
}

/**
 * POSTs JSON to one upstream over kept-alive `node:http` sockets. Between the platform's own
 * processes this costs markedly less CPU per request than fetch, whose WHATWG streams and
 * Request/Response objects showed up in every profile of the hot paths (docs/performance-log/tickets.md).
 */
export class JsonHttpClient {
  private readonly url: URL;
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 256 });

  constructor(
    readonly upstreamUrl: string,
    private readonly timeoutMs: number,
  ) {
    this.url = new URL(upstreamUrl);
    if (this.url.protocol !== 'http:') {
      throw new Error(`${upstreamUrl}: only http: is spoken between the platform's processes`);
    }
  }

  close(): void {
    this.agent.destroy();
  }

  post(payload: string, headers: Record<string, string>): Promise<JsonHttpAnswer> {
    return new Promise((resolve, reject) => {
      const req = httpRequest(
        {
          agent: this.agent,
          hostname: this.url.hostname,
          port: this.url.port,
          path: this.url.pathname + this.url.search,
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json',
            ...headers,
            'content-length': Buffer.byteLength(payload),
          },
          timeout: this.timeoutMs,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              text: Buffer.concat(chunks).toString('utf8'),
            }),
          );
          res.on('error', (error) =>
            reject(new UpstreamUnreachableError(`${this.upstreamUrl} cut its answer off`, { cause: error })),
          );
        },
      );
      req.on('timeout', () => req.destroy(new Error(`no answer within ${this.timeoutMs} ms`)));
      req.on('error', (error) =>
        reject(
          new UpstreamUnreachableError(`${this.upstreamUrl} unreachable: ${error.message}`, { cause: error }),
        ),
      );
      req.end(payload);
    });
  }
}
