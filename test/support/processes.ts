import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { join } from 'node:path';
import { projectRoot } from '../../common/paths';

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

/** The compiled entry point of a process; `npm test` builds before jest runs. */
export function distScript(relative: string): string {
  const path = join(projectRoot(), 'dist', relative);
  if (!existsSync(path)) throw new Error(`${path} is missing: run \`npm run build\` before these tests`);
  return path;
}

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
  durationMs: number;
}

/** Runs a command to its end (bounded by a timeout), collecting its output. */
export function run(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  timeoutMs = 60_000,
): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn(command, args, { cwd: projectRoot(), env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(`${command} ${args.join(' ')} did not finish within ${timeoutMs} ms\n${stdout}\n${stderr}`),
      );
    }, timeoutMs);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, durationMs: Date.now() - started });
    });
  });
}

export interface RunningStack {
  restUrl: string;
  gatewayUrl: string;
  ports: { rest: number; gateway: number; tickets: number; cv: number; billing: number };
  output(): string;
  /** Sends the signal to the supervisor and resolves with its exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** `npm start`'s supervisor, for real, on free ports and the given database. */
export async function startStack(env: NodeJS.ProcessEnv, timeoutMs = 60_000): Promise<RunningStack> {
  const [rest, gateway, tickets, cv, billing] = (await freePorts(5)) as [
    number,
    number,
    number,
    number,
    number,
  ];
  const child = spawn(process.execPath, [distScript('tools/start.js')], {
    cwd: projectRoot(),
    env: {
      ...process.env,
      LOG_LEVEL: 'info',
      REST_PORT: String(rest),
      GATEWAY_PORT: String(gateway),
      TICKETS_PORT: String(tickets),
      CV_PORT: String(cv),
      BILLING_PORT: String(billing),
      ...env,
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
    restUrl: `http://127.0.0.1:${rest}/api/v1`,
    gatewayUrl: `http://127.0.0.1:${gateway}/graphql`,
    ports: { rest, gateway, tickets, cv, billing },
    output: () => output,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}
