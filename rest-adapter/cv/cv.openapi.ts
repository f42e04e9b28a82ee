import { z } from 'zod';
import type { SubscriptionStatus } from '../../subgraphs/billing/subscription.entity';
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
} from '../../subgraphs/cv/cv.payload';
import { PHOTO_MAX_BYTES, PHOTO_TYPES } from '../../subgraphs/cv/photo';
import { TEMPLATE_CATEGORIES, TEMPLATE_LAYOUTS } from '../../subgraphs/cv/template.service';
import {
  components,
  json,
  parameterSchema,
  rateLimitHeaders,
  ref,
  requestIdHeader,
  responses,
  retryAfter,
} from '../openapi';
import { toPlanRecord } from '../plans/plans.routes';
import { toAccountResource, toCvDocumentResource, toCvResource, toTemplateResource } from './cv.operations';

/**
 * The CV document's own registry: its component names (Error, Template…) would otherwise collide
 * with the ticket document's in the global one, where a second id silently replaces the first.
 */
const schemas = z.registry<{ id: string }>();
const named = <T extends z.ZodType>(id: string, schema: T): T => {
  schemas.add(schema, { id });
  return schema;
};

const dateTime = z.string().meta({ format: 'date-time' });
const uri = z.string().meta({ format: 'uri' });
const limit = z.number().int().min(0).nullable().describe('null: unlimited.');

// Requests and the CV payload come from the table and schema that validate PUT /cvs/{uuid}, so the
// published limits are the enforced ones.

const accepted = cvUpdateRequest.shape;
const title = accepted.title.unwrap();
const locale = accepted.locale.unwrap().describe('ar or en: sets direction and date formatting.');

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

named('UpdateCvRequest', cvUpdateRequest);

named(
  'CreateCvRequest',
  z.object({
    title: title.describe('Internal name.'),
    locale,
    template_id: z.number().int().min(1).describe('A template id from GET /templates.'),
  }),
);

named('SwitchTemplateRequest', z.object({ template_id: z.number().int().min(1) }));

const jsonResume = named(
  'JsonResume',
  z
    .looseObject({})
    .describe(
      'A JSON Resume 1.2.1 document (https://jsonresume.org/schema). What JSON Resume has no field for (title, locale, settings, hidden and custom sections, tasks, expertise) is kept under extra keys, so an export imports back to the same CV.',
    ),
);

named(
  'ImportJsonResumeRequest',
  z
    .union([
      z.object({
        resume: jsonResume,
        template_id: z.number().int().min(1).nullable().optional(),
        title: title.nullable().optional(),
        locale: locale.nullable().optional(),
      }),
      jsonResume,
    ])
    .describe(
      'Either {resume, template_id?, title?, locale?}, or the resume itself (then the options are query parameters). Defaults: the platform’s first free template, the title an export kept or else the name, the locale of the resume’s text.',
    ),
);

// Resources, as cv.operations.ts and plans.routes.ts make them; `describes` below keeps them in step.

const links = z
  .object({
    self: uri,
    pdf: uri.describe('The PDF export.'),
    html: uri.describe('The HTML export.'),
    share: uri.describe('The public share page; needs no key.'),
  })
  .strict();

const cv = named(
  'Cv',
  z
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
    .describe('A CV as lists and creation show it.'),
);

const photo = z
  .object({
    content_type: z.enum(PHOTO_TYPES),
    width: z.number().int().min(0),
    height: z.number().int().min(0),
    size: z.number().int().min(0).describe('Bytes.'),
  })
  .strict()
  .describe('The photo as stored: metadata removed, at most 1200 px a side.');

const cvDocument = named(
  'CvDocument',
  cv
    .extend({ ...cvPayload, photo: photo.nullable() })
    .strict()
    .describe('The whole CV: GET /cvs/{uuid} shows it and PUT /cvs/{uuid} takes its payload keys back.'),
);

const template = named(
  'Template',
  z
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
    .strict(),
);

const SUBSCRIPTION_STATUSES = ['active', 'past_due', 'cancelled'] as const satisfies SubscriptionStatus[];

const account = named(
  'Account',
  z
    .object({
      id: z.number().int(),
      name: z.string(),
      email: z.string(),
      plan: z
        .object({
          key: z.string().nullable(),
          name: z.string().nullable(),
          cv_limit: limit,
          download_limit: limit,
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
    .strict(),
);

const plan = named(
  'Plan',
  z
    .object({
      key: z.string(),
      name: z.string(),
      price: z.number().int().min(0).describe('Monthly, in whole Iraqi dinars.'),
      currency: z.literal('IQD'),
      interval: z.literal('month'),
      cv_limit: limit,
      download_limit: limit,
      premium_templates: z.boolean(),
      watermark: z.boolean(),
    })
    .strict(),
);

named('DeletedCv', z.object({ id: z.uuid(), deleted: z.literal(true) }).strict());

named(
  'Error',
  z
    .object({ message: z.string(), errors: z.record(z.string(), z.array(z.string())) })
    .strict()
    .describe(
      'errors maps a field, or a dotted path such as sections.experience.0.start_date, to its messages; {} when no field is at fault.',
    ),
);

/** The keys of a type at every depth; a record (such as a payload row typed loosely) is one leaf. */
type Shape<T> = T extends readonly (infer E)[]
  ? Shape<E>[]
  : T extends object
    ? string extends keyof T
      ? 'record'
      : { [K in keyof T]-?: Shape<T[K]> }
    : 'value';
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/** Compile-time: a field added to or dropped from a resource fails the build until its schema follows. */
function describes<S extends z.ZodType, R>(
  _schema: S,
  _resource: (...args: never[]) => R,
  ..._differ: Same<Shape<z.output<S>>, Shape<R>> extends true ? [] : ['schema and resource differ']
): void {}
describes(account, toAccountResource);
describes(template, toTemplateResource);
describes(cv, toCvResource);
describes(cvDocument, toCvDocumentResource);
describes(plan, toPlanRecord);

const SCHEMA_IDS = [
  'Account',
  'Template',
  'Cv',
  'CvDocument',
  'DeletedCv',
  'JsonResume',
  'Plan',
  'CreateCvRequest',
  'UpdateCvRequest',
  'SwitchTemplateRequest',
  'ImportJsonResumeRequest',
  'Error',
] as const;
const REQUEST_IDS = [
  'CreateCvRequest',
  'UpdateCvRequest',
  'SwitchTemplateRequest',
  'ImportJsonResumeRequest',
];

// The limiter answers for every CV path before its route runs, refusals included.
const LIMITED = { ...rateLimitHeaders('"cv";q=60;w=60', true), ...requestIdHeader(true) };
const { ok, error } = responses(LIMITED, 'Error');
/** GET /plans needs no key: it is counted per client address. */
const PUBLIC_LIMITED = { ...rateLimitHeaders('"public";q=300;w=60', true), ...requestIdHeader(true) };

/** cv-api.md wraps every success body: {"data": …}. */
const data = (schemaRef: object) => ({
  type: 'object',
  properties: { data: schemaRef },
  required: ['data'],
  additionalProperties: false,
});

const authErrors = {
  '401': error('Missing, invalid or revoked X-API-Key.'),
  '429': error('More than 60 requests a minute for the account, all its keys together.', 'Error', {
    'Retry-After': { ...retryAfter['Retry-After'], required: true },
  }),
};

const cvErrors = {
  '403': error('The CV belongs to another account.'),
  '404': error('No CV has this UUID (or it is not a UUID).'),
};

const bodyError = (description: string) => ({
  description,
  headers: requestIdHeader(true),
  ...json(ref('Error')),
});

/** Refused by the JSON parser before the rate limiter and any route, so without RateLimit headers. */
const bodyErrors = {
  '400': bodyError('The body is not valid JSON.'),
  '413': bodyError('The body is larger than 1 MB.'),
  '415': bodyError('The body’s character set is not supported.'),
};

const validation = (description: string) => ({ '422': error(description) });

const cacheHeaders = (cacheControl: string, vary?: string) => ({
  ETag: {
    description: 'A strong tag of the body’s bytes; send it back in If-None-Match.',
    required: true,
    schema: { type: 'string' },
  },
  'Cache-Control': { description: cacheControl, required: true, schema: { type: 'string' } },
  ...(vary === undefined ? {} : { Vary: { description: vary, required: true, schema: { type: 'string' } } }),
});

const TEMPLATE_CACHE = cacheHeaders(
  'private, max-age=300: availability follows the account’s plan.',
  'X-API-Key, Accept-Language',
);

const notModified = (headers: Record<string, unknown>) => ({
  description: 'The client’s copy (named in If-None-Match) is current; no body.',
  headers,
});

const byUuid = {
  name: 'uuid',
  in: 'path',
  required: true,
  schema: { type: 'string', format: 'uuid' },
  description: 'The CV’s id, matched without regard to case.',
};
const byTemplateId = { name: 'id', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } };
const acceptLanguage = { $ref: '#/components/parameters/AcceptLanguage' };
const ifNoneMatch = { $ref: '#/components/parameters/IfNoneMatch' };

const IMPORT_QUERY = { template_id: z.number().int().min(1), title, locale } as const;

const onCv = (
  operationId: string,
  summary: string,
  description: string,
  success: Record<string, unknown>,
  extra: Record<string, unknown> = {},
) => ({
  operationId,
  summary,
  description,
  parameters: [byUuid, acceptLanguage],
  responses: { ...success, ...authErrors, ...cvErrors, ...extra },
});

/** The OpenAPI 3.1 description of cv-api.md, built from the schemas that validate requests. */
export function cvOpenApi(publicBaseUrl: string): Record<string, unknown> {
  return {
    openapi: '3.1.0',
    info: {
      title: 'CV Service API',
      version: '1.0.0',
      description:
        'Accounts, templates and CVs of the CV service. Every endpoint except GET /plans needs the account’s X-API-Key; 60 requests a minute per account. Success bodies are {"data": …}; errors are {"message", "errors"}.',
    },
    servers: [{ url: `${publicBaseUrl}/api/v1` }],
    security: [{ apiKey: [] }],
    paths: {
      '/me': {
        get: {
          operationId: 'getAccount',
          summary: 'The account, its plan, subscription and usage',
          parameters: [acceptLanguage],
          responses: { '200': ok('The account of the key', data(ref('Account'))), ...authErrors },
        },
      },
      '/templates': {
        get: {
          operationId: 'listTemplates',
          summary: 'Templates the account can use',
          description: 'The platform’s templates in seeding order, then the account’s company’s own.',
          parameters: [acceptLanguage, ifNoneMatch],
          responses: {
            '200': ok('The templates', data({ type: 'array', items: ref('Template') }), TEMPLATE_CACHE),
            '304': notModified({ ...LIMITED, ...TEMPLATE_CACHE }),
            ...authErrors,
          },
        },
      },
      '/templates/{id}': {
        get: {
          operationId: 'getTemplate',
          summary: 'One template',
          parameters: [byTemplateId, acceptLanguage, ifNoneMatch],
          responses: {
            '200': ok('The template', data(ref('Template')), TEMPLATE_CACHE),
            '304': notModified({ ...LIMITED, ...TEMPLATE_CACHE }),
            ...authErrors,
            '404': error('No template with this id that the account can use.'),
          },
        },
      },
      '/cvs': {
        get: {
          operationId: 'listCvs',
          summary: 'The account’s CVs, newest first',
          parameters: [acceptLanguage],
          responses: { '200': ok('The CVs', data({ type: 'array', items: ref('Cv') })), ...authErrors },
        },
        post: {
          operationId: 'createCv',
          summary: 'Create a CV',
          description:
            'The new CV takes its template’s default settings and shows every section. A missing or mistyped field is 422 once the key is judged.',
          parameters: [acceptLanguage],
          requestBody: { required: true, ...json(ref('CreateCvRequest')) },
          responses: {
            '201': ok('Created', data(ref('Cv'))),
            ...authErrors,
            ...bodyErrors,
            '403': error(
              'The plan’s cv_limit is reached, or the template is premium and the plan lacks them.',
            ),
            ...validation('A field is missing or invalid, or the template is unknown or another company’s.'),
          },
        },
      },
      '/cvs/import/json-resume': {
        post: {
          operationId: 'importJsonResume',
          summary: 'Create a CV from a JSON Resume document',
          description:
            'The mapped document is validated as an update is; its errors are keyed under resume., e.g. resume.personal.email.',
          parameters: [
            ...Object.entries(IMPORT_QUERY).map(([name, schema]) => ({
              name,
              in: 'query',
              required: false,
              schema: parameterSchema(schema),
              description: 'Only when the body is the resume itself.',
            })),
            acceptLanguage,
          ],
          requestBody: { required: true, ...json(ref('ImportJsonResumeRequest')) },
          responses: {
            '201': ok('Created', data(ref('CvDocument'))),
            ...authErrors,
            ...bodyErrors,
            '403': error(
              'The plan’s cv_limit is reached, or the template is premium and the plan lacks them.',
            ),
            ...validation('Not a JSON Resume object, an invalid option, or a mapped field is invalid.'),
          },
        },
      },
      '/cvs/{uuid}': {
        get: onCv(
          'getCv',
          'The whole CV',
          'Personal information, settings, every section, custom sections, the photo’s facts and links.',
          { '200': ok('The CV', data(ref('CvDocument'))) },
        ),
        put: {
          ...onCv(
            'updateCv',
            'Change part of a CV',
            'Send only the keys to change: personal and settings change field by field (null clears a field; a cleared setting returns to the template’s default), each section sent replaces that section, the lists replace theirs. What a read returns besides the payload may be sent back unchanged. The key, the CV and its owner are judged before the body.',
            { '200': ok('The CV after the change', data(ref('CvDocument'))) },
            {
              ...bodyErrors,
              ...validation(
                'Invalid keys, keyed by path (e.g. sections.experience.0.start_date), or a different template_id.',
              ),
            },
          ),
          requestBody: { required: true, ...json(ref('UpdateCvRequest')) },
        },
        delete: onCv(
          'deleteCv',
          'Delete a CV',
          'Removes the CV with its sections and photo; its share page stops working.',
          { '200': ok('Deleted', data(ref('DeletedCv'))) },
        ),
      },
      '/cvs/{uuid}/duplicate': {
        post: onCv(
          'duplicateCv',
          'Copy a CV',
          'A deep copy with every section row, custom section and the photo, and a share link of its own.',
          { '201': ok('The copy', data(ref('CvDocument'))) },
          {
            '403': error(
              'The CV belongs to another account, the plan’s cv_limit is reached, or its template is premium and the plan lacks them.',
            ),
          },
        ),
      },
      '/cvs/{uuid}/template': {
        put: {
          ...onCv(
            'switchCvTemplate',
            'Switch the CV’s template',
            'The new template’s default settings replace the CV’s own, so its design shows.',
            { '200': ok('The CV on its new template', data(ref('CvDocument'))) },
            {
              '403': error(
                'The CV belongs to another account, or the template is premium and the plan lacks them.',
              ),
              ...bodyErrors,
              ...validation('template_id is missing, not an integer, unknown or another company’s.'),
            },
          ),
          requestBody: { required: true, ...json(ref('SwitchTemplateRequest')) },
        },
      },
      '/cvs/{uuid}/photo': {
        post: {
          ...onCv(
            'uploadCvPhoto',
            'Set the CV’s photo',
            'Judged by its bytes, whatever the file name or part type say. Stored upright, without metadata, at most 1200 px a side, in its own format.',
            { '200': ok('The CV with its photo', data(ref('CvDocument'))) },
            validation('No photo part, more than one file, over 4 MB, not JPEG, PNG or WebP, or unreadable.'),
          ),
          requestBody: {
            required: true,
            content: {
              'multipart/form-data': {
                schema: {
                  type: 'object',
                  properties: {
                    photo: {
                      type: 'string',
                      format: 'binary',
                      description: `JPEG, PNG or WebP, at most ${PHOTO_MAX_BYTES} bytes (4 MB).`,
                    },
                  },
                  required: ['photo'],
                },
                encoding: { photo: { contentType: PHOTO_TYPES.join(', ') } },
              },
            },
          },
        },
        delete: onCv('removeCvPhoto', 'Remove the CV’s photo', 'Removing an absent photo changes nothing.', {
          '200': ok('The CV without a photo', data(ref('CvDocument'))),
        }),
      },
      ...Object.fromEntries(
        (
          [
            [
              'pdf',
              'application/pdf',
              'attachment',
              'A4, tagged, bookmarks from the section headings; a watermark on every page on a plan with one.',
            ],
            [
              'html',
              'text/html; charset=utf-8',
              'inline',
              'One self-contained document (fonts, photo and styles inline; no external reference), the same look as the PDF; sent with a Content-Security-Policy that lets it load nothing.',
            ],
          ] as const
        ).map(([format, type, disposition, description]) => [
          `/cvs/{uuid}/${format}`,
          {
            get: onCv(
              `exportCv${format.toUpperCase()}`,
              `${format.toUpperCase()} export`,
              `${description} Counts toward downloads_this_month; at most 10 exports a minute per account.`,
              {
                '200': {
                  description: `The ${format.toUpperCase()} file`,
                  headers: {
                    ...LIMITED,
                    'Content-Disposition': {
                      required: true,
                      description: `${disposition}; the CV's title as filename* (RFC 8187) with an ASCII filename beside it.`,
                      schema: { type: 'string' },
                    },
                  },
                  content: { [type.split(';')[0]!]: { schema: { type: 'string', format: 'binary' } } },
                },
              },
              {
                '403': error(
                  'Another account’s CV, or the plan’s download_limit is reached (the message names it).',
                ),
                '429': error('More than 10 exports a minute, or more than 60 requests a minute.', 'Error', {
                  'Retry-After': { ...retryAfter['Retry-After'], required: true },
                }),
                '503': error('The renderer is saturated or a render took over 15 seconds.', 'Error', {
                  'Retry-After': { ...retryAfter['Retry-After'], required: true },
                }),
              },
            ),
          },
        ]),
      ),
      '/cvs/{uuid}/json-resume': {
        get: onCv(
          'exportJsonResume',
          'The CV as JSON Resume 1.2.1',
          'meta.canonical is the CV’s self link and meta.lastModified its last change.',
          { '200': ok('The resume', data(ref('JsonResume'))) },
        ),
      },
      '/plans': {
        get: {
          operationId: 'listPlans',
          summary: 'The public CV plan catalogue',
          description:
            'Needs no key and is not counted against any account: it counts against the client address’s public budget, like every request without a credential. null limits mean unlimited.',
          security: [],
          parameters: [ifNoneMatch],
          responses: {
            '200': {
              description: 'The plans, in selling order',
              headers: { ...PUBLIC_LIMITED, ...cacheHeaders('public, max-age=3600') },
              ...json(data({ type: 'array', items: ref('Plan') })),
            },
            '304': notModified({ ...PUBLIC_LIMITED, ...cacheHeaders('public, max-age=3600') }),
            '429': {
              description: 'Too many requests without a credential from this client address.',
              headers: { ...PUBLIC_LIMITED, 'Retry-After': { ...retryAfter['Retry-After'], required: true } },
              ...json(ref('Error')),
            },
          },
        },
      },
      '/cv/openapi.json': {
        get: {
          operationId: 'cvOpenApi',
          summary: 'This document',
          description: 'The OpenAPI document itself, not wrapped in data.',
          parameters: [acceptLanguage],
          responses: {
            '200': ok('This document', {
              type: 'object',
              properties: { openapi: { const: '3.1.0' } },
              required: ['openapi', 'info', 'paths', 'components'],
            }),
            ...authErrors,
          },
        },
      },
    },
    components: {
      securitySchemes: {
        apiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'X-API-Key',
          description:
            'A key of the account, made in the API access section of its profile; shown once. Missing, invalid or revoked is 401.',
        },
      },
      parameters: {
        AcceptLanguage: {
          name: 'Accept-Language',
          in: 'header',
          required: false,
          schema: { type: 'string' },
          description: 'ar or en: the language of messages. English otherwise.',
        },
        IfNoneMatch: {
          name: 'If-None-Match',
          in: 'header',
          required: false,
          schema: { type: 'string' },
          description:
            'ETags the client holds (a list, weak or strong, or *); a match is 304 without a body.',
        },
      },
      schemas: components(SCHEMA_IDS, REQUEST_IDS, schemas),
    },
  };
}
