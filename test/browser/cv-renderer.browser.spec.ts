import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { loadConfig } from '../../common/config';
import { UnavailableError } from '../../common/errors';
import { projectRoot } from '../../common/paths';
import { processGroup } from '../../common/proc';
import { graphErrorToHttp } from '../../rest-adapter/http-errors';
import { pdfFonts, pdfInfo, pdfRawText } from '../support/pdf';
import { waitUntil } from '../support/wait';
import { CvRenderer, rendererOptionsFrom, type RendererOptions } from '../../subgraphs/cv/render/renderer';
import { closeServer, loopbackUrl } from '../support/loopback';

const OPTIONS: RendererOptions = rendererOptionsFrom(loadConfig({}));

/** The /Title strings of the PDF's objects (document info and outline items), decoded. */
function titlesIn(pdf: Buffer): string[] {
  const text = pdf.toString('latin1');
  return [...text.matchAll(/\/Title <FEFF([0-9A-F]*)>/g)].map((match) =>
    Buffer.from(match[1]!, 'hex').swap16().toString('utf16le'),
  );
}

const font = (file: string) =>
  readFileSync(join(projectRoot(), 'node_modules/@fontsource/amiri/files', file)).toString('base64');

/** Amiri as a CV embeds it: data: URIs split by script, as @fontsource ships it, regular and bold. */
const AMIRI = ['400', '700']
  .map(
    (weight) => `
      @font-face { font-family: Amiri; font-weight: ${weight};
        src: url(data:font/woff2;base64,${font(`amiri-arabic-${weight}-normal.woff2`)}) format('woff2');
        unicode-range: U+0600-06FF, U+0750-077F, U+FB50-FDFF, U+FE70-FEFF; }
      @font-face { font-family: Amiri; font-weight: ${weight};
        src: url(data:font/woff2;base64,${font(`amiri-latin-${weight}-normal.woff2`)}) format('woff2');
        unicode-range: U+0000-00FF; }`,
  )
  .join('\n');

const document = (body: string, head = '') =>
  `<!doctype html><html lang="ar" dir="rtl"><head><meta charset="utf-8"><title>سيرة ذاتية</title>${head}</head><body>${body}</body></html>`;

const TWO_PAGES = `<!doctype html>
<html lang="ar" dir="rtl">
  <head>
    <meta charset="utf-8" />
    <title>سيرة ليلى حسن — CV</title>
    <style>${AMIRI} body { font-family: Amiri; font-size: 14pt; } .next { break-before: page; }</style>
  </head>
  <body>
    <h1>ليلى حسن</h1>
    <p>مهندسة برمجيات في بغداد، Backend Engineer.</p>
    <h2 class="next">الخبرة العملية</h2>
    <p>قدت فريقاً من خمسة مهندسين لبناء منصة الدفع.</p>
  </body>
</html>`;

/** Enough layout to keep Chromium busy for a few seconds. */
const HEAVY = document(
  '<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor.</p>'.repeat(60_000),
);

const SMALL = document('<p>Hello</p>');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function isRendererProcess(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('--type=renderer');
  } catch {
    return false;
  }
}

function pidOf(renderer: CvRenderer): number {
  const pid = renderer.chromiumPid();
  if (pid === undefined) throw new Error('no Chromium running');
  return pid;
}

describe('rendererOptionsFrom', () => {
  it('reads the RENDER_* variables, with the documented defaults', () => {
    expect(OPTIONS).toEqual({
      executablePath: '/usr/bin/chromium',
      poolSize: 2,
      maxJobsPerBrowser: 500,
      queueLimit: 16,
      timeoutMs: 15_000,
    });
    expect(
      rendererOptionsFrom(
        loadConfig({
          CHROMIUM_PATH: '/opt/chromium/chrome',
          RENDER_POOL_SIZE: '4',
          RENDER_MAX_JOBS_PER_BROWSER: '50',
          RENDER_QUEUE_LIMIT: '0',
          RENDER_TIMEOUT_MS: '5000',
        }),
      ),
    ).toEqual({
      executablePath: '/opt/chromium/chrome',
      poolSize: 4,
      maxJobsPerBrowser: 50,
      queueLimit: 0,
      timeoutMs: 5000,
    });
    expect(() => loadConfig({ RENDER_POOL_SIZE: '0', RENDER_TIMEOUT_MS: '0' })).toThrow(
      /RENDER_POOL_SIZE[\s\S]*RENDER_TIMEOUT_MS/,
    );
  });
});

describe('CvRenderer on one shared Chromium', () => {
  const renderer = new CvRenderer(OPTIONS);
  beforeAll(() => renderer.start());
  afterAll(() => renderer.stop());

  it('prints a tagged A4 PDF with the title, the outline and the embedded Amiri faces', async () => {
    const pdf = await renderer.pdf(TWO_PAGES);

    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const info = pdfInfo(pdf);
    expect(info.Pages).toBe('2');
    expect(info.Tagged).toBe('yes');
    expect(info.Title).toBe('سيرة ليلى حسن — CV');
    // A4 is 595.28 × 841.89 pt; Chromium rounds the page to whole CSS pixels.
    expect(info['Page size']).toMatch(/^595\.\d+ x 841\.\d+ pts \(A4\)$/);

    // The bookmarks are the headings, and the language is the document's.
    expect(pdf.includes('/Outlines')).toBe(true);
    // Chromium 156 writes some Arabic bookmarks with their words in visual (reversed) order.
    const words = (title: string) => title.split(' ').sort().join(' ');
    expect(titlesIn(pdf).map(words)).toEqual(
      expect.arrayContaining(['ليلى حسن', 'الخبرة العملية'].map(words)),
    );
    expect(pdf.includes('/Lang (ar)')).toBe(true);

    const fonts = pdfFonts(pdf);
    expect(fonts.length).toBeGreaterThan(0);
    for (const font of fonts) expect(font.embedded).toBe(true);
    expect(fonts.some((font) => font.name.includes('Amiri-Regular'))).toBe(true);
    expect(fonts.some((font) => font.name.includes('Amiri-Bold'))).toBe(true);

    const text = pdfRawText(pdf);
    expect(text).toContain('ليلى حسن');
    expect(text).toContain('Backend Engineer');
  });

  it('loads nothing from the network or the disk, and still prints', async () => {
    const hits: string[] = [];
    let connections = 0;
    const server: Server = createServer((req, res) => {
      hits.push(req.url ?? '');
      res.end('body { color: red }');
    });
    server.on('connection', () => (connections += 1));
    const base = await loopbackUrl(server);
    try {
      const pdf = await renderer.pdf(
        document(
          `<p>Still here</p>
          <img src="${base}/img.png"><img src="file:///etc/passwd">
          <iframe src="${base}/frame"></iframe><script src="${base}/script.js"></script>
          <object data="${base}/object"></object><svg><image href="${base}/svg.png" /></svg>`,
          `<link rel="stylesheet" href="${base}/style.css">
          <link rel="preconnect" href="${base}"><link rel="prefetch" href="${base}/prefetch">
          <style>@import url("${base}/import.css"); body { background: url(${base}/background.png); }
            @font-face { font-family: Remote; src: url(${base}/font.woff2); } p { font-family: Remote; }</style>`,
        ),
      );
      // Prefetches go out after the load event, if at all.
      await new Promise((resolve) => setTimeout(resolve, 500));

      expect(hits).toEqual([]);
      expect(connections).toBe(0);
      expect(pdfRawText(pdf)).toContain('Still here');
    } finally {
      await closeServer(server);
    }
  });

  it('runs no JavaScript: neither inline scripts, handlers nor scripts of frames', async () => {
    const pdf = await renderer.pdf(
      document(`<p id="p">Printed</p>
        <script>document.getElementById('p').textContent = 'SCRIPT-RAN'; document.write('WRITE-RAN');</script>
        <img src="data:," onerror="document.body.append('HANDLER-RAN')">
        <iframe srcdoc="<script>document.write('FRAME-RAN')</script>"></iframe>`),
    );

    const text = pdfRawText(pdf);
    expect(text).toContain('Printed');
    expect(text).not.toMatch(/SCRIPT-RAN|WRITE-RAN|HANDLER-RAN|FRAME-RAN/);
  });

  it('reuses its pages: more jobs start no more renderer processes', async () => {
    const renderers = async (jobs: number) => {
      const pdfs = await Promise.all(Array.from({ length: jobs }, () => renderer.pdf(SMALL)));
      expect(pdfs.every((pdf) => pdf.subarray(0, 5).toString('latin1') === '%PDF-')).toBe(true);
      await waitUntil(() => renderer.stats().busy === 0, 10_000, 'the reset of every page');
      const count = () => processGroup(pidOf(renderer)).filter(isRendererProcess).length;
      // Chromium starts a spare renderer process in its own time; count once it has settled.
      let counts = [count()];
      await waitUntil(
        () => {
          counts = [...counts, count()].slice(-10);
          return counts.length === 10 && counts.every((seen) => seen === counts[0]);
        },
        10_000,
        'a steady count of renderer processes',
      );
      return counts[0];
    };
    const before = renderer.stats().jobs;

    const afterFew = await renderers(4);
    const afterMany = await renderers(OPTIONS.poolSize + OPTIONS.queueLimit);

    expect(afterMany).toEqual(afterFew);
    expect(renderer.stats()).toMatchObject({
      jobs: before + 4 + OPTIONS.poolSize + OPTIONS.queueLimit,
      restarts: 0,
      busy: 0,
      queued: 0,
    });
  });
});

describe('CvRenderer keeping Chromium fresh', () => {
  it('restarts Chromium after maxJobsPerBrowser jobs and closes the old one', async () => {
    const renderer = new CvRenderer({ ...OPTIONS, poolSize: 1, maxJobsPerBrowser: 3 });
    const pids = new Set<number>();
    try {
      for (let job = 0; job < 7; job += 1) {
        await renderer.pdf(SMALL);
        pids.add(pidOf(renderer));
      }

      expect(renderer.stats()).toMatchObject({ jobs: 7, restarts: 2 });
      expect(pids.size).toBe(3);
      const current = pidOf(renderer);
      await waitUntil(
        () => [...pids].every((pid) => pid === current || !alive(pid)),
        10_000,
        'the exit of every old Chromium',
      );
    } finally {
      await renderer.stop();
    }
  });

  it('fails the job in flight when Chromium dies, and serves the next one on a new Chromium', async () => {
    const renderer = new CvRenderer({ ...OPTIONS, poolSize: 1 });
    try {
      await renderer.start();
      const first = pidOf(renderer);
      process.kill(first, 'SIGKILL');
      await waitUntil(() => renderer.chromiumPid() === undefined, 10_000, 'the renderer noticing the kill');
      await expect(renderer.pdf(SMALL)).resolves.toBeInstanceOf(Buffer);
      const second = pidOf(renderer);
      expect(second).not.toBe(first);

      const inFlight = renderer.pdf(HEAVY);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(renderer.stats().busy).toBe(1);
      process.kill(second, 'SIGKILL');
      const error = await inFlight.then(
        () => undefined,
        (failure: unknown) => failure,
      );
      expect(error).toBeInstanceOf(UnavailableError);
      expect((error as UnavailableError).message).toBe(
        'Chromium stopped while rendering the PDF; try again.',
      );

      await expect(renderer.pdf(SMALL)).resolves.toBeInstanceOf(Buffer);
      expect(pidOf(renderer)).not.toBe(second);
      expect(renderer.stats().restarts).toBe(2);
    } finally {
      await renderer.stop();
    }
  });
});

describe('CvRenderer under load', () => {
  it('fails a job over the timeout with UNAVAILABLE and a Retry-After', async () => {
    const renderer = new CvRenderer({ ...OPTIONS, timeoutMs: 1 });
    try {
      await renderer.start();
      const error = await renderer.pdf(HEAVY).then(
        () => undefined,
        (failure: unknown) => failure,
      );

      expect(error).toBeInstanceOf(UnavailableError);
      const { extensions } = error as UnavailableError;
      expect(extensions.code).toBe('UNAVAILABLE');
      expect(extensions.retryAfter).toBeGreaterThanOrEqual(1);
    } finally {
      await renderer.stop();
    }
  });

  it('replaces the page of a timed-out job instead of waiting for it', async () => {
    const renderer = new CvRenderer({ ...OPTIONS, poolSize: 1, timeoutMs: 2_000 });
    try {
      await renderer.start();
      await expect(renderer.pdf(HEAVY)).rejects.toThrow('The PDF took longer than 2000 ms to render.');

      // On the old page this would queue behind the heavy document and time out too.
      const pdf = await renderer.pdf(SMALL);
      expect(pdfRawText(pdf)).toContain('Hello');
      expect(renderer.stats()).toMatchObject({ jobs: 1, restarts: 0 });
    } finally {
      await renderer.stop();
    }
  });

  it('refuses at once what neither a page nor the queue can take, with Retry-After', async () => {
    const renderer = new CvRenderer({ ...OPTIONS, poolSize: 1, queueLimit: 1 });
    try {
      await renderer.start();
      const settled: ('ok' | 'refused')[] = [];
      const jobs = Array.from({ length: 5 }, () =>
        renderer.pdf(SMALL).then(
          () => settled.push('ok'),
          (error: unknown) => {
            settled.push('refused');
            throw error;
          },
        ),
      );
      expect(renderer.stats()).toMatchObject({ busy: 1, queued: 1 });
      const results = await Promise.allSettled(jobs);

      const refusals = results.flatMap((result) =>
        result.status === 'rejected' ? [result.reason as unknown] : [],
      );
      expect(refusals).toHaveLength(3);
      // The refusals come before the first PDF is done.
      expect(settled).toEqual(['refused', 'refused', 'refused', 'ok', 'ok']);
      for (const refusal of refusals) {
        expect(refusal).toBeInstanceOf(UnavailableError);
        // What the REST adapter makes of it.
        expect(graphErrorToHttp([(refusal as UnavailableError).toJSON()])).toEqual({
          status: 503,
          body: { message: 'Every PDF renderer is busy; try again shortly.' },
          headers: { 'Retry-After': '1' },
        });
      }
    } finally {
      await renderer.stop();
    }
  });
});

describe('CvRenderer.stop', () => {
  it('closes Chromium and every process it started, and refuses later jobs', async () => {
    const renderer = new CvRenderer(OPTIONS);
    await renderer.pdf(SMALL);
    const pid = pidOf(renderer);
    expect(processGroup(pid).length).toBeGreaterThan(1);

    await renderer.stop();

    expect(alive(pid)).toBe(false);
    await waitUntil(() => processGroup(pid).length === 0, 5_000, 'the exit of every Chromium process');
    await expect(renderer.pdf(SMALL)).rejects.toBeInstanceOf(UnavailableError);
  });
});
