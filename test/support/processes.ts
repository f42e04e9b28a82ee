import { spawn } from 'node:child_process';
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
