import { EventEmitter } from 'node:events';
import type { WebSocket } from 'ws';

/** A `ws` socket as the live server's parts write to it and close it: what it was sent, and how it closed. */
export class FakeSocket extends EventEmitter {
  readonly sent: string[] = [];
  /** Each send's data as given: one Buffer object for every socket that shared a frame. */
  readonly raw: (string | Buffer)[] = [];
  closedWith?: number;
  bufferedAmount = 0;

  send(data: string | Buffer, options?: { binary?: boolean }): void {
    // graphql-ws messages are text frames; a browser hands a binary one to the page as a Blob.
    if (typeof data !== 'string' && options?.binary !== false) throw new Error('a Buffer sent as binary');
    if (this.closedWith !== undefined) return;
    this.raw.push(data);
    this.sent.push(data.toString());
  }

  close(code: number): void {
    if (this.closedWith !== undefined) return;
    this.closedWith = code;
    this.emit('close', code);
  }

  asWebSocket(): WebSocket {
    return this as unknown as WebSocket;
  }
}
