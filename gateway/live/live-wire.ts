import type { Duplex } from 'node:stream';
import { WebSocket } from 'ws';

/** How a frame built once goes to many sockets: a Buffer, sent as the text frame it encodes. */
export const TEXT_FRAME = { binary: false } as const;

/**
 * The connection under each live socket, registered as the socket opens. ws frames every `send`
 * anew (a header allocated, then a corked two-part write), which was a fifth of the fan-out loop's
 * time at 10,000 subscribers; an event's `next` frame is the same bytes for every subscriber that
 * shares its payload, so it is framed once and written to each connection whole.
 */
const wires = new WeakMap<WebSocket, Duplex>();
/** Each payload's wire frame, as long as the payload itself is held. */
const framed = new WeakMap<Buffer, Buffer>();

/**
 * Lets `sendText` write to `socket`'s connection. Only for a server whose sockets never compress
 * (`perMessageDeflate: false`) and are never sent Blobs: those are the only times ws queues a
 * message instead of writing it at once, and a frame written past its queue would overtake it.
 */
export function registerWire(socket: WebSocket, connection: Duplex): void {
  wires.set(socket, connection);
}

/** RFC 6455 §5.2: an unmasked, final text frame of `payload`, as a server sends it. */
export function textFrameOf(payload: Buffer): Buffer {
  const length = payload.length;
  let head: Buffer;
  if (length < 126) {
    head = Buffer.from([0x81, length]);
  } else if (length < 65536) {
    head = Buffer.from([0x81, 126, length >> 8, length & 0xff]);
  } else {
    head = Buffer.alloc(10);
    head[0] = 0x81;
    head[1] = 127;
    head.writeBigUInt64BE(BigInt(length), 2);
  }
  return Buffer.concat([head, payload], head.length + length);
}

/**
 * Sends `payload` as a text frame: straight to the connection when it is registered and the socket
 * open, else through ws (which, once the socket closes, drops it as it would any send).
 */
export function sendText(socket: WebSocket, payload: Buffer): void {
  const wire = wires.get(socket);
  if (wire === undefined || socket.readyState !== WebSocket.OPEN) {
    socket.send(payload, TEXT_FRAME);
    return;
  }
  let frame = framed.get(payload);
  if (frame === undefined) {
    frame = textFrameOf(payload);
    framed.set(payload, frame);
  }
  wire.write(frame);
}

/** The socket side of a subscriber: graphql-ws's `next` frames are written straight to it. */
export interface LiveSocket {
  readonly bufferedAmount: number;
  /** Writes one `next` message, already serialised, as a text frame. */
  write(payload: Buffer): void;
}

/** A socket written to as it is, with no credential to hold its events for. */
export function liveSocketOf(socket: WebSocket): LiveSocket {
  return {
    get bufferedAmount() {
      return socket.bufferedAmount;
    },
    write: (payload) => sendText(socket, payload),
  };
}
