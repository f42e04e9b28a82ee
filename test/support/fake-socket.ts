import { EventEmitter } from 'node:events';
import type { WebSocket } from 'ws';

/** A `ws` socket as the live server's parts write to it and close it: what it was sent, and how it closed. */
export class FakeSocket extends EventEmitter {
  readonly sent: string[] = [];
  closedWith?: number;
  bufferedAmount = 0;

  send(data: string | Buffer): void {
    if (this.closedWith === undefined) this.sent.push(data.toString());
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
