import { Agent, request } from 'node:http';

export interface LoadResult {
  target: string;
  concurrency: number;
  requests: number;
  errors: number;
  seconds: number;
  perSecond: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
}

export interface HttpCall {
  method: 'GET' | 'POST';
  url: string;
  headers?: Record<string, string>;
  body?: string;
}

/** The p-th percentile of ascending values, to 0.01. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  const value = sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
  return Math.round(value * 100) / 100;
}

/**
 * Sends one request over a kept-alive connection and resolves with its status; the body is read
 * and checked by `ok` so a 200 carrying GraphQL errors counts as an error.
 */
function send(agent: Agent, call: HttpCall, ok: (status: number, body: string) => boolean): Promise<boolean> {
  return new Promise((resolve) => {
    const url = new URL(call.url);
    const req = request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method: call.method,
        headers: {
          ...(call.body !== undefined
            ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(call.body) }
            : {}),
          ...call.headers,
        },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve(ok(res.statusCode ?? 0, body)));
      },
    );
    req.on('error', () => resolve(false));
    if (call.body !== undefined) req.write(call.body);
    req.end();
  });
}

/** Keeps `concurrency` requests in flight for `seconds`; bounded in time, local addresses only. */
export async function load(
  target: string,
  next: () => HttpCall,
  {
    seconds,
    concurrency,
    ok,
  }: { seconds: number; concurrency: number; ok: (status: number, body: string) => boolean },
): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const latencies: number[] = [];
  let errors = 0;
  const deadline = performance.now() + seconds * 1000;
  const worker = async () => {
    while (performance.now() < deadline) {
      const started = performance.now();
      if (!(await send(agent, next(), ok))) errors++;
      latencies.push(performance.now() - started);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return {
    target,
    concurrency,
    requests: latencies.length,
    errors,
    seconds: Math.round(elapsed * 100) / 100,
    perSecond: Math.round(latencies.length / elapsed),
    p50Ms: percentile(latencies, 50),
    p95Ms: percentile(latencies, 95),
    p99Ms: percentile(latencies, 99),
  };
}

/** A flag's text (`--only create:REST`), or undefined when it is not given. */
export function textFlag(name: string): string | undefined {
  const index = process.argv.indexOf(`--${name}`);
  return index === -1 ? undefined : process.argv[index + 1];
}

export function flag(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  const value = index === -1 ? undefined : Number(process.argv[index + 1]);
  return value !== undefined && Number.isFinite(value) && value > 0 ? value : fallback;
}
