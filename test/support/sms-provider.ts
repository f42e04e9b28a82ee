import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { closeServer, loopbackUrl } from './loopback';

export interface ProviderRequest {
  headers: IncomingHttpHeaders;
  body: { to: string; text: string };
  answered: number;
  /** When it arrived (ms since the epoch). */
  at: number;
}

/**
 * A stand-in SMS provider on 127.0.0.1, as the `http` driver calls one: answers 503 to its first
 * `failFirst` requests, 200 to the rest, and keeps every request.
 */
export class SmsProvider {
  readonly requests: ProviderRequest[] = [];
  failFirst = 0;
  private server?: Server;

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        const answered = this.requests.length < this.failFirst ? 503 : 200;
        this.requests.push({
          headers: req.headers,
          body: JSON.parse(body) as ProviderRequest['body'],
          answered,
          at: Date.now(),
        });
        res.writeHead(answered, { 'content-type': 'application/json' }).end('{"accepted":true}');
      });
    });
    return `${await loopbackUrl(this.server)}/messages`;
  }

  async stop(): Promise<void> {
    if (this.server !== undefined) await closeServer(this.server);
  }
}
