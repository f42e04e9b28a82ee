import {
  CV_FONT_FAMILIES,
  CV_THEMES,
  SECTION_KEYS,
  type CustomSection,
  type CvDocument,
  type CvItem,
  type SectionKey,
} from '../../../contracts/cv/cv.payload';
import { PHOTO_TYPES as PHOTO_TYPE_LIST } from '../../../contracts/cv/photo.limits';
import { BASE_CSS, designFor, type CvTheme, type Design } from './designs';
import { fontFaceCss, fontNeedsOf, type FontFamily } from './fonts';
import { LABELS, formatDate, formatMonth, safeColour, type CvLabels, type CvLocale } from './format';
import { DATE, MONTH } from '../../../common/patterns';
import { escapeHtml } from '../../../common/html';

/** Everything one rendering of a CV needs; the document is the payload as `GET /cvs/{uuid}` shows it. */
export interface RenderInput {
  document: CvDocument;
  template: { slug: string; layout: string; name: string };
  photo: { type: string; data: Buffer } | null;
  /** Free plan: a visible watermark on every printed page and across the HTML. */
  watermark: boolean;
}

/** The types cvs/photo.ts stores; anything else would be an unknown thing in a data: URI. */
const PHOTO_TYPES = new Set<string>(PHOTO_TYPE_LIST);

interface Context {
  locale: CvLocale;
  dir: 'rtl' | 'ltr';
  labels: CvLabels;
  bdi: (value: string, dir?: 'ltr' | 'rtl') => Html;
  lines: (value: string) => Html;
}

type Html = string;

/** A user value, trimmed; blank is the same as absent. */
function present(value: string | null | undefined): string | null {
  if (typeof value !== 'string') return null;
  const trimmed = value.trim();
  return trimmed === '' ? null : trimmed;
}

const ARABIC_LETTERS = /[\u0600-\u06FF\u0750-\u077F\u08A0-\u08FF\uFB50-\uFDFF\uFE70-\uFEFC]/;

/**
 * User text isolated from its surroundings, so a Latin company name in an Arabic line (or the
 * reverse) keeps its own order and cannot reorder the words around it. `dir` is given only where
 * the value's direction is known whatever its letters (emails, numbers, dates). Arabic in an
 * English CV is tagged as such, which also turns off kerning for it (see BASE_CSS).
 */
function isolate(locale: CvLocale): Context['bdi'] {
  return (value, dir) => {
    const lang = locale === 'en' && ARABIC_LETTERS.test(value) ? ' lang="ar"' : '';
    return `<bdi${dir === undefined ? '' : ` dir="${dir}"`}${lang}>${escapeHtml(value)}</bdi>`;
  };
}

/** Each line isolated on its own, so an English line in an Arabic summary ends its sentence right. */
function linesOf(bdi: Context['bdi']): Context['lines'] {
  return (value) =>
    value
      .split(/\r\n|\r|\n/)
      .map((line) => (line.trim() === '' ? '' : bdi(line.trim())))
      .join('<br>');
}

/** Blank-line separated paragraphs, each kept whole on a page. */
function paragraphs(value: string, className: string, ctx: Context): Html {
  return value
    .split(/(?:\r\n|\r|\n)\s*(?:\r\n|\r|\n)/)
    .map((paragraph) => paragraph.trim())
    .filter((paragraph) => paragraph !== '')
    .map((paragraph) => `<p class="${className} item">${ctx.lines(paragraph)}</p>`)
    .join('');
}

function month(value: string, ctx: Context): Html {
  const datetime = MONTH.test(value) ? ` datetime="${escapeHtml(value)}"` : '';
  return `<time${datetime}>${escapeHtml(formatMonth(value, ctx.locale))}</time>`;
}

/**
 * Dates are isolated in the CV's own direction: their month names are words of its language, so
 * "آذار 2021" reads right to left and "Mar 2021" left to right.
 */
function when(content: Html, ctx: Context): Html {
  return `<p class="when"><bdi dir="${ctx.dir}">${content}</bdi></p>`;
}

function period(start: string | null, end: string | null, isCurrent: boolean, ctx: Context): Html | null {
  const from = start === null ? null : month(start, ctx);
  const to = isCurrent
    ? `<span class="now">${escapeHtml(ctx.labels.present)}</span>`
    : end === null
      ? null
      : month(end, ctx);
  const parts = [from, to].filter((part): part is Html => part !== null);
  return parts.length === 0 ? null : when(parts.join(' – '), ctx);
}

/**
 * A web address as text only: the export promises no external reference of any kind, so not even
 * a link a reader could follow.
 */
function link(value: string, ctx: Context): Html {
  return ctx.bdi(value, 'ltr');
}

function joined(parts: (Html | null)[]): Html | null {
  const kept = parts.filter((part): part is Html => part !== null);
  return kept.length === 0 ? null : kept.join('<span class="sep"> · </span>');
}

interface ItemParts {
  title: Html | null;
  when?: Html | null;
  sub?: (Html | null)[];
  text?: string | null;
  extra?: Html | null;
}

/** One entry of a section, kept whole on a page; its first line stands in for a missing title. */
function item(parts: ItemParts, ctx: Context): Html | null {
  let title = parts.title;
  let sub = (parts.sub ?? []).filter((part): part is Html => part !== null);
  if (title === null && sub.length > 0) [title, ...sub] = sub as [Html, ...Html[]];
  const text = parts.text ?? null;
  const extra = parts.extra ?? null;
  const when = parts.when ?? null;
  if (title === null && text === null && extra === null && when === null) return null;
  const head =
    title === null && when === null
      ? ''
      : `<div class="item-head">${title === null ? '' : `<h3 class="item-title">${title}</h3>`}${when ?? ''}</div>`;
  return (
    `<article class="item">${head}` +
    (sub.length === 0 ? '' : `<p class="item-sub">${joined(sub)}</p>`) +
    (text === null ? '' : `<p class="item-text">${ctx.lines(text)}</p>`) +
    (extra ?? '') +
    `</article>`
  );
}

function optional(value: string | null, render: (value: string) => Html): Html | null {
  return value === null ? null : render(value);
}

type Renderer<S extends SectionKey> = (item: CvItem<S>, ctx: Context) => Html | null;

const RENDERERS: { [S in SectionKey]: Renderer<S> } = {
  experience: (entry, ctx) =>
    item(
      {
        title: optional(present(entry.position), ctx.bdi),
        when: period(present(entry.start_date), present(entry.end_date), entry.is_current, ctx),
        sub: [optional(present(entry.company), ctx.bdi), optional(present(entry.location), ctx.bdi)],
        text: present(entry.description),
      },
      ctx,
    ),
  education: (entry, ctx) => {
    const gpa = present(entry.gpa);
    return item(
      {
        title: joined([
          optional(present(entry.degree), ctx.bdi),
          optional(present(entry.field_of_study), ctx.bdi),
        ]),
        when:
          gpa === null
            ? null
            : `<p class="when">${escapeHtml(ctx.labels.gpa)} <bdi dir="ltr">${escapeHtml(gpa)}</bdi></p>`,
        sub: [optional(present(entry.institution), ctx.bdi)],
      },
      ctx,
    );
  },
  skills: (entry, ctx) => pair(present(entry.name), present(entry.level), ctx),
  languages: (entry, ctx) => pair(present(entry.name), present(entry.level), ctx),
  certifications: (entry, ctx) =>
    item(
      {
        title: optional(present(entry.name), ctx.bdi),
        when: optional(present(entry.issue_date), (date) => when(month(date, ctx), ctx)),
        sub: [optional(present(entry.issuer), ctx.bdi)],
        extra: optional(present(entry.url), (url) => `<p class="item-link">${link(url, ctx)}</p>`),
      },
      ctx,
    ),
  projects: (entry, ctx) =>
    item(
      {
        title: optional(present(entry.name), ctx.bdi),
        text: present(entry.description),
        extra: optional(present(entry.url), (url) => `<p class="item-link">${link(url, ctx)}</p>`),
      },
      ctx,
    ),
  awards: (entry, ctx) =>
    item(
      {
        title: optional(present(entry.title), ctx.bdi),
        when: optional(present(entry.date), (date) => when(month(date, ctx), ctx)),
        sub: [optional(present(entry.issuer), ctx.bdi)],
        text: present(entry.description),
      },
      ctx,
    ),
  volunteers: (entry, ctx) =>
    item(
      {
        title: optional(present(entry.role), ctx.bdi),
        sub: [optional(present(entry.organization), ctx.bdi)],
        text: present(entry.description),
      },
      ctx,
    ),
  references: (entry, ctx) => {
    const reach = [
      optional(present(entry.email), (email) => ctx.bdi(email, 'ltr')),
      optional(present(entry.phone), (phone) => ctx.bdi(phone, 'ltr')),
    ].filter((line): line is Html => line !== null);
    return item(
      {
        title: optional(present(entry.name), ctx.bdi),
        sub: [optional(present(entry.position), ctx.bdi), optional(present(entry.company), ctx.bdi)],
        extra: reach.length === 0 ? null : `<p class="contact-line">${reach.join('<br>')}</p>`,
      },
      ctx,
    );
  },
  tasks: (entry, ctx) => bullet(present(entry.description), ctx),
  expertise: (entry, ctx) => bullet(present(entry.description), ctx),
};

/** A skill or language beside its level. */
function pair(name: string | null, level: string | null, ctx: Context): Html | null {
  if (name === null && level === null) return null;
  return (
    `<li class="item pair"><span class="pair-name">${name === null ? '' : ctx.bdi(name)}</span>` +
    `${level === null ? '' : `<span class="level">${ctx.bdi(level)}</span>`}</li>`
  );
}

function bullet(text: string | null, ctx: Context): Html | null {
  return text === null ? null : `<li class="item">${ctx.lines(text)}</li>`;
}

const LIST_CLASS: Partial<Record<SectionKey, { tag: 'ul' | 'div'; className: string }>> = {
  skills: { tag: 'ul', className: 'pairs' },
  languages: { tag: 'ul', className: 'pairs' },
  tasks: { tag: 'ul', className: 'bullets' },
  expertise: { tag: 'ul', className: 'bullets' },
  references: { tag: 'div', className: 'refs' },
};

function section(attribute: string, key: string, heading: Html, body: Html): Html {
  return `<section class="section" ${attribute}="${escapeHtml(key)}"><h2>${heading}</h2>${body}</section>`;
}

function builtInSection<S extends SectionKey>(key: S, items: CvItem<S>[], ctx: Context): Html | null {
  const render = RENDERERS[key] as Renderer<S>;
  const rendered = items.map((entry) => render(entry, ctx)).filter((html): html is Html => html !== null);
  if (rendered.length === 0) return null;
  const list = LIST_CLASS[key];
  const body =
    list === undefined
      ? rendered.join('')
      : `<${list.tag} class="${list.className}">${rendered.join('')}</${list.tag}>`;
  return section('data-section', key, escapeHtml(ctx.labels.sections[key]), body);
}

function customSection(custom: CustomSection, ctx: Context): Html | null {
  const content = present(custom.content);
  if (content === null) return null;
  return section('data-section', custom.key, ctx.bdi(custom.title), paragraphs(content, 'item-text', ctx));
}

/**
 * The section keys in display order: those of section_order first (unknown keys ignored), then
 * built-in sections it leaves out in their usual order, then custom sections it leaves out;
 * hidden sections are dropped.
 */
export function sectionKeysInOrder(document: CvDocument): string[] {
  const custom = new Set(document.custom_sections.map((entry) => entry.key));
  const builtIn = new Set<string>(SECTION_KEYS);
  const hidden = new Set(document.hidden_sections);
  const order: string[] = [];
  for (const key of [...document.section_order, ...SECTION_KEYS, ...custom]) {
    if ((builtIn.has(key) || custom.has(key)) && !order.includes(key)) order.push(key);
  }
  return order.filter((key) => !hidden.has(key));
}

function isSectionKey(key: string): key is SectionKey {
  return (SECTION_KEYS as readonly string[]).includes(key);
}

interface ContactLine {
  kind: string;
  label: string;
  value: Html;
}

function contactLines(document: CvDocument, ctx: Context): ContactLine[] {
  const { personal } = document;
  const { labels } = ctx;
  const birth = present(personal.birth_date);
  const candidates: [string, string, Html | null][] = [
    ['email', labels.email, optional(present(personal.email), (email) => ctx.bdi(email, 'ltr'))],
    ['phone', labels.phone, optional(present(personal.phone), (phone) => ctx.bdi(phone, 'ltr'))],
    ['website', labels.website, optional(present(personal.website), (url) => link(url, ctx))],
    ['address', labels.address, optional(present(personal.address), ctx.lines)],
    ['nationality', labels.nationality, optional(present(personal.nationality), ctx.bdi)],
    [
      'birth_date',
      labels.birthDate,
      birth === null
        ? null
        : `<bdi dir="${ctx.dir}"><time${DATE.test(birth) ? ` datetime="${escapeHtml(birth)}"` : ''}>` +
          `${escapeHtml(formatDate(birth, ctx.locale))}</time></bdi>`,
    ],
  ];
  return candidates
    .filter((entry): entry is [string, string, Html] => entry[2] !== null)
    .map(([kind, label, value]) => ({ kind, label, value }));
}

function headerContact(contact: ContactLine[]): Html {
  if (contact.length === 0) return '';
  const entries = contact.map(
    (line) =>
      `<li data-kind="${line.kind}"><span class="label">${escapeHtml(line.label)}</span>${line.value}</li>`,
  );
  return `<ul class="contact">${entries.join('')}</ul>`;
}

function asideContact(heading: string, lines: ContactLine[]): Html | null {
  if (lines.length === 0) return null;
  const entries = lines.map(
    (line) => `<div data-kind="${line.kind}"><dt>${escapeHtml(line.label)}</dt><dd>${line.value}</dd></div>`,
  );
  return section('data-block', 'contact', escapeHtml(heading), `<dl class="facts">${entries.join('')}</dl>`);
}

function photoHtml(photo: RenderInput['photo'], alt: string): Html | null {
  if (photo === null || !PHOTO_TYPES.has(photo.type) || photo.data.length === 0) return null;
  return `<img class="photo" src="data:${photo.type};base64,${photo.data.toString('base64')}" alt="${escapeHtml(alt)}">`;
}

function pick<T extends string>(value: string | undefined, allowed: readonly T[], fallback: T): T {
  return (allowed as readonly string[]).includes(value ?? '') ? (value as T) : fallback;
}

function contextOf(locale: CvLocale): Context {
  const bdi = isolate(locale);
  return { locale, dir: locale === 'ar' ? 'rtl' : 'ltr', labels: LABELS[locale], bdi, lines: linesOf(bdi) };
}

/** The summary and each shown section in order, each in the main story or in the design's aside. */
function storyParts(document: CvDocument, design: Design, ctx: Context): { main: Html[]; aside: Html[] } {
  const summary = present(document.personal.summary);
  const customs = new Map(document.custom_sections.map((entry) => [entry.key, entry]));
  const asideKeys = new Set<string>(design.asideSections);
  const main: Html[] = [];
  const aside: Html[] = [];
  if (summary !== null) {
    main.push(
      section(
        'data-block',
        'summary',
        escapeHtml(ctx.labels.summary),
        `<p class="summary item">${ctx.lines(summary)}</p>`,
      ),
    );
  }
  for (const key of sectionKeysInOrder(document)) {
    const custom = customs.get(key);
    const html = isSectionKey(key)
      ? builtInSection(key, document.sections[key] ?? [], ctx)
      : custom === undefined
        ? null
        : customSection(custom, ctx);
    if (html === null) continue;
    (asideKeys.has(key) ? aside : main).push(html);
  }
  return { main, aside };
}

/** What the header shows of the person, and where the design puts their photo and contact lines. */
interface Identity {
  /** The name, or the CV's title without one. */
  heading: string;
  jobTitle: string | null;
  photo: Html | null;
  contact: ContactLine[];
}

function headerHtml(design: Design, ctx: Context, { heading, jobTitle, photo, contact }: Identity): Html {
  return (
    `<header class="head">${design.photoIn === 'header' && photo !== null ? photo : ''}` +
    `<div class="identity"><h1 class="name">${ctx.bdi(heading)}</h1>` +
    `${jobTitle === null ? '' : `<p class="role">${ctx.bdi(jobTitle)}</p>`}` +
    `${design.contactIn === 'header' ? headerContact(contact) : ''}</div></header>`
  );
}

/** A free plan's mark: diagonal across each page, and in words at its foot. */
function watermarkHtml(ctx: Context): Html {
  return (
    `<div class="watermark" aria-hidden="true"><span>${escapeHtml(ctx.labels.watermark)}</span></div>` +
    `<p class="watermark-line">${escapeHtml(ctx.labels.watermark)}</p>`
  );
}

/**
 * The CV as one self-contained HTML5 document: PDF export (Chromium prints it), HTML export, the
 * share page and template previews are all this. Nothing in it refers outside itself: fonts and
 * photo are data: URIs, every user value is escaped, and the only user value in CSS is a colour
 * that passed a strict pattern.
 */
export function renderCvHtml(input: RenderInput): string {
  const { document } = input;
  const locale: CvLocale = document.locale === 'ar' ? 'ar' : 'en';
  const design = designFor(input.template);
  const ctx = contextOf(locale);
  const settings = document.settings ?? {};
  const accent = safeColour(settings.primary_color) ?? design.defaults.primaryColor;
  const theme = pick<CvTheme>(settings.theme, CV_THEMES, design.defaults.theme);
  const family = pick<FontFamily>(settings.font_family, CV_FONT_FAMILIES, design.defaults.fontFamily);

  const heading = present(document.personal.full_name) ?? present(document.title) ?? '';
  const contact = contactLines(document, ctx);
  const photo = photoHtml(input.photo, heading);
  const story = storyParts(document, design, ctx);
  const jobTitle = present(document.personal.job_title);
  const header = headerHtml(design, ctx, { heading, jobTitle, photo, contact });
  const asideContent = [
    design.photoIn === 'aside' ? photo : null,
    design.contactIn === 'aside' ? asideContact(ctx.labels.contact, contact) : null,
    ...story.aside,
  ].filter((part): part is Html => part !== null);
  const body =
    `<main class="main">${story.main.join('')}</main>` +
    (design.aside !== 'none' && asideContent.length > 0
      ? `<aside class="side">${asideContent.join('')}</aside>`
      : '');
  const sheet =
    `<div class="sheet"><div class="backdrop" aria-hidden="true"><div class="side-fill"></div>` +
    `<div class="strip"></div></div>${header}${body}</div>${input.watermark ? watermarkHtml(ctx) : ''}`;

  const fonts = fontFaceCss(fontNeedsOf(family, locale, `${heading}${sheet}`));
  return (
    `<!DOCTYPE html>\n<html lang="${locale}" dir="${ctx.dir}" data-design="${design.slug}" ` +
    `data-theme="${theme}" data-aside="${design.aside}">\n<head>\n<meta charset="utf-8">\n` +
    `<meta name="viewport" content="width=device-width, initial-scale=1">\n` +
    `<title>${escapeHtml(heading)}</title>\n<style>\n${fonts}\n</style>\n` +
    `<style>${BASE_CSS}${design.css}:root{--accent:${accent}}\n</style>\n</head>\n` +
    `<body>${sheet}</body>\n</html>\n`
  );
}
