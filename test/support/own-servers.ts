import { spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
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

/** A redis-server (or Sentinel) child, resolved once it prints `readyText`; fails with its output. */
async function spawnRedis(
  args: string[],
  readyText: string,
): Promise<{ child: ChildProcess; exited: Promise<void> }> {
  const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`redis-server ${args.join(' ')} not ready:\n${output}`));
    }, 10_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes(readyText)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited ${code}:\n${output}`));
    });
  });
  return { child, exited };
}

const alive = (child: ChildProcess | undefined) =>
  child !== undefined && child.exitCode === null && child.signalCode === null;

/** Options of a redis-server on 127.0.0.1 that writes no snapshot and no append-only file. */
const DISKLESS = ['--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];

/** A private redis-server that keeps nothing on disk: a restart comes back empty, as a lost one does. */
export async function startOwnRedis(): Promise<OwnServer> {
  const [port] = (await freePorts(1)) as [number];
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  const server: OwnServer = {
    port,
    url: `redis://127.0.0.1:${port}`,
    async start() {
      ({ child, exited } = await spawnRedis(
        ['--port', String(port), ...DISKLESS],
        'Ready to accept connections',
      ));
    },
    async stop() {
      if (alive(child)) child!.kill('SIGTERM');
      await exited;
      child = undefined;
    },
    destroy: () => server.stop(),
  };
  await server.start();
  return server;
}

/** A master, its replica and three Sentinels of the test's own (OPERATIONS.md, Redis through Sentinel). */
export interface OwnSentinelGroup {
  masterName: string;
  sentinels: { host: string; port: number }[];
  /** The variables that point a platform process at the group. */
  env: { REDIS_SENTINELS: string; REDIS_SENTINEL_MASTER: string };
  masterPort: number;
  replicaPort: number;
  /** SIGKILL to the first master: it dies where it stands, as a crashed machine does. */
  killMaster(): Promise<void>;
  /** The port the Sentinels now name master, as `SENTINEL get-master-addr-by-name` answers. */
  currentMasterPort(): Promise<number>;
  /** Kills every server of the group and removes their files; safe to call after a failed start. */
  destroy(): Promise<void>;
}

const MASTER_NAME = 'nida-test';

/**
 * Asks a Sentinel about the group until `check` holds: Sentinels find the replica and each other
 * through the master's INFO and their hello messages, every few seconds after they start.
 */
async function untilSentinelSees(
  port: number,
  check: (master: Record<string, string>) => boolean,
  what: string,
): Promise<void> {
  const sentinel = new Redis({ host: '127.0.0.1', port, lazyConnect: true, maxRetriesPerRequest: 1 });
  sentinel.on('error', () => undefined);
  try {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const reply = (await sentinel.call('SENTINEL', 'MASTER', MASTER_NAME).catch(() => [])) as string[];
      const master: Record<string, string> = {};
      for (let i = 0; i + 1 < reply.length; i += 2) master[reply[i]!] = reply[i + 1]!;
      if (check(master)) return;
      if (Date.now() > deadline)
        throw new Error(`Sentinel ${port}: ${what} not within 30 s: ${JSON.stringify(master)}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  } finally {
    sentinel.disconnect();
  }
}

/**
 * A Sentinel group on free ports of 127.0.0.1: a diskless master, its replica, and three Sentinels
 * with a quorum of two that call the master down after a second without answers. Resolves once
 * every Sentinel knows the replica and the other two, so a failover can happen at once.
 */
export async function startOwnSentinelGroup(): Promise<OwnSentinelGroup> {
  const [masterPort, replicaPort, ...sentinelPorts] = (await freePorts(5)) as [number, number, ...number[]];
  const dir = mkdtempSync(join(tmpdir(), 'nida-own-sentinels-'));
  const children: { child: ChildProcess; exited: Promise<void> }[] = [];
  const sentinels = sentinelPorts.map((port) => ({ host: '127.0.0.1', port }));
  const group: OwnSentinelGroup = {
    masterName: MASTER_NAME,
    sentinels,
    env: {
      REDIS_SENTINELS: sentinels.map(({ host, port }) => `${host}:${port}`).join(','),
      REDIS_SENTINEL_MASTER: MASTER_NAME,
    },
    masterPort,
    replicaPort,
    async killMaster() {
      const master = children[0]!;
      if (alive(master.child)) master.child.kill('SIGKILL');
      await master.exited;
    },
    async currentMasterPort() {
      const sentinel = new Redis({ ...sentinels[0]!, lazyConnect: true, maxRetriesPerRequest: 1 });
      sentinel.on('error', () => undefined);
      try {
        const [, port] = (await sentinel.call(
          'SENTINEL',
          'GET-MASTER-ADDR-BY-NAME',
          MASTER_NAME,
        )) as string[];
        return Number(port);
      } finally {
        sentinel.disconnect();
      }
    },
    async destroy() {
      for (const { child } of children) if (alive(child)) child.kill('SIGKILL');
      await Promise.all(children.map(({ exited }) => exited));
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    // Its own directory: a replica writes the master's snapshot to disk on a full sync.
    const files = ['--dir', dir];
    children.push(
      await spawnRedis(['--port', String(masterPort), ...DISKLESS, ...files], 'Ready to accept connections'),
    );
    children.push(
      await spawnRedis(
        [
          '--port',
          String(replicaPort),
          ...DISKLESS,
          ...files,
          '--replicaof',
          '127.0.0.1',
          String(masterPort),
        ],
        'MASTER <-> REPLICA sync: Finished with success',
      ),
    );
    for (const port of sentinelPorts) {
      // A Sentinel rewrites its file as it learns the group: each has one of its own.
      const file = join(dir, `sentinel-${port}.conf`);
      writeFileSync(
        file,
        [
          `port ${port}`,
          'bind 127.0.0.1',
          `dir ${dir}`,
          `sentinel monitor ${MASTER_NAME} 127.0.0.1 ${masterPort} 2`,
          `sentinel down-after-milliseconds ${MASTER_NAME} 1000`,
          `sentinel failover-timeout ${MASTER_NAME} 5000`,
          `sentinel parallel-syncs ${MASTER_NAME} 1`,
          '',
        ].join('\n'),
      );
      children.push(await spawnRedis([file, '--sentinel'], '+monitor master'));
    }
    for (const port of sentinelPorts) {
      await untilSentinelSees(
        port,
        (master) => master['num-slaves'] === '1' && master['num-other-sentinels'] === '2',
        'the replica and both other Sentinels',
      );
    }
  } catch (error) {
    await group.destroy();
    throw error;
  }
  return group;
}
