import { fullCvPayload } from '../../subgraphs/cv/render/sample-cv';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { HitRecorder } from '../support/hit-recorder';
import { pdfFonts, pdfInfo, pdfText } from '../support/pdf';
import {
  cvCaller,
  newCvAccount,
  platformTemplateId,
  startPlatform,
  type Platform,
} from '../support/platform';
import { awayFromWindowEdge } from '../support/wait';

type Cv = { id: string; links: { self: string; pdf: string; html: string; share: string } };

/** Any way a document could make the browser fetch something, or read a file. */
const HOSTILE = (origin: string) => ({
  script: `<script>document.title='owned'</script>`,
  image: `<img src="${origin}/img.png">`,
  css: `</style><style>body{background:url(${origin}/css.png)}</style>`,
  file: '<img src="file:///etc/passwd">',
  link: `"><link rel="stylesheet" href="${origin}/sheet.css">`,
});

describe('PDF and HTML export, the share page and template previews', () => {
  let database: TestDatabase;
  let platform: Platform;
  let call: ReturnType<typeof cvCaller>;
  const recorder = new HitRecorder();
  let origin: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    platform = await startPlatform(database, { PUBLIC_BASE_URL: 'https://cv.example.test' });
    call = cvCaller(platform);
    origin = await recorder.start();
  });

  afterAll(async () => {
    await platform?.stop();
    await recorder.stop();
    await database.drop();
  });

  const download = async (path: string, key: string | null, headers: Record<string, string> = {}) => {
    const response = await fetch(`${platform.restUrl}${path}`, {
      headers: { ...(key ? { 'x-api-key': key } : {}), ...headers },
    });
    return { response, body: Buffer.from(await response.arrayBuffer()) };
  };

  const newFilledCv = async (plan: string, locale: 'ar' | 'en' = 'ar') => {
    const account = await newCvAccount(platform.config, { plan });
    const created = await call<Cv>('POST', '/cvs', account.key, {
      title: 'سيرة نور',
      locale,
      template_id: await platformTemplateId(database, 'classic'),
    });
    expect((await call('PUT', `/cvs/${created.body.data!.id}`, account.key, fullCvPayload(2))).status).toBe(
      200,
    );
    return { ...account, cv: created.body.data! };
  };

  const usage = async (key: string) =>
    (await call<{ usage: { downloads_this_month: number } }>('GET', '/me', key)).body.data!.usage
      .downloads_this_month;

  it('exports an A4 PDF named after the CV, with its text, embedded fonts and no watermark on a paid plan', async () => {
    const { key, cv } = await newFilledCv('pro');
    const { response, body } = await download(`/cvs/${cv.id}/pdf`, key);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/pdf');
    expect(response.headers.get('content-disposition')).toBe(
      `attachment; filename="cv.pdf"; filename*=UTF-8''${encodeURIComponent(`${fullCvPayload(2).title}.pdf`)}`,
    );
    expect(body.subarray(0, 5).toString()).toBe('%PDF-');
    const info = pdfInfo(body);
    expect(info['Page size']).toMatch(/^59[45]\.\d+ x 841\.\d+ pts \(A4\)$/);
    expect(info.Tagged).toBe('yes');
    expect(info.Title).toBe(fullCvPayload(2).personal.full_name);
    expect(pdfFonts(body).every((font) => font.embedded)).toBe(true);
    const text = pdfText(body);
    expect(text).toContain(fullCvPayload(2).personal.full_name);
    expect(text).toContain('nour@example.com');
    expect(text).not.toMatch(/الخطة المجانية|Free plan/);
    expect(await usage(key)).toBe(1);
    const health = await fetch(`http://127.0.0.1:${platform.config.ports.cv}/healthz`);
    expect(((await health.json()) as { renderer: { jobs: number } }).renderer.jobs).toBeGreaterThanOrEqual(1);
  });

  it('exports one self-contained HTML document that loads nothing from anywhere', async () => {
    const { key, cv } = await newFilledCv('pro');
    const { response, body } = await download(`/cvs/${cv.id}/html`, key);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = body.toString();
    expect(html).toMatch(/^<!doctype html>/i);
    expect(html).toContain('<html lang="ar" dir="rtl"');
    expect(html).toContain(fullCvPayload(2).personal.full_name!);
    // Every src, href, url() and @import points at a data: URI or nowhere.
    const references = [
      ...html.matchAll(/(?:src|href)\s*=\s*["']?([^"'\s>]+)|url\(\s*["']?([^"')]+)|@import/gi),
    ].map((match) => match[1] ?? match[2] ?? match[0]);
    expect(references.filter((reference) => !reference.startsWith('data:'))).toEqual([]);
    expect(await usage(key)).toBe(1);
  });

  it('puts a watermark on every page of a free plan’s PDF and in its HTML', async () => {
    const { key, cv } = await newFilledCv('free');
    await call('PUT', `/cvs/${cv.id}`, key, fullCvPayload(8));
    const { body } = await download(`/cvs/${cv.id}/pdf`, key);
    const pages = Number(pdfInfo(body).Pages);
    expect(pages).toBeGreaterThanOrEqual(2);
    for (let page = 1; page <= pages; page += 1) {
      expect([page, /الخطة المجانية|Free plan/.test(pdfText(body, page))]).toEqual([page, true]);
    }
    const html = (await download(`/cvs/${cv.id}/html`, key)).body.toString();
    expect(html).toMatch(/الخطة المجانية|Free plan/);
  });

  it('never splits an item across two pages', async () => {
    const { key, cv } = await newFilledCv('pro', 'en');
    const experience = Array.from({ length: 24 }, (_, i) => ({
      company: `Company ${i}`,
      position: `Engineer ${i}`,
      start_date: '2015-01',
      end_date: '2016-01',
      description: [
        `BEGIN${i}`,
        ...Array.from({ length: 5 }, () => 'Built and ran systems that many people used.'),
        `END${i}`,
      ].join('\n'),
    }));
    expect((await call('PUT', `/cvs/${cv.id}`, key, { locale: 'en', sections: { experience } })).status).toBe(
      200,
    );
    const { body } = await download(`/cvs/${cv.id}/pdf`, key);
    const pages = Number(pdfInfo(body).Pages);
    expect(pages).toBeGreaterThanOrEqual(3);
    const texts = Array.from({ length: pages }, (_, page) => pdfText(body, page + 1));
    const pageOf = (marker: string) => texts.findIndex((text) => new RegExp(`\\b${marker}\\b`).test(text));
    for (let i = 0; i < experience.length; i += 1) {
      expect([i, pageOf(`BEGIN${i}`) >= 0, pageOf(`BEGIN${i}`)]).toEqual([i, true, pageOf(`END${i}`)]);
    }
  });

  it('refuses exports past the plan’s download_limit with 403 naming it, counting only what was delivered', async () => {
    const { key, cv } = await newFilledCv('free');
    await awayFromWindowEdge(60);
    for (let i = 0; i < 5; i += 1)
      expect((await download(`/cvs/${cv.id}/html`, key)).response.status).toBe(200);
    const refused = await call('GET', `/cvs/${cv.id}/pdf`, key, undefined, { 'accept-language': 'ar' });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({
      message: 'تسمح خطتك بـ 5 من التنزيلات شهرياً. رقِّ خطتك لتنزيل المزيد.',
      errors: {},
    });
    const english = await call('GET', `/cvs/${cv.id}/html`, key);
    expect(english.body.message).toBe(
      'Your plan allows 5 downloads a month. Upgrade your plan to download more.',
    );
    expect(await usage(key)).toBe(5);
  });

  it('answers the eleventh export within a minute with 429 and Retry-After', async () => {
    const { key, cv } = await newFilledCv('pro');
    await awayFromWindowEdge(60);
    for (let i = 0; i < 10; i += 1)
      expect((await download(`/cvs/${cv.id}/html`, key)).response.status).toBe(200);
    const limited = await call('GET', `/cvs/${cv.id}/pdf`, key);
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ message: 'Too many exports: at most 10 a minute.', errors: {} });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await usage(key)).toBe(10);
  });

  it('answers 401 without a key, 404 for an unknown CV and 403 for another account’s', async () => {
    const { cv } = await newFilledCv('pro');
    const other = await newCvAccount(platform.config, { plan: 'pro' });
    for (const format of ['pdf', 'html']) {
      expect((await call('GET', `/cvs/${cv.id}/${format}`, null)).status).toBe(401);
      expect(
        (await call('GET', `/cvs/00000000-0000-4000-8000-000000000000/${format}`, other.key)).status,
      ).toBe(404);
      expect((await call('GET', `/cvs/${cv.id}/${format}`, other.key)).status).toBe(403);
    }
    expect(await usage(other.key)).toBe(0);
  });

  it('serves the share page without a key, out of search engines, and 404 once the CV is deleted', async () => {
    const { key, cv } = await newFilledCv('pro');
    const share = cv.links.share.replace('https://cv.example.test', platform.restUrl.replace('/api/v1', ''));
    const page = await fetch(share);
    expect(page.status).toBe(200);
    expect(page.headers.get('x-robots-tag')).toBe('noindex, nofollow');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(await page.text()).toContain(fullCvPayload(2).personal.full_name!);
    expect(await usage(key)).toBe(0);
    const guessed = await fetch(share.replace(/[A-Za-z0-9_-]{32}$/, 'A'.repeat(32)));
    expect(guessed.status).toBe(404);
    await call('DELETE', `/cvs/${cv.id}`, key);
    const gone = await fetch(share);
    expect(gone.status).toBe(404);
    expect(gone.headers.get('x-robots-tag')).toBe('noindex, nofollow');
  });

  it('previews every template with sample content in Arabic and in English', async () => {
    const { key } = await newCvAccount(platform.config, { plan: 'free' });
    const templates = (await call<{ id: number; preview_url: string }[]>('GET', '/templates', key)).body
      .data!;
    expect(templates.length).toBeGreaterThanOrEqual(6);
    for (const template of templates) {
      const url = template.preview_url.replace(
        'https://cv.example.test',
        platform.restUrl.replace('/api/v1', ''),
      );
      for (const [query, lang] of [
        ['', 'ar'],
        ['?lang=en', 'en'],
      ] as const) {
        const preview = await fetch(`${url}${query}`);
        expect([template.id, lang, preview.status]).toEqual([template.id, lang, 200]);
        expect(await preview.text()).toContain(`<html lang="${lang}"`);
      }
    }
    expect((await fetch(`${platform.restUrl.replace('/api/v1', '')}/templates/999999/preview`)).status).toBe(
      404,
    );
  });

  it('renders hostile field values as text in the PDF, the HTML and the share page, fetching nothing', async () => {
    const { key, cv } = await newFilledCv('pro');
    const hostile = HOSTILE(origin);
    const put = await call('PUT', `/cvs/${cv.id}`, key, {
      personal: {
        full_name: 'Nour Kareem',
        job_title: hostile.script,
        summary: `${hostile.image} ${hostile.css}`,
      },
      sections: {
        skills: [{ name: hostile.file, level: hostile.link }],
        tasks: [{ description: `url(${origin}/task.png) file:///etc/passwd` }],
      },
      custom_sections: [{ key: 'notes', title: hostile.image, content: hostile.css }],
    });
    expect(put.status).toBe(200);
    const pdf = (await download(`/cvs/${cv.id}/pdf`, key)).body;
    const html = (await download(`/cvs/${cv.id}/html`, key)).body.toString();
    const share = await (
      await fetch(cv.links.share.replace('https://cv.example.test', platform.restUrl.replace('/api/v1', '')))
    ).text();
    const text = pdfText(pdf).replace(/\s+/g, ' ');
    expect(text).toContain("<script>document.title='owned'</script>");
    expect(text).toContain('file:///etc/passwd');
    for (const document of [html, share]) {
      expect(document).not.toContain('<script');
      expect(document).not.toContain(`<img src="${origin}`);
      expect(document).not.toContain(`<link rel="stylesheet" href="${origin}`);
      expect(document).toContain('&lt;script&gt;');
    }
    expect(recorder.hits).toEqual([]);
  });
});

describe('a render that cannot finish', () => {
  let database: TestDatabase;
  let platform: Platform;

  beforeAll(async () => {
    database = await createTestDatabase();
    // Nothing prints in a millisecond: every PDF times out.
    platform = await startPlatform(database, { RENDER_TIMEOUT_MS: '1' });
  });

  afterAll(async () => {
    await platform?.stop();
    await database.drop();
  });

  it('answers 503 with Retry-After and does not count the download', async () => {
    const call = cvCaller(platform);
    const { key } = await newCvAccount(platform.config, { plan: 'pro' });
    const created = await call<Cv>('POST', '/cvs', key, {
      title: 'CV',
      locale: 'en',
      template_id: await platformTemplateId(database, 'classic'),
    });
    const failed = await call('GET', `/cvs/${created.body.data!.id}/pdf`, key);
    expect(failed.status).toBe(503);
    expect(failed.body.errors).toEqual({});
    expect(Number(failed.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const me = await call<{ usage: { downloads_this_month: number } }>('GET', '/me', key);
    expect(me.body.data!.usage.downloads_this_month).toBe(0);
    // HTML needs no browser and still works.
    const html = await fetch(`${platform.restUrl}/cvs/${created.body.data!.id}/html`, {
      headers: { 'x-api-key': key },
    });
    expect(html.status).toBe(200);
  });
});
