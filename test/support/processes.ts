import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../common/paths';
import { freePorts, startStack as startCompiledStack, type RunningStack } from '../../tools/stack';

export { freePorts, type RunningStack };

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

/** `npm start`'s supervisor from `dist/`, as the README runs it. */
export function startStack(env: NodeJS.ProcessEnv, timeoutMs?: number): Promise<RunningStack> {
  distScript('tools/start.js');
  return startCompiledStack(env, timeoutMs);
}

export interface PlatformProcess {
  child: ChildProcess;
  /** SIGTERM, and resolves once the process has exited. */
  stop(): Promise<void>;
  /** SIGKILL: the process dies where it stands, as in a crash. */
  kill(): Promise<void>;
  /** What it has printed so far: its log lines (stdout) and stderr. */
  output(): string;
}

/**
 * One compiled platform process (e.g. `gateway/main.js`) started on its own, resolved once its
 * `/readyz` answers 200; a process that exits first fails with what it printed.
 */
export async function startProcess(
  script: string,
  env: NodeJS.ProcessEnv,
  readyUrl: string,
  // A start is 1–2 s of CPU; on two cores shared with a test's load and another test file's
  // fourteen replicas, a slow machine has taken over 20 s of wall time to get it.
  timeoutMs = 60_000,
): Promise<PlatformProcess> {
  const child = spawn(process.execPath, [distScript(script)], {
    cwd: projectRoot(),
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const end = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${script} exited with ${child.exitCode}: ${stderr}`);
    if ((await fetch(readyUrl).catch(() => null))?.ok === true) break;
    if (Date.now() > deadline) {
      await end('SIGKILL');
      throw new Error(`${script} not ready within ${timeoutMs} ms: ${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    child,
    stop: () => end('SIGTERM'),
    kill: () => end('SIGKILL'),
    output: () => `${stdout}${stderr}`,
  };
}

/** A kind of platform process: its compiled entry point and the variable that names its port. */
export interface ProcessKind {
  name: string;
  script: string;
  portVariable: string;
}

/** Every process of the platform, as docker-compose or Kubernetes runs them one per container. */
export const PROCESS_KINDS = {
  tickets: { name: 'tickets', script: 'subgraphs/tickets/main.js', portVariable: 'TICKETS_PORT' },
  cv: { name: 'cv', script: 'subgraphs/cv/main.js', portVariable: 'CV_PORT' },
  billing: { name: 'billing', script: 'subgraphs/billing/main.js', portVariable: 'BILLING_PORT' },
  identity: { name: 'identity', script: 'subgraphs/identity/main.js', portVariable: 'IDENTITY_PORT' },
  events: { name: 'events', script: 'subgraphs/tickets/events/main.js', portVariable: 'EVENTS_PORT' },
  gateway: { name: 'gateway', script: 'gateway/main.js', portVariable: 'GATEWAY_PORT' },
  adapter: { name: 'adapter', script: 'rest-adapter/main.js', portVariable: 'REST_PORT' },
} as const satisfies Record<string, ProcessKind>;
