import 'reflect-metadata';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { internalCredentialHeaders } from '../common/internal-credential';
import { projectRoot } from '../common/paths';
import { CREATE_TICKET, TICKET_BY_ID } from '../rest-adapter/tickets/tickets.operations';
import { startStack } from '../tools/stack';
import { admin, benchEnv, childRunning, profiledEnv } from './bench-stack';
import { flag, load, textFlag, type HttpCall, type LoadResult } from './load';

/**
 * Ticket creation and get-by-id through the three doors: the REST adapter, the gateway, and the
 * tickets subgraph itself, each at 1 and 50 concurrent connections. The GraphQL runs send the very
 * operations the REST routes send. Starts its own stack on free ports and a `nida_bench`
 * database; only 127.0.0.1 is contacted; each run is bounded by --seconds.
 *
 *   npm run build && npm run bench:tickets -- [--seconds 5] [--only get:REST] [--connections 50]
 *                                            [--profile /tmp/nida-prof]
 *
 * Targets: REST at least 90% of the gateway's throughput for the same operation at 50
 * connections, or, where the extra hop rules that out on this machine, REST/gateway at least 95%
 * of what the bare-HTTP floor keeps of two hops with a third (three-hop ÷ two-hop req/s at 50
 * connections, measured in the same run); and REST p99 under 50 ms at 50 connections.
 *
 * `--only op:door` and `--connections` narrow the runs (the floor is then skipped); `--profile`
 * profiles the adapter, the gateway and the tickets subgraph over the runs (bench/cpu-profiler.ts)
 * into that folder, for reading each one's work per request under one load alone.
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
 * The same load through chained processes that do nothing but HTTP and JSON: what three hops
 * cost on this machine before any GraphQL, SQL or Redis work, and what two cost, for reading the
 * REST/gateway ratio against what the third hop alone takes.
 */
async function floor(seconds: number): Promise<FloorResult[]> {
  const hops: ChildProcess[] = [];
  try {
    const last = await startHop(undefined, hops);
    const middle = await startHop(last, hops);
    const first = await startHop(middle, hops);
    const ok = (status: number) => status === 200;
    const results: FloorResult[] = [];
    for (const concurrency of [1, 50]) {
      for (const [hopCount, port] of [
        [3, first],
        [2, middle],
      ] as const) {
        const next = (): HttpCall => ({ method: 'POST', url: `http://127.0.0.1:${port}/`, body: '{}' });
        await load('warm-up', next, { seconds: 1, concurrency, ok });
        const before = cpuMs(hops);
        const result = await load(`${hopCount} bare HTTP hops`, next, { seconds, concurrency, ok });
        const cpuPerRequestMs = Math.round(((cpuMs(hops) - before) / result.requests) * 1000) / 1000;
        results.push({ hops: hopCount, cpuPerRequestMs, ...result });
      }
    }
    return results;
  } finally {
    for (const hop of hops) hop.kill('SIGTERM');
  }
}

interface FloorResult extends LoadResult {
  hops: 2 | 3;
  /** CPU time of the hops and of this load generator, per request. */
  cpuPerRequestMs: number;
}

/**
 * CPU time (user + system) so far of the hop processes and of this process, in ms. Throughput
 * alone can hide what a hop costs: on a quiet machine the load generator, a single process, caps
 * both chains at about the same rate.
 */
function cpuMs(hops: ChildProcess[]): number {
  const ticksPerMs = 100 / 1000; // USER_HZ
  const own = process.cpuUsage();
  let total = (own.user + own.system) / 1000;
  for (const hop of hops) {
    const stat = readFileSync(`/proc/${hop.pid}/stat`, 'utf8');
    // pid (comm) state ppid … utime stime: comm may hold spaces, so count from the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    total += (Number(fields[11]) + Number(fields[12])) / ticksPerMs;
  }
  return total;
}

/** The processes a --profile run profiles: the three of the REST path. */
const PROFILED = ['rest-adapter/main.js', 'gateway/main.js', 'subgraphs/tickets/main.js'];

/** A string flag's value (`--only get:REST`), or undefined when not given. */
/**
 * The targets at 50 connections: REST/gateway throughput ≥ 90%, or ≥ 95% of the floor's own
 * ratio (three hops ÷ two), which is what a third process costs here before any work of its own;
 * the same against the floor's CPU a request, which the load generator's own limit cannot hide;
 * and REST p99 under 50 ms.
 */
function targets(results: (LoadResult & { op: string; door: string })[], bare: FloorResult[]) {
  const find = (op: string, door: string) =>
    results.find((r) => r.op === op && r.door === door && r.concurrency === 50)!;
  const floorAt50 = (hops: number) => bare.find((r) => r.hops === hops && r.concurrency === 50)!;
  const floorRatio = floorAt50(3).perSecond / floorAt50(2).perSecond;
  // What the floor's ratio would be were it bound by CPU alone: on a quiet machine the load
  // generator caps both chains near one rate and the req/s ratio nears 1 whatever the third hop costs.
  const cpuRatio = floorAt50(2).cpuPerRequestMs / floorAt50(3).cpuPerRequestMs;
  const percent = (value: number) => Math.round(value * 1000) / 10;
  return [
    {
      check: 'floor: three bare hops / two bare hops at 50 connections',
      value: percent(floorRatio),
      unit: '%',
      pass: true,
    },
    {
      check: 'floor: CPU per request of two bare hops / of three, load generator included, at 50 connections',
      value: percent(cpuRatio),
      unit: '%',
      pass: true,
    },
    ...['create', 'get'].flatMap((op) => {
      const rest = find(op, 'REST');
      const ratio = rest.perSecond / find(op, 'gateway').perSecond;
      return [
        {
          check: `${op}: REST / gateway throughput at 50 connections ≥ 90%`,
          value: percent(ratio),
          unit: '%',
          pass: ratio >= 0.9,
        },
        {
          check: `${op}: (REST / gateway) / (three hops / two hops) at 50 connections ≥ 95%`,
          value: percent(ratio / floorRatio),
          unit: '%',
          pass: ratio >= 0.95 * floorRatio,
        },
        {
          check: `${op}: (REST / gateway) / (two hops' CPU / three hops') at 50 connections ≥ 95%`,
          value: percent(ratio / cpuRatio),
          unit: '%',
          pass: ratio >= 0.95 * cpuRatio,
        },
        {
          check: `${op}: REST p99 at 50 connections < 50 ms`,
          value: rest.p99Ms,
          unit: 'ms',
          pass: rest.p99Ms < 50,
        },
      ];
    }),
  ];
}

async function main(): Promise<void> {
  const seconds = flag('seconds', 5);
  const only = textFlag('only');
  const connections = textFlag('connections') === undefined ? [1, 50] : [flag('connections', 50)];
  const profileDir = textFlag('profile');
  // 1 (the default, as every earlier run): all connections read one ticket, so the gateway shares
  // their subgraph fetches. 50: request i reads ticket i mod 50, a POS's reads of its own orders.
  const ticketCount = flag('tickets', 1);
  // The document's 120 a minute per key would turn the load into 429s.
  const env = benchEnv({ TICKETS_RATE_LIMIT: '100000000' });
  const stack = await startStack(profiledEnv(env, profileDir));
  try {
    const venue = admin(env, 'venue', 'create', '--name', 'Bench Burger', '--plan', 'growth');
    const branch = admin(env, 'branch', 'create', '--venue', String(venue.id), '--name', 'Bench counter');
    const { key } = admin(env, 'key', 'create', '--branch', String(branch.id)) as { key: string };
    const auth = { authorization: `Bearer ${key}` };

    const ids: number[] = [];
    for (let i = 0; i < ticketCount; i++) {
      const seeded = await fetch(`${stack.restUrl}/tickets`, { method: 'POST', headers: auth });
      ids.push(((await seeded.json()) as { id: number }).id);
    }
    let reads = 0;
    const nextId = () => ids[reads++ % ids.length]!;

    const subgraphUrl = `http://127.0.0.1:${stack.ports.tickets}/graphql`;
    const graphqlCall =
      (url: string, document: string, operationName: string, variables: () => Record<string, unknown>) =>
      (): HttpCall => ({
        method: 'POST',
        url,
        // Subgraphs answer only the platform: the benchmark holds the stack's internal secret.
        headers: url === subgraphUrl ? { ...auth, ...internalCredentialHeaders(stack.internalSecret) } : auth,
        body: JSON.stringify({ query: document, operationName, variables: variables() }),
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
        next: graphqlCall(stack.gatewayUrl, CREATE_TICKET.document, CREATE_TICKET.name, () => createVars),
        ok: graphOk,
      },
      {
        op: 'create',
        door: 'subgraph',
        next: graphqlCall(subgraphUrl, CREATE_TICKET.document, CREATE_TICKET.name, () => createVars),
        ok: graphOk,
      },
      {
        op: 'get',
        door: 'REST',
        next: () => ({ method: 'GET', url: `${stack.restUrl}/tickets/${nextId()}`, headers: auth }),
        ok: (s) => s === 200,
      },
      {
        op: 'get',
        door: 'gateway',
        next: graphqlCall(stack.gatewayUrl, TICKET_BY_ID.document, TICKET_BY_ID.name, () => ({
          id: String(nextId()),
        })),
        ok: graphOk,
      },
      {
        op: 'get',
        door: 'subgraph',
        next: graphqlCall(subgraphUrl, TICKET_BY_ID.document, TICKET_BY_ID.name, () => ({
          id: String(nextId()),
        })),
        ok: graphOk,
      },
    ];

    // The profiles start once the stack is set up, so they cover the load and not the start.
    const profiled = PROFILED.map((script) => childRunning(stack.pid, script));
    if (profileDir !== undefined) for (const pid of profiled) process.kill(pid, 'SIGUSR2');

    const results: (LoadResult & { op: string; door: string })[] = [];
    for (const concurrency of connections) {
      for (const s of scenarios.filter((c) => only === undefined || only === `${c.op}:${c.door}`)) {
        await load('warm-up', s.next, { seconds: 1, concurrency, ok: s.ok });
        results.push({
          op: s.op,
          door: s.door,
          ...(await load(`${s.op} via ${s.door}`, s.next, { seconds, concurrency, ok: s.ok })),
        });
      }
    }

    await stack.stop();
    if (profileDir !== undefined) {
      process.stdout.write(
        `profiles in ${profileDir}: ${profiled.map((pid) => `*.${pid}.cpuprofile`).join(' ')}\n`,
      );
    }
    const whole = only === undefined && connections.length === 2;
    const bare = whole ? await floor(seconds) : [];
    const table = [
      '| op | door | connections | req/s | p50 ms | p99 ms | errors |',
      '|---|---|---|---|---|---|---|',
      ...results.map(
        (r) =>
          `| ${r.op} | ${r.door} | ${r.concurrency} | ${r.perSecond} | ${r.p50Ms} | ${r.p99Ms} | ${r.errors} |`,
      ),
      ...bare.map(
        (r) =>
          `| floor | ${r.hops} bare HTTP hops (${r.cpuPerRequestMs} ms CPU a request) | ${r.concurrency} | ${r.perSecond} | ${r.p50Ms} | ${r.p99Ms} | ${r.errors} |`,
      ),
    ].join('\n');
    const checks = whole ? targets(results, bare) : [];
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
