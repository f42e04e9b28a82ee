import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig, type SubgraphName } from '../../common/config';
import { INTERNAL_CREDENTIAL_HEADER } from '../../common/internal-credential';
import { JsonHttpClient } from '../../common/json-http';
import { connectRedis } from '../../common/redis';
import { countInWindow } from '../../common/rate-window';
import { FORWARDED_HEADERS } from '../../gateway/context';
import { peerPort, type PeerHeaders } from './peer-headers';

/**
 * The floor under any gateway on a workload whose operation one subgraph answers whole: a relay
 * that reads the request as JSON, passes it to that subgraph over kept-alive node:http (as the
 * platform's gateway does) with the client's forwarded headers and the internal credential, and
 * relays the answer, re-serialised, with no GraphQL work at all: no parsing, validation, planning
 * or shaping. With `FLOOR_COUNTS=1` it also counts every request in Redis through the platform's
 * own `countInWindow`, as the platform's gateway must (docs/API-DECISIONS.md: every request is
 * counted in Redis). Its CPU per request beside Apollo's shows how low a gateway's can go.
 *
 *   node dist/bench/peers/floor-peer.js <port>   (prints the port once it listens)
 */

/** Which subgraph answers each root field the single-fetch workloads ask for. */
const OWNER: Record<string, SubgraphName> = { plans: 'billing', ticket: 'tickets', createTicket: 'tickets' };

/** The first root field of an operation: what follows its first `{`. */
const ROOT_FIELD = /^[^{]*\{\s*(\w+)/;

async function main(): Promise<void> {
  const config = loadConfig();
  const clients = new Map<SubgraphName, JsonHttpClient>();
  for (const name of new Set(Object.values(OWNER))) {
    clients.set(name, new JsonHttpClient(config.subgraphUrls[name], 10_000));
  }
  const redis = process.env.FLOOR_COUNTS === '1' ? await connectRedis(config.redis, 'floor-peer') : undefined;

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const answer = (status: number, text: string) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(text);
      const text = Buffer.concat(chunks).toString('utf8');
      const body = JSON.parse(text) as { query?: string };
      const owner = OWNER[ROOT_FIELD.exec(body.query ?? '')?.[1] ?? ''];
      if (owner === undefined) {
        answer(
          501,
          JSON.stringify({ errors: [{ message: 'the floor relays single-fetch workloads only' }] }),
        );
        return;
      }
      const headers: PeerHeaders = { [INTERNAL_CREDENTIAL_HEADER]: config.internalSecret };
      for (const name of FORWARDED_HEADERS) {
        const value = req.headers[name];
        if (typeof value === 'string') headers[name] = value;
      }
      const counted =
        redis === undefined
          ? Promise.resolve()
          : countInWindow(redis, `bench:floor:${headers.authorization ?? 'public'}`, 60, 250).catch(
              () => undefined,
            );
      counted
        .then(() => clients.get(owner)!.post(text, headers))
        .then(
          (relayed) => answer(relayed.status, JSON.stringify(JSON.parse(relayed.text))),
          (error: unknown) => answer(502, JSON.stringify({ errors: [{ message: String(error) }] })),
        );
    });
  });
  server.listen(peerPort(), '127.0.0.1', () =>
    process.stdout.write(`${(server.address() as AddressInfo).port}\n`),
  );
  process.on('SIGTERM', () => {
    for (const client of clients.values()) client.close();
    redis?.disconnect();
    server.close(() => process.exit(0));
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`floor peer: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
