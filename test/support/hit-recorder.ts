import { createServer, type Server } from 'node:http';
import { loopbackUrl } from './loopback';

/** A local HTTP server that answers everything and remembers each path asked for. */
export class HitRecorder {
  readonly hits: string[] = [];
  private server?: Server;

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      this.hits.push(`${req.method ?? 'GET'} ${req.url ?? '/'}`);
      res.writeHead(200, { 'content-type': 'text/plain' }).end('recorded');
    });
    return loopbackUrl(this.server);
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
