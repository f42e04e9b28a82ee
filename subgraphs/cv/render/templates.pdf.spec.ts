import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import puppeteer, { type Browser } from 'puppeteer-core';
import sharp from 'sharp';
import { loadConfig } from '../../../common/config';
import { SECTION_KEYS, type CvDocument } from '../cv.payload';
import { sampleCvDocument } from '../sample-cv';
import { DESIGNS, DESIGN_SLUGS, type DesignSlug } from './designs';
import { renderCvHtml, type RenderInput } from './document';
import { LABELS } from './format';

const run = promisify(execFile);

/** Kept after the run for a person to look at; test-artifacts/ is git-ignored. */
const ARTIFACTS = join(__dirname, '../../../test-artifacts/cv-templates');
/** Controls poppler puts around runs of the other direction; they are not part of what was written. */
const BIDI_CONTROLS = /[\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** Names that appear nowhere else in the sample, so finding them proves the header came through. */
const PEOPLE = {
  ar: { full_name: 'ريم عادل الموسوي', job_title: 'مديرة مشاريع تقنية', email: 'reem.mousawi@example.iq' },
  en: {
    full_name: 'Zainab Al-Rubaie',
    job_title: 'Principal Data Engineer',
    email: 'zainab.rubaie@example.org',
  },
} as const;

function documentFor(locale: 'ar' | 'en'): CvDocument {
  const document = sampleCvDocument(locale);
  return { ...document, personal: { ...document.personal, ...PEOPLE[locale] } };
}

function templateOf(slug: DesignSlug): RenderInput['template'] {
  return { slug, layout: DESIGNS[slug].layout, name: slug };
}

let browser: Browser;
let workDir: string;
let photo: RenderInput['photo'];

/** Chromium as the exports run it: no JavaScript, and nothing fetched but data: URIs. */
async function print(html: string): Promise<{ path: string; requests: string[] }> {
  const page = await browser.newPage();
  const requests: string[] = [];
  try {
    await page.setJavaScriptEnabled(false);
    await page.setRequestInterception(true);
    page.on('request', (request) => {
      if (request.url().startsWith('data:')) {
        void request.continue();
      } else {
        requests.push(request.url());
        void request.abort();
      }
    });
    await page.setContent(html, { waitUntil: 'load' });
    const pdf = await page.pdf({
      format: 'A4',
      printBackground: true,
      tagged: true,
      preferCSSPageSize: true,
    });
    const path = join(workDir, `${requests.length}-${Date.now()}-${Math.random().toString(36).slice(2)}.pdf`);
    writeFileSync(path, pdf);
    return { path, requests };
  } finally {
    await page.close();
  }
}

async function text(path: string, page?: number): Promise<string> {
  const range = page === undefined ? [] : ['-f', String(page), '-l', String(page)];
  const { stdout } = await run('pdftotext', ['-enc', 'UTF-8', ...range, path, '-']);
  return stdout.replace(BIDI_CONTROLS, '');
}

async function pageCount(path: string): Promise<number> {
  const { stdout } = await run('pdfinfo', [path]);
  return Number(/^Pages:\s+(\d+)$/m.exec(stdout)?.[1]);
}

/** `pdffonts` rows as [name, emb]: the emb column sits where its header does. */
async function fonts(path: string): Promise<{ name: string; embedded: string }[]> {
  const { stdout } = await run('pdffonts', [path]);
  const [header, , ...rows] = stdout.trimEnd().split('\n');
  const at = header!.indexOf('emb');
  return rows.map((row) => ({ name: row.slice(0, 37).trim(), embedded: row.slice(at, at + 3) }));
}

describe('the CV designs printed by Chromium', () => {
  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    workDir = mkdtempSync(join(tmpdir(), 'nida-cv-templates-'));
    browser = await puppeteer.launch({
      executablePath: loadConfig().render.chromiumPath,
      args: CHROMIUM_FLAGS,
    });
    const portrait = Buffer.from(
      '<svg xmlns="http://www.w3.org/2000/svg" width="300" height="360"><rect width="300" height="360" fill="#9fb4c4"/>' +
        '<circle cx="150" cy="140" r="66" fill="#e3c4a2"/><ellipse cx="150" cy="350" rx="125" ry="110" fill="#33475b"/></svg>',
    );
    photo = { type: 'image/jpeg', data: await sharp(portrait).jpeg().toBuffer() };
  });

  afterAll(async () => {
    await browser?.close();
    rmSync(workDir, { recursive: true, force: true });
  });

  describe.each(DESIGN_SLUGS)('%s', (slug) => {
    it.each(['ar', 'en'] as const)(
      'in %s embeds every font and keeps name, job title and email as written',
      async (locale) => {
        const html = renderCvHtml({
          document: documentFor(locale),
          template: templateOf(slug),
          photo,
          watermark: false,
        });
        const { path, requests } = await print(html);

        expect(requests).toEqual([]);
        const rows = await fonts(path);
        expect(rows.length).toBeGreaterThan(0);
        expect(rows.filter((row) => row.embedded !== 'yes')).toEqual([]);
        const extracted = await text(path);
        expect(extracted).toContain(PEOPLE[locale].full_name);
        expect(extracted).toContain(PEOPLE[locale].job_title);
        expect(extracted).toContain(PEOPLE[locale].email);

        await run('pdftoppm', [
          '-png',
          '-r',
          '60',
          '-f',
          '1',
          '-l',
          '1',
          '-singlefile',
          path,
          join(ARTIFACTS, `${slug}-${locale}`),
        ]);
      },
    );

    it('with a watermark prints it on every page', async () => {
      const locale = slug === 'sidebar' || slug === 'scholar' || slug === 'studio' ? 'ar' : 'en';
      const document = documentFor(locale);
      // Enough content for several pages, so "every page" means more than one.
      for (const key of SECTION_KEYS) {
        const items = document.sections[key] as object[];
        items.push(...items.map((item) => ({ ...item })));
      }
      const { path } = await print(
        renderCvHtml({ document, template: templateOf(slug), photo: null, watermark: true }),
      );

      const pages = await pageCount(path);
      expect(pages).toBeGreaterThan(1);
      for (let page = 1; page <= pages; page++) {
        expect(await text(path, page)).toContain(LABELS[locale].watermark);
      }
    });
  });

  it.each([
    ['ar', 'sidebar'],
    ['en', 'classic'],
  ] as const)(
    'in %s, the %s design looks different in each theme and keeps its text in each font family',
    async (locale, slug) => {
      const looks = new Set<string>();
      const variants = [
        { theme: 'light', font_family: 'naskh' },
        { theme: 'dark', font_family: 'sans' },
        { theme: 'dark-header', font_family: 'serif' },
        { theme: 'colour-sidebar', font_family: 'sans' },
      ];
      for (const settings of variants) {
        const document = documentFor(locale);
        // Arabic inside an English CV must come back as written too (it is set without kerning).
        const [first, ...rest] = document.sections.experience;
        document.sections.experience = [{ ...first!, company: 'شركة المشاريع العراقية' }, ...rest];
        const { path } = await print(
          renderCvHtml({
            document: { ...document, settings: { ...settings, primary_color: '#2563eb' } },
            template: templateOf(slug),
            photo,
            watermark: false,
          }),
        );
        expect((await fonts(path)).filter((row) => row.embedded !== 'yes')).toEqual([]);
        const extracted = await text(path);
        for (const value of Object.values(PEOPLE[locale])) expect(extracted).toContain(value);
        expect(extracted).toContain('شركة المشاريع العراقية');
        const { stdout } = await run(
          'pdftoppm',
          ['-png', '-r', '20', '-f', '1', '-l', '1', '-singlefile', path],
          {
            encoding: 'buffer',
            maxBuffer: 8 * 1024 * 1024,
          },
        );
        looks.add(stdout.toString('base64'));
      }
      expect(looks.size).toBe(variants.length);
    },
  );

  describe('a CV full of addresses of a local server', () => {
    let server: Server;
    const hits: string[] = [];

    beforeAll(async () => {
      server = createServer((request, response) => {
        hits.push(request.url ?? '');
        response.end('x');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    });

    afterAll(async () => {
      await new Promise((resolve) => server.close(resolve));
    });

    it.each(['ar', 'en'] as const)('makes Chromium ask for nothing (%s)', async (locale) => {
      const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const hostile = [
        `<img src="${origin}/img">`,
        `url(${origin}/css)`,
        `<link rel="stylesheet" href="${origin}/link">`,
        `"><style>@import "${origin}/import";*{background:url(${origin}/bg)}</style>`,
        `<iframe src="${origin}/frame"></iframe>`,
        `<script src="${origin}/script"></script>`,
        'file:///etc/passwd',
      ];
      let next = 0;
      const poison = <T extends object>(entry: T): T =>
        Object.fromEntries(
          Object.entries(entry).map(([key, value]) => [
            key,
            typeof value === 'string' ? hostile[next++ % hostile.length]! : value,
          ]),
        ) as T;
      const document = documentFor(locale);
      const attack: CvDocument = {
        ...document,
        personal: { ...poison(document.personal), website: `${origin}/website` },
        settings: { primary_color: `#fff;background:url(${origin}/colour)` },
        sections: Object.fromEntries(
          SECTION_KEYS.map((key) => [key, (document.sections[key] as object[]).map(poison)]),
        ) as CvDocument['sections'],
        custom_sections: [{ key: 'x', title: hostile[0]!, content: hostile.join('\n') }],
      };
      for (const slug of DESIGN_SLUGS) {
        const { path, requests } = await print(
          renderCvHtml({ document: attack, template: templateOf(slug), photo, watermark: true }),
        );
        expect(requests).toEqual([]);
        expect(await text(path)).toContain(`${origin}/img`);
      }
      expect(hits).toEqual([]);
    });
  });
});
