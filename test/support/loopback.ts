import type { Server as HttpServer } from 'node:http';
import type { AddressInfo, Server } from 'node:net';

/**
 * Starts a test's own server on a free port of 127.0.0.1 (tests and their fakes never listen
 * anywhere else) and resolves with that port once it accepts connections.
 */
export async function listenOnLoopback(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** `listenOnLoopback`, resolving with the server's base address, `http://127.0.0.1:<port>`. */
export async function loopbackUrl(server: Server, scheme: 'http' | 'ws' = 'http'): Promise<string> {
  return `${scheme}://127.0.0.1:${await listenOnLoopback(server)}`;
}

/** Closes an HTTP server at once: kept-alive connections would otherwise hold `close()` open. */
export async function closeServer(server: HttpServer): Promise<void> {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}
