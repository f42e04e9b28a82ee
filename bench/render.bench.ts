import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../common/config';
import { processGroup } from '../common/proc';
import { renderCvHtml } from '../subgraphs/cv/render/document';
import {
  CvRenderer,
  launchChromium,
  PDF_OPTIONS,
  rendererOptionsFrom,
  type RendererOptions,
} from '../subgraphs/cv/render/renderer';
import { fullCvPayload } from '../subgraphs/cv/render/sample-cv';
import { flag, percentile } from './load';

/**
 * Warm PDF export of an Arabic CV (fullCvPayload(--items) on the classic template, rendered by
 * renderCvHtml; the page count is printed) through CvRenderer at concurrency 1, 2 and 4, the pool
 * as large as the concurrency; against a baseline that launches a fresh Chromium per request with
 * the same flags and PDF options; then the memory of the Node process and every Chromium process
 * every tenth of --exports exports at the best concurrency, on one Chromium after 100 exports to
 * warm up. Nothing but Chromium is started and nothing is contacted. The CPU time other processes
 * took meanwhile is printed, since two cores leave no room for other work.
 *
 *   npm run build && npm run bench:render -- [--jobs 300] [--baseline 20] [--exports 1000] [--items 2]
 *
 * Targets on the project's 2-core machine: p50 at most 120 ms, at least 15 PDFs a second, and no
 * memory growth (under 10% from the start to the end of the exports).
 */

const TARGET_P50_MS = 120;
const TARGET_PER_SECOND = 15;
const MEMORY_GROWTH_LIMIT = 0.1;
const MEMORY_WARM_UP = 100;
const CONCURRENCIES = [1, 2, 4];

interface Run {
  concurrency: number;
  jobs: number;
  seconds: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
}

interface Memory {
  exports: number;
  nodeRssMb: number;
  chromiumRssMb: number;
  chromiumPssMb: number;
  totalRssMb: number;
  chromiumProcesses: number;
}

const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;

function summary(concurrency: number, latencies: number[], seconds: number): Run {
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    concurrency,
    jobs: latencies.length,
    seconds: round(seconds),
    perSecond: round(latencies.length / seconds, 1),
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
  };
}

/** `jobs` exports through the renderer, `concurrency` at a time. */
async function timed(renderer: CvRenderer, html: string, jobs: number, concurrency: number): Promise<Run> {
  const latencies: number[] = [];
  let started = 0;
  const begin = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (started < jobs) {
        started += 1;
        const at = performance.now();
        await renderer.pdf(html);
        latencies.push(performance.now() - at);
      }
    }),
  );
  return summary(concurrency, latencies, (performance.now() - begin) / 1000);
}

/**
 * What the pool saves: each request launches Chromium, prints on a page set up as the pool's are,
 * and closes it. The latency runs from launch to PDF in hand; the rate counts the close as well.
 */
async function launchPerRequest(executablePath: string, html: string, iterations: number): Promise<Run> {
  const latencies: number[] = [];
  const begin = performance.now();
  for (let i = 0; i < iterations; i += 1) {
    const at = performance.now();
    const browser = await launchChromium(executablePath);
    try {
      const page = await browser.newPage();
      await page.setJavaScriptEnabled(false);
      await page.setRequestInterception(true);
      page.on('request', (request) => {
        void (request.url().startsWith('data:') ? request.continue() : request.abort('blockedbyclient'));
      });
      await page.setContent(html, { waitUntil: 'load' });
      await page.pdf(PDF_OPTIONS);
      latencies.push(performance.now() - at);
    } finally {
      await browser.close();
    }
  }
  return summary(1, latencies, (performance.now() - begin) / 1000);
}

/** What one /proc/<pid>/stat says: parent, process group, CPU ticks so far, command. */
interface ProcessSample {
  ppid: number;
  pgid: number;
  ticks: number;
  command: string;
}

function processes(): Map<number, ProcessSample> {
  const found = new Map<number, ProcessSample>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid pgrp … utime stime: comm may hold spaces, so count from the last ')'.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      found.set(Number(entry), {
        ppid: Number(fields[1]),
        pgid: Number(fields[2]),
        ticks: Number(fields[11]) + Number(fields[12]),
        command: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')),
      });
    } catch {
      // Exited meanwhile.
    }
  }
  return found;
}

/**
 * CPU time of this benchmark (Node and the Chromiums it starts, each the leader of a process group
 * whose parent is this process) and of everything else on the machine, sampled every 250 ms: the
 * figures are only worth reading when the rest of the machine was quiet.
 */
function watchCpu(): () => { ownSeconds: number; otherSeconds: number; busiestOthers: string[] } {
  // /proc counts CPU time in USER_HZ ticks, 100 a second on Linux.
  const ticksPerSecond = 100;
  const seen = new Map<number, number>([...processes()].map(([pid, p]) => [pid, p.ticks]));
  let own = 0;
  const others = new Map<string, number>();
  const sample = () => {
    const now = processes();
    for (const [pid, p] of now) {
      const spent = p.ticks - (seen.get(pid) ?? 0);
      seen.set(pid, p.ticks);
      if (spent <= 0) continue;
      if (pid === process.pid || now.get(p.pgid)?.ppid === process.pid) own += spent;
      else others.set(p.command, (others.get(p.command) ?? 0) + spent);
    }
  };
  const timer = setInterval(sample, 250);
  return () => {
    clearInterval(timer);
    sample();
    const otherTicks = [...others.values()].reduce((sum, ticks) => sum + ticks, 0);
    return {
      ownSeconds: round(own / ticksPerSecond, 1),
      otherSeconds: round(otherTicks / ticksPerSecond, 1),
      busiestOthers: [...others.entries()]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 5)
        .map(([command, ticks]) => `${command} ${round(ticks / ticksPerSecond, 1)} s`),
    };
  };
}

function kibibytes(file: string, field: string): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(file, 'utf8'));
  return match === null ? 0 : Number(match[1]);
}

/**
 * RSS from /proc/<pid>/status, summed over Node and Chromium's processes. RSS counts the pages
 * Chromium's processes share once per process; PSS (smaps_rollup) splits them, so it is given too.
 */
function memory(renderer: CvRenderer, exports: number): Memory {
  const leader = renderer.chromiumPid();
  const pids = leader === undefined ? [] : processGroup(leader);
  const sum = (file: (pid: number) => string, field: string) =>
    pids.reduce((total, pid) => {
      try {
        return total + kibibytes(file(pid), field);
      } catch {
        return total;
      }
    }, 0);
  const nodeRss = kibibytes('/proc/self/status', 'VmRSS');
  const chromiumRss = sum((pid) => `/proc/${pid}/status`, 'VmRSS');
  const chromiumPss = sum((pid) => `/proc/${pid}/smaps_rollup`, 'Pss');
  return {
    exports,
    nodeRssMb: round(nodeRss / 1024, 1),
    chromiumRssMb: round(chromiumRss / 1024, 1),
    chromiumPssMb: round(chromiumPss / 1024, 1),
    totalRssMb: round((nodeRss + chromiumRss) / 1024, 1),
    chromiumProcesses: pids.length,
  };
}

async function settled(renderer: CvRenderer): Promise<void> {
  while (renderer.stats().busy > 0) await new Promise((resolve) => setTimeout(resolve, 10));
  await new Promise((resolve) => setTimeout(resolve, 500));
}

function pageCount(pdf: Buffer): number {
  const dir = mkdtempSync(join(tmpdir(), 'render-bench-'));
  try {
    const file = join(dir, 'cv.pdf');
    writeFileSync(file, pdf);
    const info = spawnSync('pdfinfo', [file], { encoding: 'utf8' });
    if (info.status !== 0) throw new Error(`pdfinfo: ${info.stderr}`);
    return Number(/^Pages:\s+(\d+)/m.exec(info.stdout)?.[1]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const jobs = flag('jobs', 300);
  const baselineIterations = flag('baseline', 20);
  const exportCount = flag('exports', 1000);
  const items = flag('items', 2);
  const defaults = rendererOptionsFrom(loadConfig());
  const options = (concurrency: number, extra: Partial<RendererOptions> = {}): RendererOptions => ({
    ...defaults,
    poolSize: concurrency,
    queueLimit: concurrency,
    ...extra,
  });
  const loadBefore = loadavg().map((value) => round(value));
  const cpu = watchCpu();

  const html = renderCvHtml({
    document: fullCvPayload(items),
    template: { slug: 'classic', layout: 'single-column', name: 'Classic' },
    photo: null,
    watermark: false,
  });

  const runs: Run[] = [];
  let pages = 0;
  let pdfBytes = 0;
  for (const concurrency of CONCURRENCIES) {
    const renderer = new CvRenderer(options(concurrency));
    try {
      await renderer.start();
      const first = await renderer.pdf(html);
      if (pages === 0) {
        pages = pageCount(first);
        pdfBytes = first.length;
      }
      await timed(renderer, html, 10 * concurrency, concurrency);
      runs.push(await timed(renderer, html, jobs, concurrency));
    } finally {
      await renderer.stop();
    }
  }
  const baseline = await launchPerRequest(defaults.executablePath, html, baselineIterations);

  const best = runs.reduce((a, b) => (b.perSecond > a.perSecond ? b : a));
  // One Chromium throughout, so growth is not hidden by a restart.
  const renderer = new CvRenderer(
    options(best.concurrency, { maxJobsPerBrowser: MEMORY_WARM_UP + exportCount + 1 }),
  );
  const samples: Memory[] = [];
  try {
    await renderer.start();
    // Chromium's caches fill over the first few dozen exports; growth is measured after that.
    await timed(renderer, html, MEMORY_WARM_UP, best.concurrency);
    await settled(renderer);
    samples.push(memory(renderer, 0));
    for (let done = 0; done < exportCount;) {
      const step = Math.min(Math.ceil(exportCount / 10), exportCount - done);
      await timed(renderer, html, step, best.concurrency);
      done += step;
      await settled(renderer);
      samples.push(memory(renderer, done));
    }
    if (renderer.stats().restarts !== 0) throw new Error('Chromium restarted during the memory run');
  } finally {
    await renderer.stop();
  }
  const cpuSpent = cpu();
  const start = samples[0]!;
  const end = samples.at(-1)!;
  const growth = (end.totalRssMb - start.totalRssMb) / start.totalRssMb;

  const targets = {
    p50: runs.map((run) => ({
      concurrency: run.concurrency,
      p50Ms: run.p50Ms,
      targetMs: TARGET_P50_MS,
      met: run.p50Ms <= TARGET_P50_MS,
    })),
    throughput: {
      concurrency: best.concurrency,
      perSecond: best.perSecond,
      target: TARGET_PER_SECOND,
      met: best.perSecond >= TARGET_PER_SECOND,
    },
    memory: {
      startTotalRssMb: start.totalRssMb,
      endTotalRssMb: end.totalRssMb,
      growthPercent: round(growth * 100, 1),
      limitPercent: MEMORY_GROWTH_LIMIT * 100,
      met: growth < MEMORY_GROWTH_LIMIT,
    },
  };
  const table = [
    '| renderer | concurrency | jobs | PDFs/s | p50 ms | p99 ms |',
    '|---|---|---|---|---|---|',
    ...runs.map(
      (r) =>
        `| pool of ${r.concurrency} | ${r.concurrency} | ${r.jobs} | ${r.perSecond} | ${r.p50Ms} | ${r.p99Ms} |`,
    ),
    `| Chromium per request | 1 | ${baseline.jobs} | ${baseline.perSecond} | ${baseline.p50Ms} | ${baseline.p99Ms} |`,
    '',
    '| exports | Node RSS MB | Chromium RSS MB | Chromium PSS MB | total RSS MB | Chromium processes |',
    '|---|---|---|---|---|---|',
    ...samples.map(
      (m) =>
        `| ${m.exports} | ${m.nodeRssMb} | ${m.chromiumRssMb} | ${m.chromiumPssMb} | ${m.totalRssMb} | ${m.chromiumProcesses} |`,
    ),
  ].join('\n');
  process.stdout.write(
    `${JSON.stringify(
      {
        chromium: defaults.executablePath,
        pdf: { itemsPerSection: items, pages, bytes: pdfBytes, htmlBytes: Buffer.byteLength(html) },
        loadAverage: { before: loadBefore, after: loadavg().map((value) => round(value)) },
        cpuSeconds: cpuSpent,
        runs,
        baseline,
        memory: samples,
        targets,
      },
      null,
      2,
    )}\n\n${table}\n\n` +
      `pages: ${pages}${pages === 2 ? '' : ' (expected 2)'}\n` +
      `CPU meanwhile: this benchmark ${cpuSpent.ownSeconds} s, other processes ${cpuSpent.otherSeconds} s (${cpuSpent.busiestOthers.join(', ') || 'none'})\n` +
      targets.p50
        .map(
          (t) => `p50 ≤ ${TARGET_P50_MS} ms at concurrency ${t.concurrency}: ${t.met ? 'met' : 'NOT met'}\n`,
        )
        .join('') +
      `≥ ${TARGET_PER_SECOND} PDFs/s (concurrency ${best.concurrency}): ${targets.throughput.met ? 'met' : 'NOT met'}\n` +
      `no memory growth over ${exportCount} exports (< ${MEMORY_GROWTH_LIMIT * 100}%): ${targets.memory.met ? 'met' : 'NOT met'}\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`bench: ${String(error)}\n`);
  process.exit(1);
});
