import 'reflect-metadata';
import { loadConfig } from '../common/config';
import { startStack } from '../tools/stack';

/**
 * Load on the one real path of the skeleton: GET /api/v1/plans (adapter → gateway → billing →
 * Postgres) and the same query straight at the gateway. Starts its own stack on free ports and a
 * `nida_bench` database, so it needs nothing running. Only 127.0.0.1 is ever contacted.
 *
 *   npm run build && npm run bench -- [--seconds 10] [--concurrency 16]
 */

interface Result {
  target: string;
  requests: number;
  errors: number;
  seconds: number;
  perSecond: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
}

function flag(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  const value = index === -1 ? undefined : Number(process.argv[index + 1]);
  return value !== undefined && Number.isFinite(value) && value > 0 ? value : fallback;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! * 100) / 100;
}

async function load(
  target: string,
  send: () => Promise<Response>,
  seconds: number,
  concurrency: number,
): Promise<Result> {
  const latencies: number[] = [];
  let errors = 0;
  const deadline = performance.now() + seconds * 1000;
  const worker = async () => {
    while (performance.now() < deadline) {
      const started = performance.now();
      try {
        const response = await send();
        await response.arrayBuffer();
        if (!response.ok) errors++;
      } catch {
        errors++;
      }
      latencies.push(performance.now() - started);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    target,
    requests: latencies.length,
    errors,
    seconds: Math.round(elapsed * 100) / 100,
    perSecond: Math.round(latencies.length / elapsed),
    p50Ms: percentile(latencies, 50),
    p95Ms: percentile(latencies, 95),
    p99Ms: percentile(latencies, 99),
  };
}

async function main(): Promise<void> {
  const seconds = flag('seconds', 10);
  const concurrency = flag('concurrency', 16);
  const database = new URL(loadConfig().databaseUrl);
  database.pathname = '/nida_bench';
  const stack = await startStack({
    DATABASE_URL: database.toString(),
    REDIS_PREFIX: 'bench:',
    LOG_LEVEL: 'warn',
  });
  try {
    const rest = () => fetch(`${stack.restUrl}/plans`);
    const graphql = () =>
      fetch(stack.gatewayUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ plans(product: CV) { key name monthlyPriceIqd cv { cvLimit } } }' }),
      });
    await load('warm-up', rest, 2, concurrency);
    const results = [
      await load('GET /api/v1/plans (adapter → gateway → billing)', rest, seconds, concurrency),
      await load('POST /graphql plans(product: CV) (gateway → billing)', graphql, seconds, concurrency),
    ];
    process.stdout.write(`${JSON.stringify({ seconds, concurrency, results }, null, 2)}\n`);
  } finally {
    await stack.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench: ${String(error)}\n`);
  process.exit(1);
});
