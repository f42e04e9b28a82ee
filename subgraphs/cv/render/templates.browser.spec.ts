import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type Browser } from 'puppeteer-core';
import { launchChromium } from '../../../test/support/chromium';
import sharp from 'sharp';
import { loadConfig } from '../../../common/config';
import { pdfFonts, pdfInfo, pdfText } from '../../../test/support/pdf';
import { SECTION_KEYS, type CvDocument } from '../../../contracts/cv/cv.payload';
import { sampleCvDocument } from './sample-cv';
import { DESIGNS, DESIGN_SLUGS, type DesignSlug } from './designs';
import { renderCvHtml, type RenderInput } from './document';
import { LABELS } from './format';
import { closeServer, loopbackUrl } from '../../../test/support/loopback';

const run = promisify(execFile);

/** Kept after the run for a person to look at; test-artifacts/ is git-ignored. */
const ARTIFACTS = join(__dirname, '../../../test-artifacts/cv-templates');

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

/**
 * Chromium as the exports run it: no JavaScript, and nothing fetched but data: URIs. The PDF is
 * written to a file too, for pdftoppm.
 */
async function print(html: string): Promise<{ pdf: Buffer; path: string; requests: string[] }> {
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
    const pdf = Buffer.from(
      await page.pdf({
        format: 'A4',
        printBackground: true,
        tagged: true,
        preferCSSPageSize: true,
      }),
    );
    const path = join(workDir, `${requests.length}-${Date.now()}-${Math.random().toString(36).slice(2)}.pdf`);
    writeFileSync(path, pdf);
    return { pdf, path, requests };
  } finally {
    await page.close();
  }
}

describe('the CV designs printed by Chromium', () => {
  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    workDir = mkdtempSync(join(tmpdir(), 'nida-cv-templates-'));
    browser = await launchChromium(loadConfig().render.chromiumPath);
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
        const { pdf, path, requests } = await print(html);

        expect(requests).toEqual([]);
        const fonts = pdfFonts(pdf);
        expect(fonts.length).toBeGreaterThan(0);
        expect(fonts.filter((font) => !font.embedded)).toEqual([]);
        const extracted = pdfText(pdf);
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
      const { pdf } = await print(
        renderCvHtml({ document, template: templateOf(slug), photo: null, watermark: true }),
      );

      const pages = Number(pdfInfo(pdf).Pages);
      expect(pages).toBeGreaterThan(1);
      for (let page = 1; page <= pages; page++) {
        expect(pdfText(pdf, page)).toContain(LABELS[locale].watermark);
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
        const { pdf, path } = await print(
          renderCvHtml({
            document: { ...document, settings: { ...settings, primary_color: '#2563eb' } },
            template: templateOf(slug),
            photo,
            watermark: false,
          }),
        );
        expect(pdfFonts(pdf).filter((font) => !font.embedded)).toEqual([]);
        const extracted = pdfText(pdf);
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
    let origin: string;
    const hits: string[] = [];

    beforeAll(async () => {
      server = createServer((request, response) => {
        hits.push(request.url ?? '');
        response.end('x');
      });
      origin = await loopbackUrl(server);
    });

    afterAll(async () => {
      await closeServer(server);
    });

    it.each(['ar', 'en'] as const)('makes Chromium ask for nothing (%s)', async (locale) => {
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
        const { pdf, requests } = await print(
          renderCvHtml({ document: attack, template: templateOf(slug), photo, watermark: true }),
        );
        expect(requests).toEqual([]);
        expect(pdfText(pdf)).toContain(`${origin}/img`);
      }
      expect(hits).toEqual([]);
    });
  });
});
