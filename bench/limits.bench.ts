import 'reflect-metadata';
import { internalCredentialHeaders } from '../common/internal-credential';
import { CREATE_TICKET, TICKET_BY_ID } from '../rest-adapter/tickets/tickets.operations';
import { startStack } from '../tools/stack';
import { admin, benchEnv } from './bench-stack';
import { flag, load, type HttpCall, type LoadResult } from './load';

/**
 * What the gateway's per-credential limits cost: the same ticket get and create sent to the same
 * gateway as a client (counted in Redis against the key's budget, weighed against the cost limit)
 * and as the platform (with the internal secret, which the gateway does not count or weigh, as for
 * the REST adapter's requests). The two doors alternate in short slices, so the machine's drift
 * falls on both alike. Starts its own stack on free ports and a `nida_bench` database.
 *
 *   npm run build && npm run bench:limits -- [--rounds 10] [--slice 1.5]
 *
 * Target: the limits cost at most 10% of the gateway's throughput.
 */

interface Pair {
  op: string;
  concurrency: number;
  counted: LoadResult[];
  uncounted: LoadResult[];
}

const sum = (results: LoadResult[], pick: (r: LoadResult) => number) =>
  results.reduce((total, r) => total + pick(r), 0);

async function main(): Promise<void> {
  const rounds = flag('rounds', 10);
  const slice = flag('slice', 1.5);
  // The document's 120 a minute per key would turn the load into 429s; the count still happens.
  const env = benchEnv({ TICKETS_RATE_LIMIT: '100000000' });
  const stack = await startStack(env);
  try {
    const venue = admin(env, 'venue', 'create', '--name', 'Bench Limits', '--plan', 'growth');
    const branch = admin(env, 'branch', 'create', '--venue', String(venue.id), '--name', 'Bench counter');
    const { key } = admin(env, 'key', 'create', '--branch', String(branch.id)) as { key: string };
    const auth = { authorization: `Bearer ${key}` };
    const seeded = await fetch(`${stack.restUrl}/tickets`, { method: 'POST', headers: auth });
    const { id } = (await seeded.json()) as { id: number };
    const bodies: Record<string, string> = {
      get: JSON.stringify({
        query: TICKET_BY_ID.document,
        operationName: TICKET_BY_ID.name,
        variables: { id: String(id) },
      }),
      create: JSON.stringify({
        query: CREATE_TICKET.document,
        operationName: CREATE_TICKET.name,
        variables: {
          input: { number: null, externalId: null, customerName: null, customerPhone: null, note: null },
          idempotencyKey: null,
        },
      }),
    };
    const ok = (status: number, body: string) => status === 200 && !body.includes('"errors"');
    const asPlatform = { ...auth, ...internalCredentialHeaders(stack.internalSecret) };

    const pairs: Pair[] = [];
    for (const [op, body] of Object.entries(bodies)) {
      for (const concurrency of [1, 50]) {
        const counted = (): HttpCall => ({ method: 'POST', url: stack.gatewayUrl, headers: auth, body });
        const uncounted = (): HttpCall => ({
          method: 'POST',
          url: stack.gatewayUrl,
          headers: asPlatform,
          body,
        });
        await load('warm-up', counted, { seconds: 1, concurrency, ok });
        await load('warm-up', uncounted, { seconds: 1, concurrency, ok });
        const pair: Pair = { op, concurrency, counted: [], uncounted: [] };
        for (let round = 0; round < rounds; round += 1) {
          // Each door goes first in every other round.
          const order =
            round % 2 === 0 ? (['counted', 'uncounted'] as const) : (['uncounted', 'counted'] as const);
          for (const door of order) {
            const next = door === 'counted' ? counted : uncounted;
            pair[door].push(await load(`${op} ${door}`, next, { seconds: slice, concurrency, ok }));
          }
        }
        pairs.push(pair);
      }
    }

    const rows = pairs.map((p) => {
      const rate = (results: LoadResult[]) =>
        sum(results, (r) => r.requests) / sum(results, (r) => r.seconds);
      const errors = sum(p.counted, (r) => r.errors) + sum(p.uncounted, (r) => r.errors);
      const counted = rate(p.counted);
      const uncounted = rate(p.uncounted);
      return {
        op: p.op,
        concurrency: p.concurrency,
        countedPerSecond: Math.round(counted),
        uncountedPerSecond: Math.round(uncounted),
        ratio: Math.round((counted / uncounted) * 100),
        errors,
      };
    });
    const table = [
      '| op | connections | with limits req/s | uncounted req/s | with / uncounted | errors |',
      '|---|---|---|---|---|---|',
      ...rows.map(
        (r) =>
          `| ${r.op} | ${r.concurrency} | ${r.countedPerSecond} | ${r.uncountedPerSecond} | ${r.ratio}% | ${r.errors} |`,
      ),
    ].join('\n');
    process.stdout.write(`${JSON.stringify({ rounds, slice, rows }, null, 2)}\n\n${table}\n\n`);
    for (const r of rows) {
      const pass = r.ratio >= 90;
      process.stdout.write(
        `${pass ? 'PASS' : 'MISS'} ${r.op} at ${r.concurrency}: the limits keep ≥ 90% of the gateway's throughput: ${r.ratio} %\n`,
      );
    }
  } finally {
    await stack.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench: ${String(error)}\n`);
  process.exit(1);
});
