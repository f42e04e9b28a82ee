import WebSocket from 'ws';

/**
 * One graphql-ws subscriber of a ticket's `ticketUpdated`, as the benchmarks open them: resolves
 * once subscribed, and calls `next` at every `next` frame without parsing it (parsing 10,000 of
 * them would be the client's cost, not the server's latency).
 */
export function subscribeToTicket(
  url: string,
  query: string,
  token: string,
  next: () => void,
): { socket: WebSocket; subscribed: Promise<WebSocket> } {
  const socket = new WebSocket(url, 'graphql-transport-ws', {
    perMessageDeflate: false,
    // The client's own UTF-8 check of 10,000 frames is not the server's latency.
    skipUTF8Validation: true,
  });
  const subscribed = new Promise<WebSocket>((resolve, reject) => {
    socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: {} })));
    socket.on('message', (data: Buffer) => {
      if (data.includes('"type":"next"')) {
        next();
        return;
      }
      const message = JSON.parse(data.toString()) as { type: string };
      if (message.type === 'connection_ack') {
        socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query, variables: { token } } }));
        resolve(socket);
      } else if (message.type === 'error') {
        reject(new Error(`subscription refused: ${data.toString()}`));
      }
    });
    socket.on('error', reject);
  });
  return { socket, subscribed };
}
