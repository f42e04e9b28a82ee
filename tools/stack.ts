import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { join } from 'node:path';
import { projectRoot } from '../common/paths';

/**
 * Listening ports are drawn from below the kernel's ephemeral range: a port the kernel hands out
 * for `listen(0)` comes from the same range as every outgoing connection's local port, so between
 * closing the probe and the process binding it, a busy neighbour's outgoing connection can take it.
 */
const LOWEST_PORT = 10_000;
/** Each jest worker walks its own slice, so two workers of one run never pick the same port. */
const SLICES = 16;

function ephemeralRangeStart(): number {
  try {
    const first = Number(
      readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0],
    );
    return Number.isInteger(first) && first > 0 ? first : 32_768;
  } catch {
    return 32_768;
  }
}

let cursor: { start: number; size: number; next: number } | undefined;

function portCursor(): { start: number; size: number; next: number } | undefined {
  if (cursor) return cursor;
  const size = Math.floor((ephemeralRangeStart() - LOWEST_PORT) / SLICES);
  if (size < 64) return undefined;
  const slice = Number(process.env.JEST_WORKER_ID ?? 0) % SLICES;
  const start = LOWEST_PORT + slice * size;
  // A random first port keeps two runs side by side (or a rerun straight after) apart too.
  cursor = { start, size, next: Math.floor(Math.random() * size) };
  return cursor;
}

function bindable(port: number): Promise<Server | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(undefined));
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

/** Ports nothing listens on right now, for processes that must be told theirs up front. */
export async function freePorts(count: number): Promise<number[]> {
  const slice = portCursor();
  const held: Server[] = [];
  try {
    if (!slice) {
      for (let i = 0; i < count; i++) held.push((await bindable(0)) as Server);
    } else {
      for (let tried = 0; held.length < count; tried++) {
        if (tried >= slice.size)
          throw new Error(
            `freePorts: no ${count} free ports in ${slice.start}–${slice.start + slice.size - 1}`,
          );
        const port = slice.start + (slice.next++ % slice.size);
        const server = await bindable(port);
        if (server) held.push(server);
      }
    }
    return held.map((s) => (s.address() as AddressInfo).port);
  } finally {
    await Promise.all(held.map((s) => new Promise((resolve) => s.close(resolve))));
  }
}

export interface RunningStack {
  /** The supervisor's process id; each platform process is its child. */
  pid: number;
  restUrl: string;
  gatewayUrl: string;
  ports: {
    rest: number;
    gateway: number;
    tickets: number;
    cv: number;
    billing: number;
    identity: number;
    events: number;
  };
  /** The stack's internal secret, for callers that reach a subgraph directly (benchmarks, tests). */
  internalSecret: string;
  output(): string;
  /** Sends the signal to the supervisor and resolves with its exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * `npm start`'s supervisor (compiled, from dist/) on free ports and the given environment; `root`
 * is another built checkout when a benchmark runs an earlier build beside this one.
 */
export async function startStack(
  env: NodeJS.ProcessEnv,
  timeoutMs = 60_000,
  root = projectRoot(),
): Promise<RunningStack> {
  const [rest, gateway, tickets, cv, billing, identity, events] = (await freePorts(7)) as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const internalSecret = env.INTERNAL_SECRET ?? randomBytes(32).toString('base64url');
  const child = spawn(process.execPath, [join(root, 'dist', 'tools', 'start.js')], {
    cwd: root,
    env: {
      ...process.env,
      LOG_LEVEL: 'info',
      REST_PORT: String(rest),
      GATEWAY_PORT: String(gateway),
      TICKETS_PORT: String(tickets),
      CV_PORT: String(cv),
      BILLING_PORT: String(billing),
      IDENTITY_PORT: String(identity),
      EVENTS_PORT: String(events),
      // Free public ports + 5000 may be taken or past 65535; each child takes a free one instead.
      METRICS_PORT: '0',
      ...env,
      INTERNAL_SECRET: internalSecret,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));

  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`stack not running within ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    const poll = setInterval(() => {
      if (output.includes('The platform is running')) {
        clearTimeout(timer);
        clearInterval(poll);
        resolve();
      }
    }, 50);
    void exited.then((code) => {
      clearTimeout(timer);
      clearInterval(poll);
      reject(new Error(`stack exited with ${code} while starting:\n${output}`));
    });
  });

  return {
    pid: child.pid ?? 0,
    restUrl: `http://127.0.0.1:${rest}/api/v1`,
    gatewayUrl: `http://127.0.0.1:${gateway}/graphql`,
    ports: { rest, gateway, tickets, cv, billing, identity, events },
    internalSecret,
    output: () => output,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}
