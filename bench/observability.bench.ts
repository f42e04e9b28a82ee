import 'reflect-metadata';
import { spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { TICKET_BY_ID } from '../rest-adapter/tickets/tickets.operations';
import { startStack, type RunningStack } from '../tools/stack';
import { benchEnv } from './bench-stack';
import { flag, load, type HttpCall, type LoadResult } from './load';

/**
 * What metrics and traces cost: the same REST and gateway reads sent, in alternating short slices so
 * the machine's drift falls on all alike, to three stacks running at once:
 *   - off: an earlier build with neither (`--baseline DIR`, a checkout built at the commit before
 *     metrics and traces, so "off" has no instrumentation code at all);
 *   - metrics: this build, metrics recorded and served (not scraped: a scrape a minute or so is no
 *     load), no OTEL endpoint;
 *   - traced: this build with tracing at 100% sampling, exported over OTLP/HTTP to a local receiver.
 *
 *   git worktree add /tmp/nida-baseline 18ecaca && ln -s "$PWD/node_modules" /tmp/nida-baseline/
 *   (cd /tmp/nida-baseline && npm run build)
 *   npm run build && npm run bench:observability -- --baseline /tmp/nida-baseline [--rounds 6] [--slice 1.5]
 *
 * Target: metrics on and tracing off keep ≥ 95% of the off build's throughput; tracing is reported.
 */

type Name = 'off' | 'metrics' | 'traced';
const NAMES: Name[] = ['off', 'metrics', 'traced'];

interface Target {
  stack: RunningStack;
  key: string;
  ticketId: number;
}

/** The admin CLI of a built checkout, as an operator runs it. */
function adminAt(root: string, env: NodeJS.ProcessEnv, ...args: string[]): Record<string, unknown> {
  const result = spawnSync(process.execPath, [join(root, 'dist', 'tools', 'admin.js'), ...args], {
    env,
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`admin ${args.join(' ')}: ${result.stderr}`);
  return JSON.parse(result.stdout) as Record<string, unknown>;
}

/** A local OTLP/HTTP receiver: takes every export and answers an empty success, counting bytes. */
async function otlpReceiver(): Promise<{
  server: Server;
  url: string;
  exports: () => number;
  bytes: () => number;
}> {
  let exports = 0;
  let bytes = 0;
  const server = createServer((req, res) => {
    req.on('data', (chunk: Buffer) => (bytes += chunk.length));
    req.on('end', () => {
      exports += 1;
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}`, exports: () => exports, bytes: () => bytes };
}

async function prepare(name: Name, root: string, env: NodeJS.ProcessEnv): Promise<Target> {
  const stack = await startStack(env, 90_000, root);
  const venue = adminAt(root, env, 'venue', 'create', '--name', `Bench ${name}`, '--plan', 'growth');
  const branch = adminAt(root, env, 'branch', 'create', '--venue', String(venue.id), '--name', 'Counter');
  const { key } = adminAt(root, env, 'key', 'create', '--branch', String(branch.id)) as { key: string };
  const created = await fetch(`${stack.restUrl}/tickets`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
  });
  const { id } = (await created.json()) as { id: number };
  return { stack, key, ticketId: id };
}

const rate = (results: LoadResult[]) =>
  results.reduce((t, r) => t + r.requests, 0) / results.reduce((t, r) => t + r.seconds, 0);

async function main(): Promise<void> {
  const baselineIndex = process.argv.indexOf('--baseline');
  const baseline = baselineIndex === -1 ? undefined : process.argv[baselineIndex + 1];
  if (baseline === undefined) throw new Error('--baseline DIR: a checkout built before metrics and traces');
  const rounds = flag('rounds', 6);
  const slice = flag('slice', 1.5);
  const receiver = await otlpReceiver();
  const common = { TICKETS_RATE_LIMIT: '100000000', METRICS_PORT: '0' };
  const envs: Record<Name, NodeJS.ProcessEnv> = {
    off: benchEnv({ ...common, DATABASE_URL: databaseUrl('nida_bench_off'), REDIS_PREFIX: 'bench-off:' }),
    metrics: benchEnv({
      ...common,
      DATABASE_URL: databaseUrl('nida_bench_metrics'),
      REDIS_PREFIX: 'bench-m:',
    }),
    traced: benchEnv({
      ...common,
      DATABASE_URL: databaseUrl('nida_bench_traced'),
      REDIS_PREFIX: 'bench-t:',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      OTEL_TRACES_SAMPLER: 'always_on',
    }),
  };
  const targets = {} as Record<Name, Target>;
  try {
    targets.off = await prepare('off', baseline, envs.off);
    targets.metrics = await prepare('metrics', process.cwd(), envs.metrics);
    targets.traced = await prepare('traced', process.cwd(), envs.traced);
    const calls: Record<string, (t: Target) => HttpCall> = {
      'REST GET /tickets/{id}': (t) => ({
        method: 'GET',
        url: `${t.stack.restUrl}/tickets/${t.ticketId}`,
        headers: { authorization: `Bearer ${t.key}` },
      }),
      'GraphQL ticket(id)': (t) => ({
        method: 'POST',
        url: t.stack.gatewayUrl,
        headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          query: TICKET_BY_ID.document,
          operationName: TICKET_BY_ID.name,
          variables: { id: String(t.ticketId) },
        }),
      }),
    };
    const ok = (status: number, body: string) => status === 200 && !body.includes('"errors"');
    const concurrency = flag('connections', 50);
    const rows: string[] = [];
    const verdicts: string[] = [];
    for (const [op, call] of Object.entries(calls)) {
      const results: Record<Name, LoadResult[]> = { off: [], metrics: [], traced: [] };
      for (const name of NAMES)
        await load('warm-up', () => call(targets[name]), { seconds: 1, concurrency, ok });
      for (let round = 0; round < rounds; round += 1) {
        const order = round % 2 === 0 ? NAMES : [...NAMES].reverse();
        for (const name of order) {
          results[name].push(
            await load(`${op} ${name}`, () => call(targets[name]), { seconds: slice, concurrency, ok }),
          );
        }
      }
      const [off, metrics, traced] = NAMES.map((name) => rate(results[name]));
      const errors = NAMES.reduce((t, name) => t + results[name].reduce((e, r) => e + r.errors, 0), 0);
      const pct = (x: number) => Math.round((x / off!) * 100);
      rows.push(
        `| ${op} | ${concurrency} | ${Math.round(off!)} | ${Math.round(metrics!)} (${pct(metrics!)}%) | ${Math.round(traced!)} (${pct(traced!)}%) | ${errors} |`,
      );
      verdicts.push(
        `${pct(metrics!) >= 95 ? 'PASS' : 'MISS'} ${op}: metrics on, tracing off keep ${pct(metrics!)}% of off (target ≥ 95%); tracing at 100% keeps ${pct(traced!)}%`,
      );
    }
    process.stdout.write(
      [
        `rounds ${rounds} × ${slice} s per stack and op; OTLP receiver took ${receiver.exports()} exports, ${receiver.bytes()} bytes`,
        '',
        '| op | connections | off req/s | metrics, no tracing req/s | metrics + tracing 100% req/s | errors |',
        '|---|---|---|---|---|---|',
        ...rows,
        '',
        ...verdicts,
        '',
      ].join('\n'),
    );
  } finally {
    for (const name of NAMES) await targets[name]?.stack.stop();
    receiver.server.close();
  }
}

/** The same Postgres as the configuration names, another database (each stack migrates its own). */
function databaseUrl(database: string): string {
  const url = new URL(benchEnv().DATABASE_URL!);
  url.pathname = `/${database}`;
  return url.toString();
}

main().catch((error: unknown) => {
  process.stderr.write(`bench: ${String(error)}\n`);
  process.exit(1);
});
