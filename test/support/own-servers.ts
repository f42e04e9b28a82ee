import { spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePorts, run } from './processes';

const POSTGRES_BIN = process.env.POSTGRES_BIN ?? '/usr/lib/postgresql/15/bin';

/** A server of the test's own, on its own port, that the test may stop and start at will. */
export interface OwnServer {
  port: number;
  url: string;
  start(): Promise<void>;
  /** A clean stop: clients see their connections closed. */
  stop(): Promise<void>;
  /** Stops for good and removes what the server wrote. */
  destroy(): Promise<void>;
}

/**
 * Postgres refuses to run as root, and CI machines run tests as root: there the cluster belongs
 * to the `postgres` user, as the distribution's own cluster does.
 */
function asPostgres(command: string, args: string[]): [string, string[]] {
  return process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
}

async function must(command: string, args: string[], timeoutMs = 60_000): Promise<void> {
  const [cmd, argv] = asPostgres(command, args);
  const result = await run(cmd, argv, process.env, timeoutMs);
  if (result.code !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} exited ${result.code}:\n${result.stdout}\n${result.stderr}`,
    );
  }
}

/**
 * A private PostgreSQL 15 cluster in a temporary directory: trust authentication, 127.0.0.1 and a
 * free port, its socket beside its data so it never meets the machine's own cluster.
 */
export async function startOwnPostgres(): Promise<OwnServer> {
  const [port] = (await freePorts(1)) as [number];
  const dir = mkdtempSync(join(tmpdir(), 'nida-own-postgres-'));
  if (process.getuid?.() === 0) {
    const owner = await run('id', ['-u', 'postgres'], process.env);
    const group = await run('id', ['-g', 'postgres'], process.env);
    chownSync(dir, Number(owner.stdout.trim()), Number(group.stdout.trim()));
  }
  const data = join(dir, 'data');
  await must(join(POSTGRES_BIN, 'initdb'), [
    '-D',
    data,
    '-U',
    'postgres',
    '-A',
    'trust',
    '-E',
    'UTF8',
    '--no-sync',
  ]);
  // fsync only guards against the machine itself crashing; a stopped or killed server loses nothing.
  const options = `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=${dir} -c fsync=off`;
  const pgCtl = join(POSTGRES_BIN, 'pg_ctl');
  const server: OwnServer = {
    port,
    url: `postgres://postgres@127.0.0.1:${port}`,
    start: () => must(pgCtl, ['start', '-w', '-t', '30', '-D', data, '-l', join(dir, 'log'), '-o', options]),
    stop: () => must(pgCtl, ['stop', '-w', '-t', '30', '-m', 'fast', '-D', data]),
    destroy: async () => {
      if (existsSync(join(data, 'postmaster.pid'))) {
        await must(pgCtl, ['stop', '-w', '-t', '30', '-m', 'immediate', '-D', data]).catch(() => undefined);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    await server.start();
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return server;
}

/** A private redis-server that keeps nothing on disk: a restart comes back empty, as a lost one does. */
export async function startOwnRedis(): Promise<OwnServer> {
  const [port] = (await freePorts(1)) as [number];
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  const server: OwnServer = {
    port,
    url: `redis://127.0.0.1:${port}`,
    async start() {
      const started = spawn(
        'redis-server',
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      child = started;
      exited = new Promise((resolve) => started.once('exit', () => resolve()));
      let output = '';
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`redis-server not ready:\n${output}`)), 10_000);
        const onData = (chunk: Buffer) => {
          output += chunk.toString();
          if (output.includes('Ready to accept connections')) {
            clearTimeout(timer);
            resolve();
          }
        };
        started.stdout?.on('data', onData);
        started.stderr?.on('data', onData);
        started.once('exit', (code) => {
          clearTimeout(timer);
          reject(new Error(`redis-server exited ${code}:\n${output}`));
        });
      });
    },
    async stop() {
      if (child !== undefined && child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
      child = undefined;
    },
    destroy: () => server.stop(),
  };
  await server.start();
  return server;
}
