import 'reflect-metadata';
import { startStack } from '../tools/stack';
import { benchEnv } from './bench-stack';
import { flag, load } from './load';

/**
 * Load on the skeleton's first path: GET /api/v1/plans (adapter → gateway → billing → Postgres)
 * and the same query straight at the gateway. Starts its own stack on free ports and a
 * `nida_bench` database, so it needs nothing running. Only 127.0.0.1 is ever contacted.
 *
 *   npm run build && npm run bench:plans -- [--seconds 10] [--concurrency 16]
 */
async function main(): Promise<void> {
  const seconds = flag('seconds', 10);
  const concurrency = flag('concurrency', 16);
  const stack = await startStack(benchEnv());
  try {
    const ok = (status: number) => status === 200;
    const rest = () => ({ method: 'GET' as const, url: `${stack.restUrl}/plans` });
    const graphql = () => ({
      method: 'POST' as const,
      url: stack.gatewayUrl,
      body: JSON.stringify({ query: '{ plans(product: CV) { key name monthlyPriceIqd cv { cvLimit } } }' }),
    });
    await load('warm-up', rest, { seconds: 2, concurrency, ok });
    const results = [
      await load('GET /api/v1/plans (adapter → gateway → billing)', rest, { seconds, concurrency, ok }),
      await load('POST /graphql plans(product: CV) (gateway → billing)', graphql, {
        seconds,
        concurrency,
        ok,
      }),
    ];
    process.stdout.write(`${JSON.stringify({ seconds, results }, null, 2)}\n`);
  } finally {
    await stack.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench: ${String(error)}\n`);
  process.exit(1);
});
