import { z } from 'zod';
import { DATE as DATE_PATTERN, MONTH as MONTH_PATTERN } from '../../common/patterns';
import { rule } from '../../common/validation';

/**
 * The CV payload of cv-api.md: one table of fields, from which the request schema (REST and the
 * graph validate with the same one), the GraphQL types and the OpenAPI description are built, so
 * a limit written here holds everywhere. Keys are the document's snake_case; that is also how
 * the payload is stored.
 */

/** The sections of cv-api.md, in the order a new CV shows them. */
export const SECTION_KEYS = [
  'experience',
  'education',
  'skills',
  'languages',
  'certifications',
  'projects',
  'awards',
  'volunteers',
  'references',
  'tasks',
  'expertise',
] as const;
export type SectionKey = (typeof SECTION_KEYS)[number];

/** Visual variants a template may offer; docs/API-DECISIONS.md lists what each means. */
export const CV_THEMES = ['light', 'dark', 'dark-header', 'colour-sidebar'] as const;
/**
 * Bundled type families. Arabic is always set in Amiri, the one bundled Arabic face whose text
 * comes back out of a PDF as written (docs/API-DECISIONS.md); the family chooses the Latin face
 * and the headings beside it.
 */
export const CV_FONT_FAMILIES = ['naskh', 'sans', 'serif'] as const;

export const TITLE_MAX = 255;
export const ITEMS_PER_SECTION_MAX = 100;
export const CUSTOM_SECTIONS_MAX = 20;

export type FieldKind =
  | { type: 'text'; max: number }
  | { type: 'email' }
  | { type: 'url' }
  | { type: 'month' }
  | { type: 'date' }
  | { type: 'boolean' }
  | { type: 'color' }
  | { type: 'enum'; values: readonly string[] };

const text = (max: number) => ({ type: 'text', max }) as const;
const LINE = text(255);
const LONG = text(5000);
const EMAIL = { type: 'email' } as const;
const URL_FIELD = { type: 'url' } as const;
const MONTH = { type: 'month' } as const;

export const PERSONAL_FIELDS = {
  full_name: LINE,
  job_title: LINE,
  summary: LONG,
  email: EMAIL,
  phone: text(50),
  website: URL_FIELD,
  address: text(500),
  nationality: text(100),
  birth_date: { type: 'date' },
} as const satisfies Record<string, FieldKind>;

export const SETTINGS_FIELDS = {
  primary_color: { type: 'color' },
  theme: { type: 'enum', values: CV_THEMES },
  font_family: { type: 'enum', values: CV_FONT_FAMILIES },
} as const satisfies Record<string, FieldKind>;

export const SECTION_FIELDS = {
  experience: {
    company: LINE,
    position: LINE,
    location: LINE,
    description: LONG,
    start_date: MONTH,
    end_date: MONTH,
    is_current: { type: 'boolean' },
  },
  education: { institution: LINE, degree: LINE, field_of_study: LINE, gpa: text(20) },
  skills: { name: LINE, level: text(100) },
  languages: { name: LINE, level: text(100) },
  certifications: { name: LINE, issuer: LINE, url: URL_FIELD, issue_date: MONTH },
  projects: { name: LINE, description: LONG, url: URL_FIELD },
  awards: { title: LINE, issuer: LINE, description: LONG, date: MONTH },
  volunteers: { organization: LINE, role: LINE, description: LONG },
  references: { name: LINE, position: LINE, company: LINE, email: EMAIL, phone: text(50) },
  tasks: { description: LONG },
  expertise: { description: LONG },
} as const satisfies Record<SectionKey, Record<string, FieldKind>>;

export const CUSTOM_SECTION_FIELDS = {
  key: text(64),
  title: LINE,
  content: text(10000),
} as const;

type ValueOf<K extends FieldKind> = K extends { type: 'boolean' } ? boolean : string | null;
type Row<F extends Record<string, FieldKind>> = { [P in keyof F]: ValueOf<F[P]> };

export type CvPersonal = Row<typeof PERSONAL_FIELDS>;
export type CvSettings = Partial<Record<keyof typeof SETTINGS_FIELDS, string>>;
export type CvItem<S extends SectionKey = SectionKey> = Row<(typeof SECTION_FIELDS)[S]>;
export type CvSections = { [S in SectionKey]: CvItem<S>[] };
export interface CustomSection {
  key: string;
  title: string;
  content: string | null;
}

/** The whole payload as GET shows it and PUT takes it back. */
export interface CvDocument {
  title: string;
  locale: 'ar' | 'en';
  personal: CvPersonal;
  settings: CvSettings;
  section_order: string[];
  hidden_sections: string[];
  sections: CvSections;
  custom_sections: CustomSection[];
}

const CUSTOM_KEY_PATTERN = /^[a-z0-9]+([_-][a-z0-9]+)*$/;

function isRealDate(value: string): boolean {
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(value);
}

/** Only web addresses: a `javascript:` or `file:` link must never reach a rendered CV. */
function isWebUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

function valueSchema(kind: FieldKind): z.ZodType {
  switch (kind.type) {
    case 'text':
      return z.string().max(kind.max);
    case 'email':
      return z.string().max(255).regex(z.regexes.unicodeEmail, rule('field.email'));
    case 'url':
      return z.string().max(2048).refine(isWebUrl, rule('field.web_url'));
    case 'month':
      return z.string().regex(MONTH_PATTERN, rule('field.format_month'));
    case 'date':
      return z
        .string()
        .regex(DATE_PATTERN, rule('field.format_date'))
        .refine(isRealDate, rule('field.date'))
        .meta({ format: 'date' });
    case 'boolean':
      return z.boolean();
    case 'color':
      return z.string().regex(/^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/, rule('field.hex_color'));
    case 'enum':
      return z.enum(kind.values as [string, ...string[]]);
  }
}

/** Every field may be left out or null (which clears it); none is required. */
function rowSchema(fields: Record<string, FieldKind>) {
  return z
    .object(
      Object.fromEntries(
        Object.entries(fields).map(([name, kind]) => [name, valueSchema(kind).nullable().optional()]),
      ),
    )
    .strict();
}

const experienceItem = rowSchema(SECTION_FIELDS.experience).superRefine((item, ctx) => {
  const { start_date: start, end_date: end, is_current: current } = item as Partial<CvItem<'experience'>>;
  if (current === true && end !== null && end !== undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['end_date'],
      message: rule('field.prohibited_when'),
      params: { other: 'is current', value: 'true' },
    });
  } else if (typeof start === 'string' && typeof end === 'string' && end < start) {
    ctx.addIssue({
      code: 'custom',
      path: ['end_date'],
      message: rule('field.after_or_equal'),
      params: { other: 'start date' },
    });
  }
});

function itemSchema(section: SectionKey) {
  return section === 'experience' ? experienceItem : rowSchema(SECTION_FIELDS[section]);
}

const customSection = z
  .object({
    key: z
      .string()
      .max(CUSTOM_SECTION_FIELDS.key.max)
      .regex(CUSTOM_KEY_PATTERN, rule('field.key_characters'))
      .refine((key) => !(SECTION_KEYS as readonly string[]).includes(key), rule('field.builtin_section_key')),
    title: z.string().min(1).max(CUSTOM_SECTION_FIELDS.title.max),
    content: z.string().max(CUSTOM_SECTION_FIELDS.content.max).nullable().optional(),
  })
  .strict();

const sectionKeyList = z
  .array(z.string().max(64))
  .max(SECTION_KEYS.length + CUSTOM_SECTIONS_MAX)
  .superRefine((keys, ctx) => {
    keys.forEach((key, index) => {
      if (keys.indexOf(key) !== index) {
        ctx.addIssue({ code: 'custom', path: [index], message: rule('field.duplicate') });
      }
    });
  });

/**
 * The body of `PUT /cvs/{uuid}`: every key optional. Keys a read returns but an update cannot
 * change (id, links, photo, timestamps) are accepted and ignored, so a client may send back what
 * it read; any other key is refused so a misspelt one is not silently dropped.
 */
export const cvUpdateRequest = z
  .object({
    title: z.string().min(1).max(TITLE_MAX).optional(),
    locale: z.enum(['ar', 'en']).optional(),
    personal: rowSchema(PERSONAL_FIELDS).optional(),
    settings: rowSchema(SETTINGS_FIELDS).optional(),
    section_order: sectionKeyList.optional().describe('Section keys (built-in or custom) in display order.'),
    hidden_sections: sectionKeyList.optional(),
    sections: z
      .object(
        Object.fromEntries(
          SECTION_KEYS.map((section) => [
            section,
            z.array(itemSchema(section)).max(ITEMS_PER_SECTION_MAX).optional(),
          ]),
        ),
      )
      .strict()
      .optional()
      .describe('Each section sent replaces that section; sections left out are kept.'),
    custom_sections: z
      .array(customSection)
      .max(CUSTOM_SECTIONS_MAX)
      .superRefine((sections, ctx) => {
        sections.forEach((section, index) => {
          if (sections.findIndex((other) => other.key === section.key) !== index) {
            ctx.addIssue({ code: 'custom', path: [index, 'key'], message: rule('field.duplicate') });
          }
        });
      })
      .optional(),
    id: z.unknown().optional(),
    template_id: z.unknown().optional(),
    photo: z.unknown().optional(),
    links: z.unknown().optional(),
    created_at: z.unknown().optional(),
    updated_at: z.unknown().optional(),
  })
  .strict()
  .meta({ id: 'UpdateCvRequest', description: 'Send only the keys to change.' });

export type CvPatch = Partial<
  Pick<CvDocument, 'title' | 'locale' | 'section_order' | 'hidden_sections' | 'custom_sections'>
> & {
  personal?: Partial<CvPersonal>;
  settings?: Partial<Record<keyof typeof SETTINGS_FIELDS, string | null>>;
  sections?: Partial<CvSections>;
};

/**
 * Laravel's TrimStrings and ConvertEmptyStringsToNull, which the legacy clients rely on: a field
 * sent as "" or "  " is cleared, not stored blank.
 */
export function normalizeStrings(value: unknown): unknown {
  if (typeof value === 'string') {
    const trimmed = value.trim();
    return trimmed === '' ? null : trimmed;
  }
  if (Array.isArray(value)) return value.map(normalizeStrings);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, normalizeStrings(inner)]));
  }
  return value;
}

/** A CV's blank personal block: every field present, as a read shows it. */
export function emptyPersonal(): CvPersonal {
  return Object.fromEntries(Object.keys(PERSONAL_FIELDS).map((name) => [name, null])) as CvPersonal;
}

/** An item with every field of its section present (absent text is null, absent flags false). */
export function completeItem<S extends SectionKey>(section: S, fields: Record<string, unknown>): CvItem<S> {
  return Object.fromEntries(
    Object.entries(SECTION_FIELDS[section]).map(([name, kind]) => [
      name,
      (kind as FieldKind).type === 'boolean'
        ? fields[name] === true
        : ((fields[name] as string | undefined) ?? null),
    ]),
  ) as CvItem<S>;
}
