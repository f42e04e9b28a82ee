import { camelCase, snakeKeys } from '../../common/case';
import {
  CUSTOM_SECTION_FIELDS,
  PERSONAL_FIELDS,
  SECTION_FIELDS,
  SECTION_KEYS,
  SETTINGS_FIELDS,
} from '../../subgraphs/cv/cv.payload';
import { operation } from '../graph-client';
import type { PlanData } from '../plans/plans.routes';

/** The graph operations the CV routes map onto, one per endpoint, and the resources they return. */

interface MeData {
  me: {
    id: string;
    name: string;
    email: string;
    apiKey: { name: string; prefix: string } | null;
    plan: Pick<PlanData, 'key' | 'name' | 'cv'> | null;
    subscription: { status: string; endsAt: string | null } | null;
    usage: { cvs: number; downloadsThisMonth: number };
  };
}

export const CV_ME = operation<MeData>(
  'CvMe',
  /* GraphQL */ `
    query CvMe {
      me {
        id
        name
        email
        apiKey {
          name
          prefix
        }
        plan {
          key
          name
          cv {
            cvLimit
            downloadLimit
            premiumTemplates
            watermark
          }
        }
        subscription {
          status
          endsAt
        }
        usage {
          cvs
          downloadsThisMonth
        }
      }
    }
  `,
);

interface TemplateData {
  id: string;
  slug: string;
  name: string;
  description: string;
  category: string;
  layout: string;
  isPremium: boolean;
  isCompanyTemplate: boolean;
  available: boolean;
  previewUrl: string;
}

const TEMPLATE_FIELDS =
  'id slug name description category layout isPremium isCompanyTemplate available previewUrl';

export const CV_TEMPLATES = operation<{ templates: TemplateData[] }>(
  'CvTemplates',
  `query CvTemplates { templates { ${TEMPLATE_FIELDS} } }`,
);

export const CV_TEMPLATE = operation<{ template: TemplateData }, { id: string }>(
  'CvTemplate',
  `query CvTemplate($id: ID!) { template(id: $id) { ${TEMPLATE_FIELDS} } }`,
);

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

interface CvData {
  id: string;
  title: string;
  locale: string;
  templateId: string;
  links: { self: string; pdf: string; html: string; share: string };
  createdAt: string;
  updatedAt: string;
}

const CV_FIELDS = 'id title locale templateId links { self pdf html share } createdAt updatedAt';

export const CV_LIST = operation<{ cvs: CvData[] }>('CvList', `query CvList { cvs { ${CV_FIELDS} } }`);

export const CV_CREATE = operation<
  { createCv: CvData },
  { input: { title: string; locale: string; templateId: string } }
>('CvCreate', `mutation CvCreate($input: CreateCvInput!) { createCv(input: $input) { ${CV_FIELDS} } }`);

export const CV_DELETE = operation<{ deleteCv: boolean }, { id: string }>(
  'CvDelete',
  'mutation CvDelete($id: ID!) { deleteCv(id: $id) }',
);

export const CV_AUTH = operation<{ me: { id: string } }>('CvAuth', 'query CvAuth { me { id } }');

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

const fieldsOf = (fields: object) => Object.keys(fields).map(camelCase).join(' ');

/** Every field of the payload, spelled from the same table that validates it. */
const CV_DOCUMENT_FIELDS = `${CV_FIELDS}
  personal { ${fieldsOf(PERSONAL_FIELDS)} }
  settings { ${fieldsOf(SETTINGS_FIELDS)} }
  sectionOrder
  hiddenSections
  sections { ${SECTION_KEYS.map((section) => `${section} { ${fieldsOf(SECTION_FIELDS[section])} }`).join(' ')} }
  customSections { ${fieldsOf(CUSTOM_SECTION_FIELDS)} }
  photo { type width height size }`;

type Row = Record<string, string | boolean | null>;

interface CvDocumentData extends CvData {
  personal: Row;
  settings: Row;
  sectionOrder: string[];
  hiddenSections: string[];
  sections: Record<string, Row[]>;
  customSections: Row[];
  photo: { type: string; width: number; height: number; size: number } | null;
}

const documentOperation = <K extends string, V extends Record<string, unknown>>(
  name: string,
  field: K,
  signature: string,
  call: string,
) =>
  operation<Record<K, CvDocumentData>, V>(
    name,
    `mutation ${name}${signature} { ${field}${call} { ${CV_DOCUMENT_FIELDS} } }`,
  );

export const CV_GET = operation<{ cv: CvDocumentData }, { id: string }>(
  'CvGet',
  `query CvGet($id: ID!) { cv(id: $id) { ${CV_DOCUMENT_FIELDS} } }`,
);

/** Who owns the CV, asked before a 422 so a bad key, an unknown CV or another account's answer first. */
export const CV_OWNED = operation<{ cv: { id: string; templateId: string } }, { id: string }>(
  'CvOwned',
  'query CvOwned($id: ID!) { cv(id: $id) { id templateId } }',
);

export const CV_UPDATE = documentOperation<'updateCv', { id: string; input: Record<string, unknown> }>(
  'CvUpdate',
  'updateCv',
  '($id: ID!, $input: UpdateCvInput!)',
  '(id: $id, input: $input)',
);

export const CV_DUPLICATE = documentOperation<'duplicateCv', { id: string }>(
  'CvDuplicate',
  'duplicateCv',
  '($id: ID!)',
  '(id: $id)',
);

export const CV_SWITCH_TEMPLATE = documentOperation<'switchCvTemplate', { id: string; templateId: string }>(
  'CvSwitchTemplate',
  'switchCvTemplate',
  '($id: ID!, $templateId: ID!)',
  '(id: $id, templateId: $templateId)',
);

export const CV_SET_PHOTO = documentOperation<'setCvPhoto', { id: string; photoBase64: string }>(
  'CvSetPhoto',
  'setCvPhoto',
  '($id: ID!, $photoBase64: String!)',
  '(id: $id, photoBase64: $photoBase64)',
);

export const CV_REMOVE_PHOTO = documentOperation<'removeCvPhoto', { id: string }>(
  'CvRemovePhoto',
  'removeCvPhoto',
  '($id: ID!)',
  '(id: $id)',
);

export const CV_IMPORT_RESUME = documentOperation<
  'importJsonResume',
  { input: { resume: unknown; templateId?: string; title?: string; locale?: string } }
>('CvImportJsonResume', 'importJsonResume', '($input: ImportJsonResumeInput!)', '(input: $input)');

export const CV_JSON_RESUME = operation<{ cv: { jsonResume: Record<string, unknown> } }, { id: string }>(
  'CvJsonResume',
  'query CvJsonResume($id: ID!) { cv(id: $id) { jsonResume } }',
);

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

export const CV_EXPORT = operation<
  { exportCv: { fileName: string; contentType: string; base64: string } },
  { id: string; format: 'PDF' | 'HTML' }
>(
  'CvExport',
  'mutation CvExport($id: ID!, $format: CvExportFormat!) { exportCv(id: $id, format: $format) { fileName contentType base64 } }',
);
