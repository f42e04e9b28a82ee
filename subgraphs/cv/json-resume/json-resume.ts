import { isDeepStrictEqual } from 'node:util';
import { ValidationError } from '../../../common/errors';
import {
  PERSONAL_FIELDS,
  SECTION_FIELDS,
  SECTION_KEYS,
  SETTINGS_FIELDS,
  completeItem,
  type CustomSection,
  type CvDocument,
  type CvPersonal,
  type CvSections,
  type CvSettings,
  type SectionKey,
} from '../../../contracts/cv/cv.payload';
import { JSON_RESUME_VERSION } from '../../../contracts/cv/json-resume.version';
import { say } from '../../../common/messages';

/**
 * The CV document as JSON Resume 1.2.1 and back. One table per JSON Resume object says which of
 * its keys holds which of our fields; export and import both read it, and the import keeps, as
 * extra, exactly what the export would not give back, so importing then exporting a resume
 * returns it unchanged and exporting then importing a CV returns the same CV with nothing extra.
 */

/**
 * What the export cannot place in JSON Resume's own fields and the import could not map, kept so
 * nothing is lost. Each record maps a JSON Resume key to the original value, written back in place
 * of the mapped one while that field still reads back as it was imported (so an edit wins); null
 * marks a key the original did not have. In `resume`, the top level, `basics`, `basics.location`,
 * `meta` and `meta.cv` are records of the same kind, one level down, when the original had an
 * object there; any other value there is the original, verbatim.
 */
export interface ResumeExtra {
  resume?: Record<string, unknown>;
  /** By our section key, then by the item's position: replacing a section drops its entry. */
  items?: Partial<Record<SectionKey, Record<string, Record<string, unknown>>>>;
}

export type ImportedDocument = Omit<CvDocument, 'title' | 'locale'> & {
  title: string | null;
  locale: 'ar' | 'en' | null;
};

type Json = Record<string, unknown>;
/** Our fields, flattened: the personal block and the CV-wide keys, or one item. */
type Values = Record<string, unknown>;

interface Codec {
  read(raw: unknown, values: Values): unknown;
  /** undefined leaves the key out: JSON Resume has no nulls, and a default is not worth writing. */
  write(value: unknown, values: Values): unknown;
}

type Field =
  | { key: string; ours: string; codec: Codec }
  | { key: string; derive: (values: Values) => unknown }
  | { key: string; nested: readonly Field[] };

const isRecord = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const asRecord = (value: unknown): Json => (isRecord(value) ? value : {});
const filled = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);
const filledRecord = (value: Json) => (Object.keys(value).length > 0 ? value : undefined);
/** Keys come from the resume: a plain assignment of `__proto__` would set the prototype instead. */
const define = (target: Json, key: string, value: unknown) =>
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
const withoutNulls = (value: object): Json =>
  Object.fromEntries(Object.entries(value).filter(([, inner]) => inner !== null && inner !== undefined));

/** Trimmed and blank as null, as the API's own string normalisation leaves a field. */
const TEXT: Codec = {
  read: (raw) => (typeof raw === 'string' ? raw.trim() || null : null),
  write: filled,
};

const ISO_DATE = /^([0-9]{4})(?:-(0[1-9]|1[0-2])(?:-(0[1-9]|[12][0-9]|3[01]))?)?$/;

/** JSON Resume dates may stop at the year or go on to the day; ours are months. */
const MONTH: Codec = {
  read: (raw) => {
    const match = typeof raw === 'string' ? ISO_DATE.exec(raw.trim()) : null;
    return match === null ? null : `${match[1]}-${match[2] ?? '01'}`;
  },
  write: filled,
};

const DAY: Codec = {
  read: (raw) => {
    const text = TEXT.read(raw, {});
    if (typeof text !== 'string' || !/^[0-9]{4}-[0-9]{2}-[0-9]{2}$/.test(text)) return null;
    const date = new Date(`${text}T00:00:00Z`);
    return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(text) ? text : null;
  },
  write: filled,
};

/**
 * JSON Resume's convention for a current job is a start without an end; the flag is written only
 * when it says otherwise.
 */
const running = (values: Values) => values.start_date != null && values.end_date == null;
const CURRENT: Codec = {
  read: (raw, values) => (typeof raw === 'boolean' ? raw : running(values)),
  write: (value, values) => (value === running(values) ? undefined : value),
};

const ARABIC_LETTER = /(?=\p{Script=Arabic})\p{L}/u;
const detectLocale = (values: Values) =>
  [values.full_name, values.job_title].some((text) => typeof text === 'string' && ARABIC_LETTER.test(text))
    ? 'ar'
    : 'en';

const pickSettings = (raw: unknown): CvSettings =>
  Object.fromEntries(
    Object.keys(SETTINGS_FIELDS).flatMap((name) => {
      const value = asRecord(raw)[name];
      return typeof value === 'string' ? [[name, value]] : [];
    }),
  );

const strings = (fallback: readonly string[]): Codec => ({
  read: (raw) =>
    Array.isArray(raw) ? raw.filter((key): key is string => typeof key === 'string') : [...fallback],
  write: (value) => (isDeepStrictEqual(value, fallback) ? undefined : value),
});

const records = (read: (raw: Json) => object | null): Codec => ({
  read: (raw) => (Array.isArray(raw) ? raw.filter(isRecord).flatMap((item) => read(item) ?? []) : []),
  write: (value) =>
    Array.isArray(value) && value.length > 0 ? value.map((item: object) => withoutNulls(item)) : undefined,
});

const rows = (section: 'tasks' | 'expertise') =>
  records((raw) =>
    completeItem(
      section,
      Object.fromEntries(
        Object.keys(SECTION_FIELDS[section]).map((name) => [name, TEXT.read(raw[name], {})]),
      ),
    ),
  );

const field = (key: string, ours: string = key, codec: Codec = TEXT): Field => ({ key, ours, codec });
const own = (name: string, codec: Codec) => field(name, name, codec);

/** The CV-wide keys JSON Resume has no place for; in `meta.cv` under the API's own names. */
const CV_FIELDS: readonly Field[] = [
  own('title', {
    read: (raw, values) => TEXT.read(raw, values) ?? values.full_name ?? null,
    write: (title, values) => (title === values.full_name ? undefined : filled(title)),
  }),
  own('locale', {
    read: (raw, values) => (raw === 'ar' || raw === 'en' ? raw : detectLocale(values)),
    write: (locale, values) => (locale === detectLocale(values) ? undefined : locale),
  }),
  own('settings', { read: pickSettings, write: (value) => filledRecord(pickSettings(value)) }),
  own('section_order', strings(SECTION_KEYS)),
  own('hidden_sections', strings([])),
  own(
    'custom_sections',
    records((raw): CustomSection | null =>
      typeof raw.key === 'string' && typeof raw.title === 'string'
        ? { key: raw.key, title: raw.title, content: typeof raw.content === 'string' ? raw.content : null }
        : null,
    ),
  ),
  own('tasks', rows('tasks')),
  own('expertise', rows('expertise')),
];

/** basics allows keys of its own, so the personal fields JSON Resume lacks go there. */
const BASICS: readonly Field[] = [
  field('name', 'full_name'),
  field('label', 'job_title'),
  field('email'),
  field('phone'),
  field('url', 'website'),
  field('summary'),
  { key: 'location', nested: [field('address')] },
  field('nationality'),
  field('birthDate', 'birth_date', DAY),
];

// basics first: the title and locale defaults read the name.
const TOP: readonly Field[] = [
  { key: 'basics', nested: BASICS },
  {
    key: 'meta',
    nested: [
      { key: 'version', derive: () => JSON_RESUME_VERSION },
      { key: 'cv', nested: CV_FIELDS },
    ],
  },
];

const referenceText = (values: Values) =>
  filled(
    ['position', 'company', 'email', 'phone']
      .map((name) => values[name])
      .filter((text) => typeof text === 'string' && text !== '')
      .join(' · '),
  );

/** In the schema's order, which the export keeps. */
const SECTIONS: readonly { key: string; section: SectionKey; fields: readonly Field[] }[] = [
  {
    key: 'work',
    section: 'experience',
    fields: [
      field('name', 'company'),
      field('position'),
      field('location'),
      field('summary', 'description'),
      field('startDate', 'start_date', MONTH),
      field('endDate', 'end_date', MONTH),
      // After the dates: the default reads them.
      field('isCurrent', 'is_current', CURRENT),
    ],
  },
  {
    key: 'volunteer',
    section: 'volunteers',
    fields: [field('organization'), field('position', 'role'), field('summary', 'description')],
  },
  {
    key: 'education',
    section: 'education',
    fields: [
      field('institution'),
      field('area', 'field_of_study'),
      field('studyType', 'degree'),
      field('score', 'gpa'),
    ],
  },
  {
    key: 'awards',
    section: 'awards',
    fields: [
      field('title'),
      field('date', 'date', MONTH),
      field('awarder', 'issuer'),
      field('summary', 'description'),
    ],
  },
  {
    key: 'certificates',
    section: 'certifications',
    fields: [field('name'), field('date', 'issue_date', MONTH), field('url'), field('issuer')],
  },
  { key: 'skills', section: 'skills', fields: [field('name'), field('level')] },
  { key: 'languages', section: 'languages', fields: [field('language', 'name'), field('fluency', 'level')] },
  {
    key: 'references',
    section: 'references',
    // JSON Resume has only the text; the parts go alongside so the import gets them back.
    fields: [
      field('name'),
      { key: 'reference', derive: referenceText },
      field('position'),
      field('company'),
      field('email'),
      field('phone'),
    ],
  },
  { key: 'projects', section: 'projects', fields: [field('name'), field('description'), field('url')] },
];
const SECTION_NAMES = new Set(SECTIONS.map((section) => section.key));

const KEY_ORDER = [
  '$schema',
  'basics',
  'work',
  'volunteer',
  'education',
  'awards',
  'certificates',
  'publications',
  'skills',
  'languages',
  'interests',
  'references',
  'projects',
  'meta',
];
const rank = (key: string) => (KEY_ORDER.includes(key) ? KEY_ORDER.indexOf(key) : KEY_ORDER.length);

function read(fields: readonly Field[], raw: Json, values: Values): Values {
  for (const f of fields) {
    if ('nested' in f) read(f.nested, asRecord(raw[f.key]), values);
    else if ('ours' in f) values[f.ours] = f.codec.read(raw[f.key], values);
  }
  return values;
}

function write(fields: readonly Field[], values: Values): Json {
  const out: Json = {};
  for (const f of fields) {
    const value =
      'nested' in f
        ? filledRecord(write(f.nested, values))
        : 'ours' in f
          ? f.codec.write(values[f.ours], values)
          : f.derive(values);
    if (value !== undefined) out[f.key] = value;
  }
  return out;
}

/** Whether any of our fields would be written; derived keys alone do not make an object worth writing. */
function hasContent(fields: readonly Field[], values: Values): boolean {
  return fields.some((f) =>
    'nested' in f
      ? hasContent(f.nested, values)
      : 'ours' in f && f.codec.write(values[f.ours], values) !== undefined,
  );
}

/** What of `raw` the export of `values` would not give back. A null in the resume counts as absent. */
function diff(fields: readonly Field[], raw: Json, values: Values): Json {
  const written = write(fields, values);
  const kept: Json = {};
  for (const key of new Set([...Object.keys(raw), ...Object.keys(written)])) {
    const f = fields.find((candidate) => candidate.key === key);
    const original = raw[key] ?? undefined;
    if (f !== undefined && 'nested' in f && isRecord(original)) {
      const inner = diff(f.nested, original, values);
      // An empty record still says the object was there, when the export would leave it out.
      if (Object.keys(inner).length > 0 || written[key] === undefined) define(kept, key, inner);
    } else if (!isDeepStrictEqual(original, written[key])) {
      define(kept, key, original ?? null);
    }
  }
  return kept;
}

function apply(fields: readonly Field[], out: Json, kept: Json, values: Values): Json {
  const put = (key: string, value: unknown) => {
    if (value === null || value === undefined) delete out[key];
    else define(out, key, value);
  };
  for (const [key, original] of Object.entries(kept)) {
    const f = fields.find((candidate) => candidate.key === key);
    if (f !== undefined && 'nested' in f) {
      if (isRecord(original)) out[key] = apply(f.nested, { ...asRecord(out[key]) }, original, values);
      else if (!hasContent(f.nested, values)) put(key, original);
    } else if (
      f === undefined ||
      !('ours' in f) ||
      // The field was edited since the import: the edit wins over the original.
      isDeepStrictEqual(f.codec.read(original ?? undefined, values), values[f.ours])
    ) {
      put(key, original);
    }
  }
  return out;
}

/**
 * The CV as JSON Resume, without nulls or empty lists. `extra` is what the import kept; options
 * stamp meta with this export's own address and time, replacing any the import kept.
 */
export function toJsonResume(
  doc: CvDocument,
  extra: ResumeExtra | Record<string, unknown>,
  options: { canonicalUrl?: string; lastModified?: string } = {},
): Record<string, unknown> {
  const kept = asRecord(extra.resume);
  const keptItems = asRecord(extra.items);
  const values: Values = {
    ...doc.personal,
    title: doc.title,
    locale: doc.locale,
    settings: doc.settings,
    section_order: doc.section_order,
    hidden_sections: doc.hidden_sections,
    custom_sections: doc.custom_sections,
    tasks: doc.sections.tasks,
    expertise: doc.sections.expertise,
  };
  const topKept = Object.fromEntries(Object.entries(kept).filter(([key]) => !SECTION_NAMES.has(key)));
  const out = apply(TOP, write(TOP, values), topKept, values);
  for (const { key, section, fields } of SECTIONS) {
    const keptHere = asRecord(keptItems[section]);
    const items = (doc.sections[section] as Values[]).map((item, index) =>
      apply(fields, write(fields, item), asRecord(keptHere[index]), item),
    );
    if (items.length > 0) out[key] = items;
    // Only while the section is empty: an empty list, or one that was not a list of objects.
    else if (kept[key] !== undefined && kept[key] !== null) out[key] = kept[key];
  }
  const stamps = withoutNulls({ canonical: options.canonicalUrl, lastModified: options.lastModified });
  if (Object.keys(stamps).length > 0) out.meta = { ...asRecord(out.meta), ...stamps };
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => rank(a) - rank(b)));
}

/**
 * A JSON Resume as our document plus what to keep, for any value at all: only a top level that is
 * not an object is refused. Lengths and formats are left to `cvUpdateRequest`, which the caller
 * runs; a title of null asks the caller for a default.
 */
export function fromJsonResume(resume: unknown): { document: ImportedDocument; extra: ResumeExtra } {
  if (!isRecord(resume)) {
    throw new ValidationError({ resume: [say('field.json_resume', { field: 'resume' })] });
  }
  const top = Object.fromEntries(Object.entries(resume).filter(([key]) => !SECTION_NAMES.has(key)));
  const values = read(TOP, top, {});
  const kept = diff(TOP, top, values);
  const items: Record<string, Record<string, Json>> = {};
  const sections: Record<string, unknown[]> = Object.fromEntries(SECTION_KEYS.map((key) => [key, []]));
  sections.tasks = values.tasks as unknown[];
  sections.expertise = values.expertise as unknown[];
  for (const { key, section, fields } of SECTIONS) {
    const raw = resume[key] ?? undefined;
    const list = Array.isArray(raw) ? raw.filter(isRecord) : [];
    // Kept whole when the export could not give it back: empty, not a list, or holding non-objects.
    const whole = raw !== undefined && (list.length === 0 || list.length !== (raw as unknown[]).length);
    if (whole) kept[key] = raw;
    const keptHere: Record<string, Json> = {};
    sections[section] = list.map((item, index) => {
      const itemValues = read(fields, item, {});
      const rest = diff(fields, item, itemValues);
      if (Object.keys(rest).length > 0) keptHere[index] = rest;
      return completeItem(section, itemValues);
    });
    if (Object.keys(keptHere).length > 0) items[section] = keptHere;
  }
  const extra: ResumeExtra = {};
  if (Object.keys(kept).length > 0) extra.resume = kept;
  if (Object.keys(items).length > 0) extra.items = items;
  return {
    document: {
      title: values.title as string | null,
      locale: values.locale as 'ar' | 'en',
      personal: Object.fromEntries(
        Object.keys(PERSONAL_FIELDS).map((name) => [name, values[name] ?? null]),
      ) as CvPersonal,
      settings: values.settings as CvSettings,
      section_order: values.section_order as string[],
      hidden_sections: values.hidden_sections as string[],
      sections: sections as unknown as CvSections,
      custom_sections: values.custom_sections as CustomSection[],
    },
    extra,
  };
}
