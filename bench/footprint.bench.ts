import 'reflect-metadata';
import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { startStack, type RunningStack } from '../tools/stack';
import { admin, benchEnv, childRunning } from './bench-stack';
import { flag, load, type HttpCall, type LoadResult } from './load';

/**
 * The memory each process of the platform holds, idle and under load: what the Kubernetes
 * manifests' requests and limits are sized from (deploy/kubernetes/README.md). Starts its own
 * stack on free ports and a `nida_bench` database; samples every process's resident set (VmRSS,
 * what `ps -o rss` prints) and, for cv, that of the Chromium it starts, every 250 ms, through
 *   1. idle, after a settle;
 *   2. REST load: GET /api/v1/plans, GET and POST /api/v1/tickets (demo key) round-robin;
 *   3. PDF load: GET /api/v1/cvs/{uuid}/pdf of a filled CV, spread over enough accounts that the
 *      document's 10 exports a minute per account does not turn the load into 429s.
 * Each phase is bounded by --seconds; only 127.0.0.1 is contacted.
 *
 *   npm run build && node dist/bench/footprint.bench.js [--seconds 20] [--concurrency 16] [--renders 4]
 */

const PROCESSES = {
  'rest-adapter': 'rest-adapter/main.js',
  gateway: 'gateway/main.js',
  tickets: 'subgraphs/tickets/main.js',
  'tickets-events': 'subgraphs/tickets/events/main.js',
  cv: 'subgraphs/cv/main.js',
  billing: 'subgraphs/billing/main.js',
  identity: 'subgraphs/identity/main.js',
} as const;
type ProcessName = keyof typeof PROCESSES;

const SAMPLE_EVERY_MS = 250;
const SETTLE_MS = 5_000;
const EXPORTS_PER_ACCOUNT = 8;

const MB = 1024 * 1024;
const round = (bytes: number) => Math.round((bytes / MB) * 10) / 10;

/** A process and every process below it (cv's Chromium and its helpers), from /proc. */
function tree(root: number): number[] {
  const parents = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(ppid, [...(parents.get(ppid) ?? []), Number(entry)]);
    } catch {
      // gone since the listing
    }
  }
  const found = [root];
  for (let i = 0; i < found.length; i++) found.push(...(parents.get(found[i]!) ?? []));
  return found;
}

/** kB fields of /proc/<pid>/status or smaps_rollup, 0 for a process that has gone. */
function kilobytes(path: string, field: string): number {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(path, 'utf8'));
    return Number(match?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

interface Sample {
  /** The Node process alone. */
  nodeRss: number;
  /** Node and everything it started, each process's RSS summed (shared pages counted again). */
  treeRss: number;
  /** The same tree's proportional set: shared pages split, closer to what a cgroup is charged. */
  treePss: number;
}

function sample(pid: number): Sample {
  const pids = tree(pid);
  return {
    nodeRss: kilobytes(`/proc/${pid}/status`, 'VmRSS'),
    treeRss: pids.reduce((sum, p) => sum + kilobytes(`/proc/${p}/status`, 'VmRSS'), 0),
    treePss: pids.reduce((sum, p) => sum + kilobytes(`/proc/${p}/smaps_rollup`, 'Pss'), 0),
  };
}

/** The largest sample of each process while `work` runs. */
async function peakDuring(
  pids: Record<ProcessName, number>,
  work: () => Promise<LoadResult>,
): Promise<{ load: LoadResult; peak: Record<ProcessName, Sample> }> {
  const peak = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, sample(pid)])) as Record<
    ProcessName,
    Sample
  >;
  const sampler = setInterval(() => {
    for (const [name, pid] of Object.entries(pids) as [ProcessName, number][]) {
      const now = sample(pid);
      const was = peak[name];
      peak[name] = {
        nodeRss: Math.max(was.nodeRss, now.nodeRss),
        treeRss: Math.max(was.treeRss, now.treeRss),
        treePss: Math.max(was.treePss, now.treePss),
      };
    }
  }, SAMPLE_EVERY_MS);
  try {
    return { load: await work(), peak };
  } finally {
    clearInterval(sampler);
  }
}

/** The CV accounts' keys and CV ids, enough of them for `exports` PDFs within the per-account rate. */
async function cvsToExport(
  stack: RunningStack,
  env: NodeJS.ProcessEnv,
  exports: number,
): Promise<{ key: string; uuid: string }[]> {
  const cvs: { key: string; uuid: string }[] = [];
  const stamp = Date.now();
  let templateId: number | undefined;
  for (let i = 0; i < Math.ceil(exports / EXPORTS_PER_ACCOUNT); i++) {
    const email = `footprint-${stamp}-${i}@example.com`;
    const account = admin(env, 'account', 'create', '--name', 'Footprint', '--email', email, '--plan', 'pro');
    const { key } = admin(env, 'account-key', 'create', '--account', String(account.id)) as { key: string };
    const headers = { 'x-api-key': key, 'content-type': 'application/json' };
    if (templateId === undefined) {
      const templates = (await (await fetch(`${stack.restUrl}/templates`, { headers })).json()) as {
        data: { id: number; slug: string }[];
      };
      templateId = templates.data.find((t) => t.slug === 'classic')?.id;
      if (templateId === undefined) throw new Error('no classic template in GET /templates');
    }
    const created = await fetch(`${stack.restUrl}/cvs`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ title: 'Footprint CV', locale: 'ar', template_id: templateId }),
    });
    if (created.status !== 201) throw new Error(`POST /cvs: ${created.status} ${await created.text()}`);
    cvs.push({ key, uuid: ((await created.json()) as { data: { id: string } }).data.id });
  }
  return cvs;
}

async function main(): Promise<void> {
  const seconds = flag('seconds', 20);
  const concurrency = flag('concurrency', 16);
  const renders = flag('renders', 4);
  const env = benchEnv({ TICKETS_RATE_LIMIT: '100000000', CV_RATE_LIMIT: '100000000' });
  const stack = await startStack(env);
  try {
    const pids = Object.fromEntries(
      Object.entries(PROCESSES).map(([name, script]) => [name, childRunning(stack.pid, script)]),
    ) as Record<ProcessName, number>;
    const ticketKey = /Demo key: (\S+)/.exec(stack.output())?.[1];
    if (ticketKey === undefined) throw new Error('the stack printed no demo ticket key');

    await sleep(SETTLE_MS);
    const idle = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, sample(pid)])) as Record<
      ProcessName,
      Sample
    >;

    const bearer = { authorization: `Bearer ${ticketKey}` };
    const restCalls: (() => HttpCall)[] = [
      () => ({ method: 'GET', url: `${stack.restUrl}/plans` }),
      () => ({ method: 'GET', url: `${stack.restUrl}/tickets`, headers: bearer }),
      () => ({ method: 'POST', url: `${stack.restUrl}/tickets`, headers: bearer, body: '{}' }),
    ];
    let turn = 0;
    const rest = await peakDuring(pids, () =>
      load('REST plans + tickets', () => restCalls[turn++ % restCalls.length]!(), {
        seconds,
        concurrency,
        ok: (status) => status === 200 || status === 201,
      }),
    );

    // Chromium's warm rate on this machine is about 15 PDFs a second at most.
    const cvs = await cvsToExport(stack, env, seconds * 15);
    let next = 0;
    const pdf = await peakDuring(pids, () =>
      load(
        'REST PDF export',
        () => {
          const cv = cvs[next++ % cvs.length]!;
          return {
            method: 'GET',
            url: `${stack.restUrl}/cvs/${cv.uuid}/pdf`,
            headers: { 'x-api-key': cv.key },
          };
        },
        { seconds, concurrency: renders, ok: (status) => status === 200 },
      ),
    );

    // The Node process's own high-water mark since it started: the peak the 250 ms samples may miss.
    const highWater = (name: ProcessName) => round(kilobytes(`/proc/${pids[name]}/status`, 'VmHWM'));
    const table = (Object.keys(PROCESSES) as ProcessName[]).map((name) => ({
      process: name,
      idleRssMb: round(idle[name].treeRss),
      restLoadRssMb: round(rest.peak[name].treeRss),
      pdfLoadRssMb: round(pdf.peak[name].treeRss),
      peakPssMb: round(Math.max(rest.peak[name].treePss, pdf.peak[name].treePss)),
      nodeOnlyPeakRssMb: round(Math.max(rest.peak[name].nodeRss, pdf.peak[name].nodeRss)),
      nodeHighWaterMb: highWater(name),
    }));
    process.stdout.write(`${JSON.stringify({ seconds, loads: [rest.load, pdf.load], table }, null, 2)}\n`);
  } finally {
    await stack.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench: ${String(error)}\n`);
  process.exit(1);
});
