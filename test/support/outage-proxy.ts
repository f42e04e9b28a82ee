import { createServer, connect, type Server, type Socket } from 'node:net';
import { listenOnLoopback } from './loopback';
import { endTogether } from './tcp-proxy';

/**
 * The venue's internet line, as a TCP relay on 127.0.0.1 that a test cuts and restores: cut, every
 * open connection is dropped and every new one is closed as soon as it opens, as a tablet behind a
 * dead router sees it. `cutOnReply` cuts the line just as the platform's answer matching it
 * arrives, so the platform has applied a change that the tablet never hears of.
 */
export class OutageProxy {
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private cutWhen: ((reply: Buffer) => boolean) | undefined;
  target: { host: string; port: number } | undefined;
  up = true;
  port = 0;

  constructor() {
    this.server = createServer((client) => this.relay(client));
  }

  async listen(): Promise<number> {
    this.port = await listenOnLoopback(this.server);
    return this.port;
  }

  cut(): void {
    this.up = false;
    this.cutWhen = undefined;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
  }

  restore(): void {
    this.up = true;
  }

  /** Cuts the line instead of passing on the first reply that `matches`. */
  cutOnReply(matches: (reply: Buffer) => boolean): void {
    this.cutWhen = matches;
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private relay(client: Socket): void {
    if (!this.up || this.target === undefined) {
      client.destroy();
      return;
    }
    const upstream = connect(this.target.port, this.target.host);
    this.sockets.add(client).add(upstream);
    client.on('data', (chunk) => upstream.write(chunk));
    upstream.on('data', (chunk) => {
      if (this.cutWhen?.(chunk)) {
        this.cut();
        return;
      }
      client.write(chunk);
    });
    endTogether(client, upstream, this.sockets);
  }
}
