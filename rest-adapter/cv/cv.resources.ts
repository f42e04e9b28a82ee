import { z } from 'zod';
import { snakeKeys } from '../../common/case';
import { SUBSCRIPTION_STATUSES } from '../../contracts/billing/subscription';
import {
  CUSTOM_SECTIONS_MAX,
  CUSTOM_SECTION_FIELDS,
  ITEMS_PER_SECTION_MAX,
  PERSONAL_FIELDS,
  SECTION_FIELDS,
  SECTION_KEYS,
  SETTINGS_FIELDS,
  cvUpdateRequest,
  type FieldKind,
} from '../../contracts/cv/cv.payload';
import { PHOTO_MAX_SIDE, PHOTO_TYPES } from '../../contracts/cv/photo.limits';
import { TEMPLATE_CATEGORIES, TEMPLATE_LAYOUTS } from '../../contracts/cv/template.limits';
import { describes } from '../openapi';
import { planLimit } from '../plans/plans.resources';
import type { CvData, CvDocumentData, MeData, Row, TemplateData } from './cv.operations';
import { jsonResume, locale, title } from './cv.requests';

/**
 * What cv-api.md answers, and the mappers from the graph's results to it. The CV payload's schemas
 * are the update's own (contracts/cv/cv.payload.ts) as a read shows them; `describes` below keeps
 * each schema in step with its mapper.
 */

const dateTime = z.string().meta({ format: 'date-time' });
const uri = z.string().meta({ format: 'uri' });

const accepted = cvUpdateRequest.shape;

/**
 * A row of the payload table as a read shows it: every field present, null when empty, except a
 * flag, which is always true or false. The value schemas are the update's own.
 */
function shown(fields: Record<string, FieldKind>, row: z.ZodObject) {
  return z
    .object(
      Object.fromEntries(
        Object.entries(fields).map(([name, kind]) => {
          const value = (row.shape[name] as z.ZodOptional<z.ZodNullable<z.ZodType>>).unwrap().unwrap();
          return [name, kind.type === 'boolean' ? value : value.nullable()];
        }),
      ),
    )
    .strict();
}

const acceptedSections = accepted.sections.unwrap().shape;
const sectionItem = (section: (typeof SECTION_KEYS)[number]) =>
  shown(
    SECTION_FIELDS[section],
    (acceptedSections[section] as z.ZodOptional<z.ZodArray<z.ZodObject>>).unwrap().element,
  );

// content may be left out of an update, but a read always shows it (null when empty).
const acceptedCustom = accepted.custom_sections.unwrap().element;
const customSection = z
  .object(
    Object.fromEntries(
      Object.keys(CUSTOM_SECTION_FIELDS).map((name) => {
        const value = acceptedCustom.shape[name as keyof typeof CUSTOM_SECTION_FIELDS] as z.ZodType;
        return [name, value instanceof z.ZodOptional ? (value.unwrap() as z.ZodType) : value];
      }),
    ),
  )
  .strict();

const cvPayload = {
  personal: shown(PERSONAL_FIELDS, accepted.personal.unwrap()),
  settings: shown(SETTINGS_FIELDS, accepted.settings.unwrap()).describe(
    'The template’s defaults with the CV’s own choices.',
  ),
  section_order: accepted.section_order
    .unwrap()
    .describe('Section keys (built-in and custom) in display order.'),
  hidden_sections: accepted.hidden_sections.unwrap(),
  sections: z
    .object(
      Object.fromEntries(
        SECTION_KEYS.map((section) => [section, z.array(sectionItem(section)).max(ITEMS_PER_SECTION_MAX)]),
      ),
    )
    .strict()
    .describe('Every section, items in display order.'),
  custom_sections: z.array(customSection).max(CUSTOM_SECTIONS_MAX),
};

const links = z
  .object({
    self: uri,
    pdf: uri.describe('The PDF export.'),
    html: uri.describe('The HTML export.'),
    share: uri.describe('The public share page; needs no key.'),
  })
  .strict();

/** A CV as lists and creation show it. */
export const cv = z
  .object({
    id: z.uuid(),
    title,
    locale,
    template_id: z.number().int(),
    links,
    created_at: dateTime,
    updated_at: dateTime,
  })
  .strict()
  .describe('A CV as lists and creation show it.');

const photo = z
  .object({
    content_type: z.enum(PHOTO_TYPES),
    width: z.number().int().min(0),
    height: z.number().int().min(0),
    size: z.number().int().min(0).describe('Bytes.'),
  })
  .strict()
  .describe(`The photo as stored: metadata removed, at most ${PHOTO_MAX_SIDE} px a side.`);

/** The whole CV. */
export const cvDocument = cv
  .extend({ ...cvPayload, photo: photo.nullable() })
  .strict()
  .describe('The whole CV: GET /cvs/{uuid} shows it and PUT /cvs/{uuid} takes its payload keys back.');

/** A template, with whether the account may use it. */
export const template = z
  .object({
    id: z.number().int(),
    slug: z.string(),
    name: z.string(),
    description: z.string(),
    category: z.enum(TEMPLATE_CATEGORIES),
    layout: z.enum(TEMPLATE_LAYOUTS),
    is_premium: z.boolean(),
    is_company_template: z.boolean().describe('Owned by the account’s company.'),
    available: z.boolean().describe('False for a premium template while the plan lacks them.'),
    preview_url: uri,
  })
  .strict();

/** GET /me's account. */
export const account = z
  .object({
    id: z.number().int(),
    name: z.string(),
    email: z.string(),
    plan: z
      .object({
        key: z.string().nullable(),
        name: z.string().nullable(),
        cv_limit: planLimit,
        download_limit: planLimit,
        premium_templates: z.boolean(),
        watermark: z.boolean(),
      })
      .strict()
      .describe('The account’s CV plan; null members (and watermark true) without an active subscription.'),
    subscription: z
      .object({
        status: z.enum(SUBSCRIPTION_STATUSES).nullable(),
        ends_at: dateTime.nullable().describe('null while it renews.'),
      })
      .strict(),
    usage: z
      .object({
        cvs: z.number().int().min(0),
        downloads_this_month: z.number().int().min(0).describe('Calendar month, UTC.'),
      })
      .strict(),
    api_key: z
      .object({
        name: z.string().nullable(),
        prefix: z.string().nullable().describe('The leading characters of the key.'),
      })
      .strict()
      .describe('The key of the request.'),
  })
  .strict();

/** What a delete answers. */
export const deletedCv = z.object({ id: z.uuid(), deleted: z.literal(true) }).strict();

/** Every error of the CV document: a message and field errors, always. */
export const cvError = z
  .object({ message: z.string(), errors: z.record(z.string(), z.array(z.string())) })
  .strict()
  .describe(
    'errors maps a field, or a dotted path such as sections.experience.0.start_date, to its messages; {} when no field is at fault.',
  );

/** The named response schemas of the CV document. */
export const CV_RESOURCE_SCHEMAS = {
  Account: account,
  Template: template,
  Cv: cv,
  CvDocument: cvDocument,
  DeletedCv: deletedCv,
  JsonResume: jsonResume,
  Error: cvError,
} as const;

/** Per account (availability follows its plan): private caches only. */
export const TEMPLATE_CACHE_CONTROL = 'private, max-age=300';
/** What a template answer varies with: the account (by its key) and the language. */
export const TEMPLATE_VARY = 'X-API-Key, Accept-Language';

/** The Template resource of cv-api.md. */
export function toTemplateResource(t: TemplateData) {
  return {
    id: Number(t.id),
    slug: t.slug,
    name: t.name,
    description: t.description,
    category: t.category,
    layout: t.layout,
    is_premium: t.isPremium,
    is_company_template: t.isCompanyTemplate,
    available: t.available,
    preview_url: t.previewUrl,
  };
}

/** A CV as lists show it (the full payload comes with GET /cvs/{uuid}). */
export function toCvResource(cv: CvData) {
  return {
    id: cv.id,
    title: cv.title,
    locale: cv.locale,
    template_id: Number(cv.templateId),
    links: cv.links,
    created_at: cv.createdAt,
    updated_at: cv.updatedAt,
  };
}

/** GET /cvs/{uuid}: the whole payload in the document's snake_case, with links and the photo's facts. */
export function toCvDocumentResource(cv: CvDocumentData) {
  return {
    ...toCvResource(cv),
    personal: snakeKeys<Row>(cv.personal),
    settings: snakeKeys<Row>(cv.settings),
    section_order: cv.sectionOrder,
    hidden_sections: cv.hiddenSections,
    sections: snakeKeys<Record<string, Row[]>>(cv.sections),
    custom_sections: cv.customSections,
    photo:
      cv.photo === null
        ? null
        : {
            content_type: cv.photo.type,
            width: cv.photo.width,
            height: cv.photo.height,
            size: cv.photo.size,
          },
  };
}

/** The Account resource of cv-api.md, every field present. */
export function toAccountResource({ me }: MeData) {
  return {
    id: Number(me.id),
    name: me.name,
    email: me.email,
    plan: {
      key: me.plan?.key ?? null,
      name: me.plan?.name ?? null,
      cv_limit: me.plan?.cv?.cvLimit ?? null,
      download_limit: me.plan?.cv?.downloadLimit ?? null,
      premium_templates: me.plan?.cv?.premiumTemplates ?? false,
      watermark: me.plan?.cv?.watermark ?? true,
    },
    subscription: { status: me.subscription?.status ?? null, ends_at: me.subscription?.endsAt ?? null },
    usage: { cvs: me.usage.cvs, downloads_this_month: me.usage.downloadsThisMonth },
    api_key: { name: me.apiKey?.name ?? null, prefix: me.apiKey?.prefix ?? null },
  };
}

/** A deleted CV's answer; the id as the document writes UUIDs, lower case. */
export function toDeletedCv(uuid: string) {
  return { id: uuid.toLowerCase(), deleted: true as const };
}

/**
 * RFC 6266 with RFC 8187: the title as the file name for every client that reads `filename*`,
 * and an ASCII stand-in for the few that do not.
 */
export function contentDisposition(kind: 'attachment' | 'inline', fileName: string): string {
  const extension = fileName.slice(fileName.lastIndexOf('.'));
  const ascii = fileName.replace(/[^\x20-\x7e]|["\\]/g, '').trim();
  const fallback = ascii.length > extension.length ? ascii : `cv${extension}`;
  return `${kind}; filename="${fallback}"; filename*=UTF-8''${encodeURIComponent(fileName).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`;
}

describes(account, toAccountResource);
describes(template, toTemplateResource);
describes(cv, toCvResource);
describes(cvDocument, toCvDocumentResource);
describes(deletedCv, toDeletedCv);
