import { createServer, connect, type Server, type Socket } from 'node:net';
import { listenOnLoopback } from './loopback';

/**
 * A TCP relay on 127.0.0.1 in front of a real server, which can hold back what a client sends
 * when it matches: a slow Redis for one kind of command, say, while every other byte flows.
 */
export class TcpProxy {
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  port = 0;

  constructor(
    private readonly target: { host: string; port: number },
    /** How long a client's chunk waits before it is passed on: 0 for most, more for the matching. */
    private readonly delayOf: (chunk: Buffer) => number = () => 0,
  ) {
    this.server = createServer((client) => this.relay(client));
  }

  async listen(): Promise<number> {
    this.port = await listenOnLoopback(this.server);
    return this.port;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private relay(client: Socket): void {
    const upstream = connect(this.target.port, this.target.host);
    this.sockets.add(client).add(upstream);
    // Chunks keep their order: a held one holds back everything the client sends after it.
    let queue = Promise.resolve();
    client.on('data', (chunk) => {
      const delay = this.delayOf(chunk);
      queue = queue.then(async () => {
        if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
        upstream.write(chunk);
      });
    });
    upstream.on('data', (chunk) => client.write(chunk));
    endTogether(client, upstream, this.sockets);
  }
}

/** A relayed pair ends as one: either side closing or failing destroys both and forgets them. */
export function endTogether(client: Socket, upstream: Socket, open: Set<Socket>): void {
  const end = () => {
    client.destroy();
    upstream.destroy();
    open.delete(client);
    open.delete(upstream);
  };
  client.on('close', end).on('error', end);
  upstream.on('close', end).on('error', end);
}
