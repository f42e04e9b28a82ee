import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { join } from 'node:path';
import { projectRoot } from '../common/paths';

/** Ports nothing listens on right now, for processes that must be told theirs up front. */
export async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<Server>((resolve, reject) => {
          const server = createServer();
          server.once('error', reject);
          server.listen(0, '127.0.0.1', () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((s) => (s.address() as AddressInfo).port);
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  return ports;
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
