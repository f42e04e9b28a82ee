import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { textFrameOf } from '../gateway/live/live-wire';

/**
 * The bare-WebSocket floor of the events benchmark: speaks just enough graphql-transport-ws to
 * acknowledge and accept subscriptions, and on a `go` text from any socket writes one `next` frame
 * of a ticket's size to every subscriber, with no other work. What it costs is what fanning one
 * message out to N sockets costs on this machine before any GraphQL, Redis or Postgres work.
 * Prints its port once listening.
 *
 * With `--framed` it writes each distinct frame's wire bytes, framed once, straight to every
 * connection, as the gateway's hub does (gateway/live/live-wire.ts): the floor of that method.
 *
 *   node dist/bench/floor-ws.js [--framed]
 */
const payload = JSON.stringify({
  data: { ticketUpdated: { id: '1', status: 'READY', ringCount: 3, updatedAt: new Date().toISOString() } },
});
const framed = process.argv.includes('--framed');
const subscribers: { socket: WebSocket; wire: Duplex; id: string }[] = [];

/** Each distinct frame is encoded once per `go`, as the gateway's hub does. */
function fanOut(): void {
  const frames = new Map<string, Buffer>();
  for (const s of subscribers) {
    let frame = frames.get(s.id);
    if (frame === undefined) {
      frame = Buffer.from(`{"id":${JSON.stringify(s.id)},"type":"next","payload":${payload}}`);
      if (framed) frame = textFrameOf(frame);
      frames.set(s.id, frame);
    }
    if (framed) s.wire.write(frame);
    else s.socket.send(frame, { binary: false });
  }
}

const server = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
server.on('connection', (socket, request) => {
  socket.on('message', (data: Buffer) => {
    const text = data.toString();
    if (text === 'go') {
      fanOut();
      return;
    }
    const message = JSON.parse(text) as { type: string; id?: string };
    if (message.type === 'connection_init') socket.send(JSON.stringify({ type: 'connection_ack' }));
    if (message.type === 'subscribe') {
      subscribers.push({ socket, wire: request.socket, id: message.id ?? '' });
    }
  });
  socket.on('close', () => {
    const index = subscribers.findIndex((s) => s.socket === socket);
    if (index !== -1) subscribers.splice(index, 1);
  });
});
server.on('listening', () => process.stdout.write(`${(server.address() as AddressInfo).port}\n`));
