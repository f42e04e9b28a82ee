import { Agent, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * One hop of the bare-HTTP floor: answers a small JSON body itself, or passes each request on to
 * the next hop and relays its answer, with no other work. Three of these in a chain cost what
 * the REST path's three processes cost in HTTP alone. Prints its port once listening.
 *
 *   node dist/bench/floor-hop.js [nextPort]
 */
const next = Number(process.argv[2] ?? 0);
const agent = new Agent({ keepAlive: true, maxSockets: 256 });
const answer = JSON.stringify({ data: { ticket: { id: '1', number: 12, status: 'WAITING' } } });

const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    if (next === 0) {
      res.setHeader('content-type', 'application/json');
      res.end(answer);
      return;
    }
    const payload = JSON.stringify({ query: '{ ticket(id: 1) { id } }' });
    const upstream = request(
      {
        agent,
        host: '127.0.0.1',
        port: next,
        method: 'POST',
        path: '/',
        headers: { 'content-type': 'application/json' },
      },
      (up) => {
        let body = '';
        up.setEncoding('utf8');
        up.on('data', (chunk: string) => (body += chunk));
        up.on('end', () => {
          res.setHeader('content-type', 'application/json');
          res.end(JSON.stringify(JSON.parse(body)));
        });
      },
    );
    upstream.on('error', () => res.writeHead(502).end());
    upstream.end(payload);
  });
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${(server.address() as AddressInfo).port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
