import 'reflect-metadata';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { internalCredentialHeaders } from '../common/internal-credential';
import { projectRoot } from '../common/paths';
import { CREATE_TICKET, TICKET_BY_ID } from '../rest-adapter/tickets/tickets.operations';
import { startStack } from '../tools/stack';
import { admin, benchEnv } from './bench-stack';
import { flag, load, type HttpCall, type LoadResult } from './load';

/**
 * Ticket creation and get-by-id through the three doors: the REST adapter, the gateway, and the
 * tickets subgraph itself, each at 1 and 50 concurrent connections. The GraphQL runs send the very
 * operations the REST routes send. Starts its own stack on free ports and a `nida_bench`
 * database; only 127.0.0.1 is contacted; each run is bounded by --seconds.
 *
 *   npm run build && npm run bench:tickets -- [--seconds 5]
 *
 * Targets: REST at least 80% of the gateway's throughput for the same operation, and REST p99
 * under 50 ms at 50 connections.
 */

/** Starts one floor hop (bench/floor-hop.ts) and resolves with its port. */
function startHop(next: number | undefined, hops: ChildProcess[]): Promise<number> {
  const child = spawn(
    process.execPath,
    [join(projectRoot(), 'dist', 'bench', 'floor-hop.js'), String(next ?? 0)],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  hops.push(child);
  return new Promise((resolve, reject) => {
    child.stdout.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim())));
    child.once('exit', (code) => reject(new Error(`floor hop exited with ${code}`)));
  });
}

/**
 * The same load through three chained processes that do nothing but HTTP and JSON: what three
 * hops cost on this machine before any GraphQL, SQL or Redis work, for reading the figures above.
 */
async function floor(seconds: number): Promise<LoadResult[]> {
  const hops: ChildProcess[] = [];
  try {
    const last = await startHop(undefined, hops);
    const middle = await startHop(last, hops);
    const first = await startHop(middle, hops);
    const next = (): HttpCall => ({ method: 'POST', url: `http://127.0.0.1:${first}/`, body: '{}' });
    const ok = (status: number) => status === 200;
    const results: LoadResult[] = [];
    for (const concurrency of [1, 50]) {
      await load('warm-up', next, { seconds: 1, concurrency, ok });
      results.push(await load('three bare HTTP hops', next, { seconds, concurrency, ok }));
    }
    return results;
  } finally {
    for (const hop of hops) hop.kill('SIGTERM');
  }
}

async function main(): Promise<void> {
  const seconds = flag('seconds', 5);
  // The document's 120 a minute per key would turn the load into 429s.
  const env = benchEnv({ TICKETS_RATE_LIMIT: '100000000' });
  const stack = await startStack(env);
  try {
    const venue = admin(env, 'venue', 'create', '--name', 'Bench Burger', '--plan', 'growth');
    const branch = admin(env, 'branch', 'create', '--venue', String(venue.id), '--name', 'Bench counter');
    const { key } = admin(env, 'key', 'create', '--branch', String(branch.id)) as { key: string };
    const auth = { authorization: `Bearer ${key}` };

    const seeded = await fetch(`${stack.restUrl}/tickets`, { method: 'POST', headers: auth });
    const { id } = (await seeded.json()) as { id: number };

    const subgraphUrl = `http://127.0.0.1:${stack.ports.tickets}/graphql`;
    const graphqlCall =
      (url: string, document: string, operationName: string, variables: Record<string, unknown>) =>
      (): HttpCall => ({
        method: 'POST',
        url,
        // Subgraphs answer only the platform: the benchmark holds the stack's internal secret.
        headers: url === subgraphUrl ? { ...auth, ...internalCredentialHeaders(stack.internalSecret) } : auth,
        body: JSON.stringify({ query: document, operationName, variables }),
      });
    const graphOk = (status: number, body: string) => status === 200 && !body.includes('"errors"');
    const createVars = {
      input: { number: null, externalId: null, customerName: null, customerPhone: null, note: null },
      idempotencyKey: null,
    };

    const scenarios: {
      op: string;
      door: string;
      next: () => HttpCall;
      ok: (s: number, b: string) => boolean;
    }[] = [
      {
        op: 'create',
        door: 'REST',
        next: () => ({ method: 'POST', url: `${stack.restUrl}/tickets`, headers: auth, body: '{}' }),
        ok: (s) => s === 201,
      },
      {
        op: 'create',
        door: 'gateway',
        next: graphqlCall(stack.gatewayUrl, CREATE_TICKET.document, CREATE_TICKET.name, createVars),
        ok: graphOk,
      },
      {
        op: 'create',
        door: 'subgraph',
        next: graphqlCall(subgraphUrl, CREATE_TICKET.document, CREATE_TICKET.name, createVars),
        ok: graphOk,
      },
      {
        op: 'get',
        door: 'REST',
        next: () => ({ method: 'GET', url: `${stack.restUrl}/tickets/${id}`, headers: auth }),
        ok: (s) => s === 200,
      },
      {
        op: 'get',
        door: 'gateway',
        next: graphqlCall(stack.gatewayUrl, TICKET_BY_ID.document, TICKET_BY_ID.name, { id: String(id) }),
        ok: graphOk,
      },
      {
        op: 'get',
        door: 'subgraph',
        next: graphqlCall(subgraphUrl, TICKET_BY_ID.document, TICKET_BY_ID.name, { id: String(id) }),
        ok: graphOk,
      },
    ];

    const results: (LoadResult & { op: string; door: string })[] = [];
    for (const concurrency of [1, 50]) {
      for (const s of scenarios) {
        await load('warm-up', s.next, { seconds: 1, concurrency, ok: s.ok });
        results.push({
          op: s.op,
          door: s.door,
          ...(await load(`${s.op} via ${s.door}`, s.next, { seconds, concurrency, ok: s.ok })),
        });
      }
    }

    const find = (op: string, door: string, c: number) =>
      results.find((r) => r.op === op && r.door === door && r.concurrency === c)!;
    const checks = ['create', 'get'].flatMap((op) => {
      const rest = find(op, 'REST', 50);
      const gateway = find(op, 'gateway', 50);
      return [
        {
          check: `${op}: REST / gateway throughput at 50 connections ≥ 80%`,
          value: Math.round((rest.perSecond / gateway.perSecond) * 100),
          unit: '%',
          pass: rest.perSecond >= 0.8 * gateway.perSecond,
        },
        {
          check: `${op}: REST p99 at 50 connections < 50 ms`,
          value: rest.p99Ms,
          unit: 'ms',
          pass: rest.p99Ms < 50,
        },
      ];
    });

    await stack.stop();
    const bare = await floor(seconds);
    const table = [
      '| op | door | connections | req/s | p50 ms | p99 ms | errors |',
      '|---|---|---|---|---|---|---|',
      ...results.map(
        (r) =>
          `| ${r.op} | ${r.door} | ${r.concurrency} | ${r.perSecond} | ${r.p50Ms} | ${r.p99Ms} | ${r.errors} |`,
      ),
      ...bare.map(
        (r) =>
          `| floor | 3 bare HTTP hops | ${r.concurrency} | ${r.perSecond} | ${r.p50Ms} | ${r.p99Ms} | ${r.errors} |`,
      ),
    ].join('\n');
    process.stdout.write(
      `${JSON.stringify({ seconds, results, floor: bare, checks }, null, 2)}\n\n${table}\n\n`,
    );
    for (const c of checks)
      process.stdout.write(`${c.pass ? 'PASS' : 'MISS'} ${c.check}: ${c.value} ${c.unit}\n`);
  } finally {
    await stack.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench: ${String(error)}\n`);
  process.exit(1);
});
