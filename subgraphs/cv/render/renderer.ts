import puppeteer, { type Browser, type HTTPRequest, type Page, type PDFOptions } from 'puppeteer-core';
import { CHROMIUM_FLAGS } from '../../../common/chromium';
import type { Config } from '../../../common/config';
import { UnavailableError } from '../../../common/errors';
import type { Logger } from '../../../common/logger';

/** How the CV service prints PDFs: CHROMIUM_PATH and the RENDER_* variables (README.md). */
export interface RendererOptions {
  executablePath: string;
  /** Chromium pages, hence PDFs printed at once. */
  poolSize: number;
  /** Chromium is replaced after this many jobs. */
  maxJobsPerBrowser: number;
  /** Jobs allowed to wait for a page; the next one fails at once. */
  queueLimit: number;
  /** Bound of one job from its arrival, the wait for a page included, since that is what a caller waits. */
  timeoutMs: number;
}

export function rendererOptionsFrom(config: Config): RendererOptions {
  const { chromiumPath, poolSize, maxJobsPerBrowser, queueLimit, timeoutMs } = config.render;
  return { executablePath: chromiumPath, poolSize, maxJobsPerBrowser, queueLimit, timeoutMs };
}

/** Chromium's command line: the platform's required flags and the renderer's own. */
const CHROMIUM_ARGS = [
  ...CHROMIUM_FLAGS,
  // <link rel=prefetch> and rel=preconnect are fetched by the browser process, past the page's
  // request interception; with no host (nor IP address) resolving they reach nobody.
  '--host-resolver-rules=MAP * ~NOTFOUND',
  // Docker gives a container 64 MB of /dev/shm, which a few pages of print layout outgrow.
  '--disable-dev-shm-usage',
];

/** Exported for the benchmark's launch-per-request baseline. */
export const PDF_OPTIONS: PDFOptions = {
  format: 'A4',
  printBackground: true,
  // Bookmarks from h1–h6; the title from <title> and the language from <html lang> come with tagging.
  tagged: true,
  outline: true,
  // A template's @page rule (size, margins) wins over the A4 default.
  preferCSSPageSize: true,
  // Runs in Puppeteer's isolated world, which works with the page's JavaScript off.
  waitForFonts: true,
};

const BLANK = '<!doctype html><title></title>';

/** A full queue of 16 drains in about a second at the benchmark's rate. */
const BUSY_RETRY_SECONDS = 1;
/** Chromium relaunches in well under a second. */
const CRASH_RETRY_SECONDS = 1;
/** How long closing a page or Chromium may take before it is given up on (or killed). */
export const CLOSE_GRACE_MS = 5_000;

/** One Chromium and its pages; replaced after maxJobsPerBrowser jobs or when it dies. */
interface Generation {
  browser: Promise<Browser>;
  /** Set once launched, for what must be read without waiting (the pid, whether it is connected). */
  launched: Browser | undefined;
  idle: Page[];
  /** Jobs given to this Chromium, and those on it now. */
  jobs: number;
  active: number;
  /** Takes no more jobs; closed once its last job is done. */
  retired: boolean;
  /** Being closed on purpose, so its disconnection is no crash. */
  closing: boolean;
  /** Disconnected without being asked to. */
  lost: boolean;
}

interface Lease {
  generation: Generation;
  page: Page;
}

interface Waiter {
  grant(): void;
  refuse(error: Error): void;
}

/** Chromium as the renderer runs it (exported for the benchmark's launch-per-request baseline). */
export function launchChromium(executablePath: string): Promise<Browser> {
  return puppeteer.launch({
    executablePath,
    headless: true,
    // DevTools over stdio: no debugging port on 127.0.0.1 for any local process to drive.
    pipe: true,
    args: CHROMIUM_ARGS,
    // The service shuts down in its own order; Puppeteer kills Chromium when Node exits anyway.
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
  });
}

/**
 * Prints self-contained HTML to PDF on one long-lived Chromium with a pool of reused pages. Each
 * page runs no JavaScript and loads nothing but data: URIs. Jobs beyond the pool wait in a bounded
 * queue; a job over its timeout loses its page; Chromium is replaced after a number of jobs and
 * whenever it dies.
 */
export class CvRenderer {
  private current: Generation | undefined;
  /** The current Chromium and any retired ones still finishing their jobs. */
  private readonly generations = new Set<Generation>();
  private readonly waiting: Waiter[] = [];
  private busy = 0;
  private jobs = 0;
  private launches = 0;
  private stopped = false;

  constructor(
    private readonly options: RendererOptions,
    private readonly logger?: Logger,
  ) {}

  /** Launches Chromium now rather than at the first job. */
  async start(): Promise<void> {
    if (this.stopped) throw stoppedError();
    this.current ??= this.launch();
    await this.current.browser;
  }

  /** A PDF of one self-contained HTML document. */
  async pdf(html: string): Promise<Buffer> {
    if (this.stopped) throw stoppedError();
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), this.options.timeoutMs);
    try {
      await this.takeSlot(deadline.signal);
      const leasing = this.lease();
      let lease: Lease;
      try {
        lease = await beforeDeadline(leasing, deadline.signal);
      } catch (error) {
        // The slot stays taken until a late page is back, so the pool never outgrows its size.
        void leasing.then(
          (late) => this.giveBack(late, true),
          () => this.releaseSlot(),
        );
        throw error;
      }
      try {
        const pdf = await beforeDeadline(this.print(lease.page, html), deadline.signal);
        this.jobs += 1;
        void this.giveBack(lease, true);
        return pdf;
      } catch (error) {
        // A page that failed or is still printing is in no state to trust with the next CV.
        void this.giveBack(lease, false);
        throw this.stoppedUnder(lease.generation) ?? error;
      }
    } catch (error) {
      if (error instanceof UnavailableError || !deadline.signal.aborted) throw error;
      this.logger?.warn({ timeoutMs: this.options.timeoutMs }, 'PDF render timed out');
      // A document that needed the whole timeout would likely need it again; sooner would only add load.
      throw new UnavailableError(
        `The PDF took longer than ${this.options.timeoutMs} ms to render.`,
        this.options.timeoutMs / 1000,
      );
    } finally {
      clearTimeout(timer);
    }
  }

  /** Numbers for /healthz and the benchmark: jobs done, restarts, pages busy, queue length. */
  stats(): { jobs: number; restarts: number; busy: number; queued: number } {
    return {
      jobs: this.jobs,
      restarts: Math.max(0, this.launches - 1),
      busy: this.busy,
      queued: this.waiting.length,
    };
  }

  /** Pages printing now and pages ready for the next job, for the metrics. */
  pages(): { inUse: number; idle: number } {
    let idle = 0;
    for (const generation of this.generations) idle += generation.idle.length;
    return { inUse: this.busy, idle };
  }

  /** The running Chromium's process id (also its process group's), for tests and the benchmark. */
  chromiumPid(): number | undefined {
    const browser = this.current?.launched;
    return browser?.connected === true ? browser.process()?.pid : undefined;
  }

  /** Refuses queued and later jobs and closes Chromium; jobs in flight fail. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const waiter of this.waiting.splice(0)) waiter.refuse(stoppedError());
    this.current = undefined;
    await Promise.all([...this.generations].map((generation) => this.close(generation)));
  }

  private launch(): Generation {
    this.launches += 1;
    const generation: Generation = {
      // A microtask later, once `generation` exists.
      browser: Promise.resolve().then(() => this.startChromium(generation)),
      launched: undefined,
      idle: [],
      jobs: 0,
      active: 0,
      retired: false,
      closing: false,
      lost: false,
    };
    // Whoever waits for it learns of a failure; this only keeps it from counting as unhandled.
    generation.browser.catch(() => undefined);
    this.generations.add(generation);
    return generation;
  }

  private async startChromium(generation: Generation): Promise<Browser> {
    let browser: Browser | undefined;
    try {
      browser = await launchChromium(this.options.executablePath);
      generation.launched = browser;
      browser.once('disconnected', () => this.disconnected(generation));
      // Chromium opens with a blank tab: the pool's first page rather than a renderer process idling.
      const [first] = await browser.pages();
      if (first !== undefined) generation.idle.push(await preparePage(first, this.options.timeoutMs));
      this.logger?.info({ pid: browser.process()?.pid, restarts: this.launches - 1 }, 'chromium started');
      return browser;
    } catch (error) {
      this.logger?.error(
        { err: error, executablePath: this.options.executablePath },
        'chromium did not start',
      );
      generation.closing = true;
      this.forget(generation);
      await browser?.close().catch(() => undefined);
      throw error;
    }
  }

  private disconnected(generation: Generation): void {
    this.forget(generation);
    if (generation.closing) return;
    generation.lost = true;
    this.logger?.warn({ active: generation.active }, 'chromium disconnected; the next job starts another');
  }

  /** Why a job on this Chromium failed, when the cause is Chromium going away rather than the job. */
  private stoppedUnder(generation: Generation): UnavailableError | undefined {
    if (this.stopped) return stoppedError();
    // Checked on the connection too: the job may learn of the loss before the disconnected event.
    if (generation.lost || (!generation.closing && generation.launched?.connected === false)) {
      return crashError();
    }
    return undefined;
  }

  private forget(generation: Generation): void {
    generation.idle = [];
    this.generations.delete(generation);
    if (this.current === generation) this.current = undefined;
  }

  private async lease(): Promise<Lease> {
    if (this.stopped) throw stoppedError();
    let generation = this.current;
    if (generation !== undefined && generation.jobs >= this.options.maxJobsPerBrowser) {
      this.retire(generation);
      generation = undefined;
    }
    generation ??= this.current = this.launch();
    generation.jobs += 1;
    generation.active += 1;
    try {
      const browser = await generation.browser;
      const page =
        generation.idle.pop() ?? (await preparePage(await browser.newPage(), this.options.timeoutMs));
      return { generation, page };
    } catch (error) {
      this.leave(generation);
      throw this.stoppedUnder(generation) ?? error;
    }
  }

  private async print(page: Page, html: string): Promise<Buffer> {
    await page.setContent(html, { waitUntil: 'load' });
    const pdf = await page.pdf(PDF_OPTIONS);
    return Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength);
  }

  /** Resets a healthy page for the next job and frees the job's slot; a failed page is closed after. */
  private async giveBack({ generation, page }: Lease, healthy: boolean): Promise<void> {
    let reused = false;
    if (healthy && !generation.lost && !generation.retired) {
      // Drops the last CV's DOM, fonts and photo now rather than when the next job replaces them.
      // In place: a navigation to about:blank cost some 70 ms of CPU a job here, this under 20.
      reused = await page.setContent(BLANK, { waitUntil: 'load' }).then(
        () => true,
        () => false,
      );
      if (reused && !generation.lost && !generation.retired) generation.idle.push(page);
    }
    this.leave(generation);
    this.releaseSlot();
    // Closing a page still printing takes Chromium a while; the next job need not wait for it.
    if (reused || generation.lost || generation.retired) return;
    if (!(await within(page.close(), CLOSE_GRACE_MS))) {
      // A page that will not close is stuck in Chromium; a fresh one is cheaper than finding out why.
      this.retire(generation);
    }
  }

  private leave(generation: Generation): void {
    generation.active -= 1;
    if (generation.retired && generation.active === 0) void this.close(generation);
  }

  private retire(generation: Generation): void {
    generation.retired = true;
    if (this.current === generation) this.current = undefined;
    if (generation.active === 0) void this.close(generation);
  }

  private async close(generation: Generation): Promise<void> {
    generation.retired = true;
    generation.closing = true;
    this.forget(generation);
    const browser = await generation.browser.catch(() => undefined);
    if (browser === undefined || (await within(browser.close(), CLOSE_GRACE_MS))) return;
    const pid = browser.process()?.pid;
    try {
      // Puppeteer starts Chromium as the leader of its own process group.
      if (pid !== undefined) process.kill(-pid, 'SIGKILL');
    } catch {
      // Gone already.
    }
  }

  private async takeSlot(signal: AbortSignal): Promise<void> {
    if (this.busy < this.options.poolSize) {
      this.busy += 1;
      return;
    }
    if (this.waiting.length >= this.options.queueLimit) {
      throw new UnavailableError('Every PDF renderer is busy; try again shortly.', BUSY_RETRY_SECONDS);
    }
    await new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        this.waiting.splice(this.waiting.indexOf(waiter), 1);
        reject(new Error('the deadline passed in the queue'));
      };
      const waiter: Waiter = {
        grant: () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        },
        refuse: (error) => {
          signal.removeEventListener('abort', onAbort);
          reject(error);
        },
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(waiter);
    });
  }

  /** Hands the slot to the first waiting job, or frees it. */
  private releaseSlot(): void {
    const next = this.waiting.shift();
    if (next === undefined) this.busy -= 1;
    else next.grant();
  }
}

async function preparePage(page: Page, timeoutMs: number): Promise<Page> {
  // Puppeteer's own timeouts end whatever a timed-out job left running on the page.
  page.setDefaultTimeout(timeoutMs);
  await page.setJavaScriptEnabled(false);
  await page.setRequestInterception(true);
  page.on('request', onlyDataUris);
  return page;
}

/** The HTML arrives by setContent and carries its fonts and photo as data: URIs; nothing else loads. */
function onlyDataUris(request: HTTPRequest): void {
  const decided = request.url().startsWith('data:') ? request.continue() : request.abort('blockedbyclient');
  // The request of a page closed meanwhile is gone, and nothing is left to decide.
  decided.catch(() => undefined);
}

/** `work`'s outcome, unless the deadline comes first; the work goes on, and its owner cleans up after it. */
function beforeDeadline<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new Error('deadline'));
    if (signal.aborted) onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    void work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** Whether `work` settled within `ms`; its failure counts as settled, since only hanging matters here. */
async function within(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const settled = work.then(
    () => true,
    () => true,
  );
  const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([settled, late]);
  } finally {
    clearTimeout(timer);
  }
}

function crashError(): UnavailableError {
  return new UnavailableError('Chromium stopped while rendering the PDF; try again.', CRASH_RETRY_SECONDS);
}

function stoppedError(): UnavailableError {
  return new UnavailableError('The PDF renderer is shutting down.', CRASH_RETRY_SECONDS);
}
