import { readFileSync } from 'node:fs';
import { SECTION_KEYS, completeItem, type CvDocument } from '../../../contracts/cv/cv.payload';
import { fullCvPayload, sampleCvDocument } from './sample-cv';
import { DESIGNS, DESIGN_SLUGS, designFor, type DesignSlug } from './designs';
import { renderCvHtml, sectionKeysInOrder, type RenderInput } from './document';
import { formatDate, formatMonth } from './format';

const LOCALES = ['ar', 'en'] as const;
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

function templateOf(slug: DesignSlug): RenderInput['template'] {
  return { slug, layout: DESIGNS[slug].layout, name: slug };
}

function arabicCv(): CvDocument {
  return fullCvPayload(2);
}

function render(document: CvDocument, overrides: Partial<Omit<RenderInput, 'document'>> = {}): string {
  return renderCvHtml({
    document,
    template: templateOf('classic'),
    photo: null,
    watermark: false,
    ...overrides,
  });
}

/** Tag names in order of appearance, closing tags left out. */
function tags(html: string): string[] {
  return [...html.matchAll(/<([a-zA-Z][a-zA-Z0-9-]*)/g)].map((match) => match[1]!.toLowerCase());
}

function attributeNames(html: string): string[] {
  const names: string[] = [];
  for (const [tag] of html.matchAll(/<[a-zA-Z][^>]*>/g)) {
    for (const match of tag.matchAll(/\s([^\s=/>]+)(?:="[^"]*")?/g)) names.push(match[1]!.toLowerCase());
  }
  return names;
}

/** What each h2 belongs to: a section key, or a block (summary, contact). */
function headings(html: string): string[] {
  return [...html.matchAll(/<section class="section" data-(section|block)="([^"]*)"><h2>/g)].map(
    (match) => match[2]!,
  );
}

function between(html: string, start: string, end: string): string {
  const from = html.indexOf(start);
  if (from < 0) return '';
  return html.slice(from, html.indexOf(end, from) + end.length);
}

/** The sections a design shows, main story first, then the second column. */
function expectedHeadings(document: CvDocument, slug: DesignSlug): string[] {
  const design = DESIGNS[slug];
  const shown = sectionKeysInOrder(document).filter((key) => {
    if ((SECTION_KEYS as readonly string[]).includes(key)) {
      const items = document.sections[key as (typeof SECTION_KEYS)[number]] as object[];
      return items.some((entry) => Object.values(entry).some((value) => typeof value === 'string'));
    }
    return (document.custom_sections.find((entry) => entry.key === key)?.content ?? '') !== '';
  });
  const aside = new Set<string>(design.asideSections);
  const main = ['summary', ...shown.filter((key) => !aside.has(key))];
  if (design.aside === 'none') return main;
  return [
    ...main,
    ...(design.contactIn === 'aside' ? ['contact'] : []),
    ...shown.filter((key) => aside.has(key)),
  ];
}

/** Every place in the markup that could make a reader fetch or follow something, data: URIs aside. */
function externalReferences(html: string): string[] {
  const withoutData = html.replace(/data:[a-z0-9/+.-]+;base64,[A-Za-z0-9+/=]+/g, 'data:');
  const markup: string[] = [];
  for (const [style] of withoutData.matchAll(/<style>[\s\S]*?<\/style>/g)) markup.push(style);
  for (const [tag] of withoutData.matchAll(/<[a-zA-Z][^>]*>/g)) markup.push(tag);
  const references = markup.flatMap((part) =>
    [
      ...part.matchAll(/https?:|\/\/|file:|ftp:|javascript:|@import|url\((?!data:)|<link|srcset|<script/gi),
    ].map((match) => match[0]),
  );
  return references;
}

/** What the renderer itself writes; a hostile value must not add to either list. */
const ELEMENTS = [
  'html',
  'head',
  'meta',
  'title',
  'style',
  'body',
  'div',
  'header',
  'main',
  'aside',
  'section',
  'article',
  'h1',
  'h2',
  'h3',
  'p',
  'ul',
  'li',
  'dl',
  'dt',
  'dd',
  'span',
  'bdi',
  'time',
  'br',
  'a',
  'img',
];
const ATTRIBUTES = [
  'lang',
  'dir',
  'data-design',
  'data-theme',
  'data-aside',
  'charset',
  'name',
  'content',
  'class',
  'aria-hidden',
  'data-section',
  'data-block',
  'data-kind',
  'datetime',
  'src',
  'alt',
];

const HOSTILE = [
  '<script>alert(1)</script>',
  '<img src="http://127.0.0.1:9/x">',
  'url(http://127.0.0.1/x)',
  'file:///etc/passwd',
  '"><style>*{}</style>',
  "'><iframe src=//127.0.0.1:9/>",
  '@import "http://127.0.0.1:9/x.css";',
];

/** A CV with a hostile value in every text field, cycling through the list above. */
function hostileCv(locale: 'ar' | 'en'): CvDocument {
  let next = 0;
  const hostile = () => HOSTILE[next++ % HOSTILE.length]!;
  const poison = <T extends object>(entry: T): T =>
    Object.fromEntries(
      Object.entries(entry).map(([key, value]) => [key, typeof value === 'string' ? hostile() : value]),
    ) as T;
  const base = arabicCv();
  return {
    ...base,
    locale,
    title: hostile(),
    personal: poison(base.personal),
    sections: Object.fromEntries(
      SECTION_KEYS.map((key) => [key, (base.sections[key] as object[]).map(poison)]),
    ) as CvDocument['sections'],
    section_order: [],
    hidden_sections: [],
    custom_sections: [{ key: 'extra', title: hostile(), content: hostile() }],
  };
}

describe('renderCvHtml', () => {
  describe.each(DESIGN_SLUGS)('the %s design', (slug) => {
    it.each(LOCALES)('in %s: direction, one h1, an h2 per shown section in order', (locale) => {
      const document = sampleCvDocument(locale);
      const html = renderCvHtml({ document, template: templateOf(slug), photo: null, watermark: false });

      expect(html.startsWith('<!DOCTYPE html>\n<html lang=')).toBe(true);
      expect(html).toContain(`<html lang="${locale}" dir="${locale === 'ar' ? 'rtl' : 'ltr'}"`);
      expect(html).toContain(`data-design="${slug}"`);
      expect(tags(html).filter((tag) => tag === 'h1')).toHaveLength(1);
      expect(html).toContain(`<h1 class="name"><bdi>${document.personal.full_name!}</bdi></h1>`);
      expect(headings(html)).toEqual(expectedHeadings(document, slug));
      expect(tags(html).filter((tag) => tag === 'h2')).toHaveLength(headings(html).length);
      expect(externalReferences(html)).toEqual([]);
    });

    it('falls back to its own defaults when the settings are missing or unknown', () => {
      const document = { ...sampleCvDocument('en'), settings: { theme: 'neon', font_family: 'comic' } };
      const html = renderCvHtml({ document, template: templateOf(slug), photo: null, watermark: false });

      expect(html).toContain(`data-theme="${DESIGNS[slug].defaults.theme}"`);
      expect(html).toContain(`:root{--accent:${DESIGNS[slug].defaults.primaryColor}}`);
    });
  });

  it('draws a company template with the platform design of its layout', () => {
    expect(designFor({ slug: 'acme-cv', layout: 'single-column' }).slug).toBe('classic');
    expect(designFor({ slug: 'acme-cv', layout: 'two-column' }).slug).toBe('executive');
    expect(designFor({ slug: 'acme-cv', layout: 'sidebar' }).slug).toBe('sidebar');
    expect(designFor({ slug: 'studio', layout: 'single-column' }).slug).toBe('classic');
    expect(designFor({ slug: 'constructor', layout: 'toString' }).slug).toBe('classic');
  });

  it('puts the main story before the sidebar in the source, with contact and skills beside it', () => {
    for (const slug of ['sidebar', 'studio', 'executive'] as const) {
      const html = renderCvHtml({
        document: sampleCvDocument('en'),
        template: templateOf(slug),
        photo: null,
        watermark: false,
      });
      const main = html.indexOf('<main');
      const aside = html.indexOf('<aside');
      expect(main).toBeGreaterThan(html.indexOf('<h1'));
      expect(aside).toBeGreaterThan(html.indexOf('</main>'));
      expect(html.indexOf('data-section="experience"')).toBeLessThan(aside);
      expect(html.indexOf('data-section="skills"')).toBeGreaterThan(aside);
      expect(html.indexOf('data-section="languages"')).toBeGreaterThan(aside);
    }
  });

  it('follows section_order, then the other built-in sections, then the other custom ones', () => {
    const document: CvDocument = {
      ...sampleCvDocument('en'),
      section_order: ['publications', 'unknown', 'skills', 'experience'],
      hidden_sections: ['education', 'tasks'],
      custom_sections: [
        { key: 'hobbies', title: 'Hobbies', content: 'Chess' },
        { key: 'publications', title: 'Publications', content: 'A paper' },
        { key: 'empty', title: 'Nothing here', content: '  ' },
      ],
    };
    document.sections.awards = [];
    document.sections.volunteers = [completeItem('volunteers', {})];

    expect(headings(render(document))).toEqual([
      'summary',
      'publications',
      'skills',
      'experience',
      'languages',
      'certifications',
      'projects',
      'references',
      'expertise',
      'hobbies',
    ]);
    expect(render(document)).not.toContain('Nothing here');
  });

  it('names each section in the language of the CV', () => {
    const arabic = render(arabicCv());
    expect(arabic).toContain('<h2>الخبرة العملية</h2>');
    expect(arabic).toContain('<h2><bdi>المنشورات</bdi></h2>');
    expect(render(sampleCvDocument('en'))).toContain('<h2>Experience</h2>');
  });

  it('shows every field of an experience, with "present" and the line breaks of the description', () => {
    const document = arabicCv();
    document.sections.experience = [
      completeItem('experience', {
        company: 'Zain Iraq',
        position: 'مهندسة برمجيات',
        location: 'بغداد',
        description: 'السطر الأول\nSecond line.',
        start_date: '2021-03',
        is_current: true,
      }),
    ];
    const section = between(render(document), 'data-section="experience"', '</section>');

    expect(section).toContain('<h3 class="item-title"><bdi>مهندسة برمجيات</bdi></h3>');
    expect(section).toContain(
      '<p class="when"><bdi dir="rtl"><time datetime="2021-03">آذار 2021</time> – <span class="now">حتى الآن</span></bdi></p>',
    );
    expect(section).toContain('<bdi>Zain Iraq</bdi>');
    expect(section).toContain('<bdi>السطر الأول</bdi><br><bdi>Second line.</bdi>');
  });

  it('isolates emails, phones and addresses left to right and dates in the CV direction', () => {
    const html = render({ ...arabicCv(), hidden_sections: [] });

    expect(html).toContain('<bdi dir="ltr">nour@example.com</bdi>');
    expect(html).toContain('<bdi dir="ltr">+9647701234567</bdi>');
    expect(html).toContain('<bdi dir="ltr">https://nour.example.com</bdi>');
    expect(html).toContain('<bdi dir="rtl"><time datetime="1990-04-17">17 نيسان 1990</time></bdi>');
    expect(html).toContain('<bdi dir="ltr">ref0@example.com</bdi>');
  });

  it('formats months and dates from fixed tables with Latin digits', () => {
    expect(formatMonth('2021-03', 'ar')).toBe('آذار 2021');
    expect(formatMonth('2021-03', 'en')).toBe('Mar 2021');
    expect(formatMonth('2020-01', 'ar')).toBe('كانون الثاني 2020');
    expect(formatMonth('2020-12', 'ar')).toBe('كانون الأول 2020');
    expect(formatMonth('2020-10', 'ar')).toBe('تشرين الأول 2020');
    expect(formatDate('1990-04-17', 'ar')).toBe('17 نيسان 1990');
    expect(formatDate('1990-04-17', 'en')).toBe('17 Apr 1990');
    expect(formatDate('1990-04-07', 'en')).toBe('7 Apr 1990');

    const html = render(sampleCvDocument('en'));
    expect(html).toContain('<time datetime="2021-03">Mar 2021</time> – <span class="now">Present</span>');
    expect(html).toContain('<time datetime="1990-04-17">17 Apr 1990</time>');
    for (const locale of LOCALES) {
      const times = [...render(sampleCvDocument(locale)).matchAll(/<time[^>]*>([^<]*)<\/time>/g)];
      expect(times.length).toBeGreaterThan(5);
      for (const [, text] of times) expect(text).toMatch(/^[^\u0660-\u0669\u06f0-\u06f9]* [0-9]{4}$/);
    }
  });

  it('shows skills and languages with their levels, and certification addresses as text', () => {
    const html = render(sampleCvDocument('en'));

    expect(html).toContain(
      '<li class="item pair"><span class="pair-name"><bdi>TypeScript</bdi></span><span class="level"><bdi>Expert</bdi></span></li>',
    );
    expect(html).toContain('<bdi>Kurdish</bdi></span><span class="level"><bdi>Conversational</bdi>');
    expect(html).toContain('<bdi dir="ltr">https://certs.example.com/cka</bdi>');
  });

  it('draws a watermark on every page of a free plan, and none otherwise', () => {
    const free = render(sampleCvDocument('en'), { watermark: true });
    expect(free).toContain('<div class="watermark" aria-hidden="true"><span>Free plan</span></div>');
    expect(free).toContain('<p class="watermark-line">Free plan</p>');
    expect(free).toMatch(/\.watermark\{position:fixed;/);
    expect(render(arabicCv(), { watermark: true })).toContain('<span>الخطة المجانية</span>');

    const paid = render(sampleCvDocument('en'));
    expect(paid).not.toContain('class="watermark');
    expect(paid).not.toContain('Free plan');
  });

  it('embeds the photo as a data: URI described by the name, and refuses an unknown type', () => {
    const html = render(sampleCvDocument('en'), { photo: { type: 'image/png', data: PNG } });
    expect(html).toContain(
      `<img class="photo" src="data:image/png;base64,${PNG.toString('base64')}" alt="Layla Hassan">`,
    );
    expect(tags(html).filter((tag) => tag === 'img')).toHaveLength(1);

    for (const slug of DESIGN_SLUGS) {
      const withPhoto = renderCvHtml({
        document: arabicCv(),
        template: templateOf(slug),
        photo: { type: 'image/jpeg', data: PNG },
        watermark: false,
      });
      expect(withPhoto).toContain('alt="نور كريم الساعدي"');
    }
    const svg = render(sampleCvDocument('en'), {
      photo: { type: 'image/svg+xml', data: Buffer.from('<svg onload="alert(1)"/>') },
    });
    expect(svg).not.toContain('<img');
  });

  it('applies a valid colour, theme and font family, and refuses a hostile colour', () => {
    const fontOf = (file: string) =>
      readFileSync(require.resolve(`@fontsource/${file}`))
        .toString('base64')
        .slice(0, 400);
    const document = {
      ...sampleCvDocument('en'),
      settings: { primary_color: '#A1b2C3', theme: 'dark', font_family: 'serif' },
    };
    const html = render(document);
    expect(html).toContain(':root{--accent:#A1b2C3}');
    expect(html).toContain('data-theme="dark"');
    expect(html).toContain(fontOf('noto-serif/files/noto-serif-latin-700-normal.woff2'));
    expect(html).not.toContain(fontOf('noto-sans/files/noto-sans-latin-400-normal.woff2'));
    // An English CV without Arabic text carries no Arabic face; an Arabic one always does.
    expect(html).not.toContain(fontOf('amiri/files/amiri-arabic-400-normal.woff2'));
    expect(render(arabicCv())).toContain(fontOf('amiri/files/amiri-arabic-700-normal.woff2'));

    for (const colour of [
      'red',
      '#12345g',
      '#fff;background:url(http://127.0.0.1:9/x)',
      '#fff}</style><script>alert(1)</script>',
    ]) {
      const hostile = render({ ...document, settings: { ...document.settings, primary_color: colour } });
      expect(hostile.match(/--accent:[^;}]*/g)).toEqual(['--accent:#1f4e79']);
      expect(tags(hostile)).not.toContain('script');
      expect(externalReferences(hostile)).toEqual([]);
    }
  });

  it('declares A4 print with backgrounds, items kept whole and headings kept with their first item', () => {
    const html = render(sampleCvDocument('en'));
    expect(html).toContain('@page{size:A4;margin:0}');
    expect(html).toContain('-webkit-print-color-adjust:exact;print-color-adjust:exact');
    expect(html).toContain('.item{break-inside:avoid;');
    expect(html).toMatch(/\nh2\{[^}]*break-after:avoid/);
    expect(html).toMatch(/@font-face\{font-family:'CV Text';font-style:normal;font-weight:700;/);
    expect(html).toMatch(/unicode-range:U\+0000-00FF/);
  });

  it('titles the document with the name, or the CV title without one', () => {
    expect(render(arabicCv())).toContain('<title>نور كريم الساعدي</title>');
    const nameless = { ...sampleCvDocument('en'), title: 'My CV & more' };
    nameless.personal = { ...nameless.personal, full_name: null };
    const html = render(nameless);
    expect(html).toContain('<title>My CV &amp; more</title>');
    expect(html).toContain('<h1 class="name"><bdi>My CV &amp; more</bdi></h1>');
  });

  describe.each(LOCALES)('with a hostile value in every field (%s)', (locale) => {
    it.each(DESIGN_SLUGS)('%s shows them as text and adds no element, attribute or reference', (slug) => {
      const html = renderCvHtml({
        document: hostileCv(locale),
        template: templateOf(slug),
        photo: null,
        watermark: true,
      });

      for (const tag of tags(html)) expect(ELEMENTS).toContain(tag);
      for (const name of attributeNames(html)) expect(ATTRIBUTES).toContain(name);
      expect(tags(html)).not.toContain('script');
      expect(tags(html)).not.toContain('img');
      expect(tags(html)).not.toContain('iframe');
      expect(tags(html).filter((tag) => tag === 'style')).toHaveLength(2);
      expect(externalReferences(html)).toEqual([]);
      expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
      expect(html).toContain('&lt;img src=&quot;http://127.0.0.1:9/x&quot;&gt;');
      expect(html).toContain('&quot;&gt;&lt;style&gt;*{}&lt;/style&gt;');
      expect(html).toContain('file:///etc/passwd');
      expect(html).toMatch(/<title>[^<]*&lt;img src=&quot;http:\/\/127.0.0.1:9\/x&quot;&gt;<\/title>/);
    });
  });

  it('shows web addresses as text, never as a link or any other reference', () => {
    const html = render(arabicCv());
    expect(externalReferences(html)).toEqual([]);
    expect(html).not.toContain('<a ');
    expect(html).toContain('<bdi dir="ltr">https://certs.example.com/0</bdi>');
  });
});
