import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';
import { registerWire, sendText, textFrameOf } from './live-wire';

/** A real ws server whose sockets are registered as the live server's are, and a client of it. */
async function pair(): Promise<{ server: WebSocketServer; socket: WebSocket; client: WebSocket }> {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
  await once(server, 'listening');
  const accepted = new Promise<WebSocket>((resolve) =>
    server.once('connection', (socket, request) => {
      registerWire(socket, request.socket);
      resolve(socket);
    }),
  );
  const client = new WebSocket(`ws://127.0.0.1:${(server.address() as AddressInfo).port}`);
  const [socket] = await Promise.all([accepted, once(client, 'open')]);
  return { server, socket, client };
}

function received(client: WebSocket, count: number): Promise<{ text: string; binary: boolean }[]> {
  const messages: { text: string; binary: boolean }[] = [];
  return new Promise((resolve) =>
    client.on('message', (data: Buffer, binary: boolean) => {
      messages.push({ text: data.toString(), binary });
      if (messages.length === count) resolve(messages);
    }),
  );
}

describe('live-wire: one framing of a payload, written to each connection', () => {
  it('frames a payload as RFC 6455 does for each length encoding', () => {
    expect([...textFrameOf(Buffer.from('hi'))]).toEqual([0x81, 2, 0x68, 0x69]);
    const medium = textFrameOf(Buffer.alloc(300, 'a'));
    expect([...medium.subarray(0, 4)]).toEqual([0x81, 126, 0x01, 0x2c]);
    expect(medium.length).toBe(304);
    const large = textFrameOf(Buffer.alloc(70_000, 'a'));
    expect([...large.subarray(0, 10)]).toEqual([0x81, 127, 0, 0, 0, 0, 0, 0x01, 0x11, 0x70]);
    expect(large.length).toBe(70_010);
  });

  it('a client reads every length as the text frame it is, in order with what ws itself sends', async () => {
    const { server, socket, client } = await pair();
    try {
      const payloads = [Buffer.from('{"a":1}'), Buffer.from('ب'.repeat(200)), Buffer.alloc(70_000, 'z')];
      const messages = received(client, 5);
      sendText(socket, payloads[0]!);
      socket.send('from ws');
      sendText(socket, payloads[1]!);
      sendText(socket, payloads[2]!);
      sendText(socket, payloads[0]!);
      expect(await messages).toEqual([
        { text: '{"a":1}', binary: false },
        { text: 'from ws', binary: false },
        { text: 'ب'.repeat(200), binary: false },
        { text: 'z'.repeat(70_000), binary: false },
        { text: '{"a":1}', binary: false },
      ]);
    } finally {
      client.terminate();
      server.close();
    }
  });

  it('counts what is unsent in bufferedAmount, and drops a send once the socket is closing', async () => {
    const { server, socket, client } = await pair();
    try {
      client.pause();
      const big = Buffer.alloc(4 * 1024 * 1024, 'x');
      sendText(socket, big);
      expect(socket.bufferedAmount).toBeGreaterThan(0);
      client.resume();
      socket.close(1000, 'done');
      expect(() => sendText(socket, Buffer.from('late'))).not.toThrow();
      const [code] = (await once(client, 'close')) as [number];
      expect(code).toBe(1000);
    } finally {
      client.terminate();
      server.close();
    }
  });
});
