import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../common/paths';

const CLOCK_TICKS = (() => {
  const answer = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
  const ticks = Number(answer.stdout?.trim());
  return Number.isFinite(ticks) && ticks > 0 ? ticks : 100;
})();

/** CPU seconds (user + system) a process has used so far, from /proc/<pid>/stat. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // pid (comm) state …: comm may hold spaces, so fields are counted from the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of the line, 12 and 13 after comm.
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/**
 * CPU seconds the whole machine has been busy so far (every core, every process: the load
 * generator, the subgraphs, Postgres and Redis as much as the gateway), from /proc/stat.
 */
export function machineBusySeconds(): number {
  const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0] ?? '';
  // cpu user nice system idle iowait irq softirq steal …: idle and iowait are the not-busy ones.
  const [, ...ticks] = line.trim().split(/\s+/).map(Number);
  const total = ticks.slice(0, 8).reduce((sum, t) => sum + t, 0);
  return (total - (ticks[3] ?? 0) - (ticks[4] ?? 0)) / CLOCK_TICKS;
}

/** The TCP ports a process listens on, from its socket descriptors and /proc/<pid>/net/tcp{,6}. */
export function listeningPorts(pid: number): number[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (match?.[1] !== undefined) inodes.add(match[1]);
    } catch {
      // closed while listing
    }
  }
  const ports = new Set<number>();
  for (const table of ['tcp', 'tcp6']) {
    const lines = readFileSync(`/proc/${pid}/net/${table}`, 'utf8').trim().split('\n').slice(1);
    for (const line of lines) {
      const cols = line.trim().split(/\s+/);
      // local_address is col 1 (addr:port in hex), st col 3 (0A = LISTEN), inode col 9.
      if (cols[3] === '0A' && inodes.has(cols[9] ?? '')) {
        ports.add(parseInt(cols[1]?.split(':')[1] ?? '0', 16));
      }
    }
  }
  return [...ports];
}

/** Sum of the GraphQL requests a set of processes' `/metrics` say they have served. */
export async function graphqlRequestsServed(metricsUrls: string[]): Promise<number> {
  const counts = await Promise.all(
    metricsUrls.map(async (url) => {
      const text = await (await fetch(url)).text();
      let total = 0;
      for (const line of text.split('\n')) {
        if (
          line.startsWith('http_server_request_duration_seconds_count{') &&
          line.includes('http_route="/graphql"')
        )
          total += Number(line.slice(line.lastIndexOf(' ') + 1));
      }
      return total;
    }),
  );
  return counts.reduce((a, b) => a + b, 0);
}

/** A peer gateway's process, started from dist/ with the stack's environment. */
export interface PeerProcess {
  pid: number;
  url: string;
  stop(): Promise<void>;
}

/** Starts `dist/bench/peers/<script>` on a free port and resolves once it listens. */
export async function startPeer(script: string, env: NodeJS.ProcessEnv): Promise<PeerProcess> {
  const child = spawn(process.execPath, [join(projectRoot(), 'dist', 'bench', 'peers', script), '0'], {
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${script} did not listen within 60 s`)), 60_000);
    child.stdout.once('data', (chunk: Buffer) => {
      clearTimeout(timer);
      resolve(Number(chunk.toString().trim()));
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited with ${code} while starting`));
    });
  });
  return {
    pid: child.pid ?? 0,
    url: `http://127.0.0.1:${port}/graphql`,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Every process of the machine at one moment: its group (as `groupOf` names it) and CPU seconds so far. */
export type ProcessReading = Map<number, { group: string; seconds: number }>;

export function readProcesses(groupOf: (pid: number, command: string[]) => string): ProcessReading {
  const reading: ProcessReading = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    try {
      const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
      reading.set(pid, { group: groupOf(pid, command), seconds: cpuSeconds(pid) });
    } catch {
      // ended while listing
    }
  }
  return reading;
}

/**
 * CPU seconds each group used between two readings. A process that ended meanwhile is left out
 * (its seconds since the first reading went with it), so a group reads low rather than negative
 * when one of Postgres's backends closes; one that started counts from zero.
 */
export function cpuSecondsByGroup(before: ProcessReading, after: ProcessReading): Map<string, number> {
  const groups = new Map<string, number>();
  for (const [pid, { group, seconds }] of after) {
    groups.set(group, (groups.get(group) ?? 0) + seconds - (before.get(pid)?.seconds ?? 0));
  }
  return groups;
}
