import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../common/config';
import { projectRoot } from '../common/paths';

/** One GraphQL operation on the gateway, as a signed-in panel sends it; its data, or a throw naming it. */
export async function gatewayData<T>(
  gatewayUrl: string,
  query: string,
  variables: Record<string, unknown> = {},
  token = '',
): Promise<T> {
  const response = await fetch(gatewayUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await response.json()) as { data?: T; errors?: { message: string }[] };
  if (body.errors !== undefined) throw new Error(`${query.slice(0, 60)}: ${body.errors[0]?.message}`);
  return body.data!;
}

/** A signed-in owner's venue with one branch, made over the graph as the panel makes them. */
export interface BenchVenue {
  /** The owner's session token. */
  token: string;
  venueId: string;
  branchId: string;
  /** The gateway's data for an operation sent with the owner's session. */
  graph: <T>(query: string, variables?: Record<string, unknown>) => Promise<T>;
}

export async function benchVenue(
  gatewayUrl: string,
  names: { who: string; venue: string; branch: string; timezone?: string },
): Promise<BenchVenue> {
  const { signUp } = await gatewayData<{ signUp: { token: string } }>(
    gatewayUrl,
    'mutation ($i: SignUpInput!) { signUp(input: $i) { token } }',
    {
      i: {
        email: `${names.who}-${Date.now()}@example.test`,
        password: 'a long bench passphrase',
        name: 'Owner',
      },
    },
  );
  const graph = <T>(query: string, variables: Record<string, unknown> = {}) =>
    gatewayData<T>(gatewayUrl, query, variables, signUp.token);
  const { createVenue } = await graph<{ createVenue: { id: string } }>(
    'mutation ($i: CreateVenueInput!) { createVenue(input: $i) { id } }',
    { i: { name: names.venue, ...(names.timezone === undefined ? {} : { timezone: names.timezone }) } },
  );
  const { createBranch } = await graph<{ createBranch: { id: string } }>(
    'mutation ($i: CreateBranchInput!) { createBranch(input: $i) { id } }',
    { i: { venueId: createVenue.id, name: names.branch } },
  );
  return { token: signUp.token, venueId: createVenue.id, branchId: createBranch.id, graph };
}

/** The environment of a benchmark's stack: its own `nida_bench` database and Redis prefix. */
export function benchEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const database = new URL(loadConfig().databaseUrl);
  database.pathname = '/nida_bench';
  return {
    ...process.env,
    DATABASE_URL: database.toString(),
    REDIS_PREFIX: 'bench:',
    LOG_LEVEL: 'warn',
    // Every request of a benchmark comes from 127.0.0.1: the per-address budget would turn the load
    // into 429s. It is still counted, so its cost stays in the figures.
    PUBLIC_RATE_LIMIT: '100000000',
    // Thousands of subscribers from that one address: the per-address socket cap would close them.
    LIVE_MAX_SOCKETS_PER_ADDRESS: '1000000',
    ...extra,
  };
}

/**
 * `env` with bench/cpu-profiler.ts preloaded into every process of the stack when `profileDir` is
 * given: each profiles itself from SIGUSR2 until it exits, into that folder.
 */
export function profiledEnv(env: NodeJS.ProcessEnv, profileDir: string | undefined): NodeJS.ProcessEnv {
  if (profileDir === undefined) return env;
  return {
    ...env,
    NODE_OPTIONS: `${env.NODE_OPTIONS ?? ''} --require ${join(projectRoot(), 'dist', 'bench', 'cpu-profiler.js')}`,
    BENCH_CPU_PROFILE_DIR: profileDir,
  };
}

/** Runs the compiled admin CLI and returns its JSON, as an operator would. */
export function admin(env: NodeJS.ProcessEnv, ...args: string[]): Record<string, unknown> {
  const result = spawnSync(process.execPath, [join(projectRoot(), 'dist', 'tools', 'admin.js'), ...args], {
    env,
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`admin ${args.join(' ')}: ${result.stderr}`);
  return JSON.parse(result.stdout) as Record<string, unknown>;
}

/** The process id of the supervisor's child running `script` (e.g. gateway/main.js), from /proc. */
export function childRunning(supervisorPid: number, script: string): number {
  const children = readFileSync(`/proc/${supervisorPid}/task/${supervisorPid}/children`, 'utf8')
    .trim()
    .split(/\s+/)
    .map(Number);
  const pid = children.find((child) => readFileSync(`/proc/${child}/cmdline`, 'utf8').includes(script));
  if (pid === undefined) throw new Error(`no child of ${supervisorPid} runs ${script}`);
  return pid;
}

/** Resident memory of a process in bytes, from /proc. */
export function residentBytes(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match?.[1] ?? 0) * 1024;
}
