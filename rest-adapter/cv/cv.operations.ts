import { camelCase } from '../../common/case';
import {
  CUSTOM_SECTION_FIELDS,
  PERSONAL_FIELDS,
  SECTION_FIELDS,
  SECTION_KEYS,
  SETTINGS_FIELDS,
} from '../../contracts/cv/cv.payload';
import { operation } from '../graph-client';
import type { PlanData } from '../plans/plans.operations';

/** The graph operations the CV routes map onto, one per endpoint, and what each returns. */

export interface MeData {
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

/** GET /me. */
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

/** A template as the graph returns it. */
export interface TemplateData {
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

/** GET /templates. */
export const CV_TEMPLATES = operation<{ templates: TemplateData[] }>(
  'CvTemplates',
  `query CvTemplates { templates { ${TEMPLATE_FIELDS} } }`,
);

/** GET /templates/{id}; also asked to answer an id that cannot be one in the graph's words. */
export const CV_TEMPLATE = operation<{ template: TemplateData }, { id: string }>(
  'CvTemplate',
  `query CvTemplate($id: ID!) { template(id: $id) { ${TEMPLATE_FIELDS} } }`,
);

/** A CV without its payload, as the graph returns it. */
export interface CvData {
  id: string;
  title: string;
  locale: string;
  templateId: string;
  links: { self: string; pdf: string; html: string; share: string };
  createdAt: string;
  updatedAt: string;
}

const CV_FIELDS = 'id title locale templateId links { self pdf html share } createdAt updatedAt';

/** GET /cvs. */
export const CV_LIST = operation<{ cvs: CvData[] }>('CvList', `query CvList { cvs { ${CV_FIELDS} } }`);

/** POST /cvs. */
export const CV_CREATE = operation<
  { createCv: CvData },
  { input: { title: string; locale: string; templateId: string } }
>('CvCreate', `mutation CvCreate($input: CreateCvInput!) { createCv(input: $input) { ${CV_FIELDS} } }`);

/** DELETE /cvs/{uuid}. */
export const CV_DELETE = operation<{ deleteCv: boolean }, { id: string }>(
  'CvDelete',
  'mutation CvDelete($id: ID!) { deleteCv(id: $id) }',
);

/** Judges the key alone: asked before a 422, and to count a key as its account. */
export const CV_AUTH = operation<{ me: { id: string } }>('CvAuth', 'query CvAuth { me { id } }');

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

/** A row of the payload as the graph returns it, in its camelCase. */
export type Row = Record<string, string | boolean | null>;

/** A whole CV as the graph returns it. */
export interface CvDocumentData extends CvData {
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

/** GET /cvs/{uuid}. */
export const CV_GET = operation<{ cv: CvDocumentData }, { id: string }>(
  'CvGet',
  `query CvGet($id: ID!) { cv(id: $id) { ${CV_DOCUMENT_FIELDS} } }`,
);

/** Who owns the CV, asked before a 422 so a bad key, an unknown CV or another account's answer first. */
export const CV_OWNED = operation<{ cv: { id: string; templateId: string } }, { id: string }>(
  'CvOwned',
  'query CvOwned($id: ID!) { cv(id: $id) { id templateId } }',
);

/** PUT /cvs/{uuid}. */
export const CV_UPDATE = documentOperation<'updateCv', { id: string; input: Record<string, unknown> }>(
  'CvUpdate',
  'updateCv',
  '($id: ID!, $input: UpdateCvInput!)',
  '(id: $id, input: $input)',
);

/** POST /cvs/{uuid}/duplicate. */
export const CV_DUPLICATE = documentOperation<'duplicateCv', { id: string }>(
  'CvDuplicate',
  'duplicateCv',
  '($id: ID!)',
  '(id: $id)',
);

/** PUT /cvs/{uuid}/template. */
export const CV_SWITCH_TEMPLATE = documentOperation<'switchCvTemplate', { id: string; templateId: string }>(
  'CvSwitchTemplate',
  'switchCvTemplate',
  '($id: ID!, $templateId: ID!)',
  '(id: $id, templateId: $templateId)',
);

/** POST /cvs/{uuid}/photo: the upload's bytes in base64. */
export const CV_SET_PHOTO = documentOperation<'setCvPhoto', { id: string; photoBase64: string }>(
  'CvSetPhoto',
  'setCvPhoto',
  '($id: ID!, $photoBase64: String!)',
  '(id: $id, photoBase64: $photoBase64)',
);

/** DELETE /cvs/{uuid}/photo. */
export const CV_REMOVE_PHOTO = documentOperation<'removeCvPhoto', { id: string }>(
  'CvRemovePhoto',
  'removeCvPhoto',
  '($id: ID!)',
  '(id: $id)',
);

/** The graph's `ImportJsonResumeInput`: the resume and the options sent beside it. */
export interface ImportJsonResumeInput {
  resume: unknown;
  templateId?: string;
  title?: string;
  locale?: string;
}

/** POST /cvs/import/json-resume. */
export const CV_IMPORT_RESUME = documentOperation<'importJsonResume', { input: ImportJsonResumeInput }>(
  'CvImportJsonResume',
  'importJsonResume',
  '($input: ImportJsonResumeInput!)',
  '(input: $input)',
);

/** GET /cvs/{uuid}/json-resume. */
export const CV_JSON_RESUME = operation<{ cv: { jsonResume: Record<string, unknown> } }, { id: string }>(
  'CvJsonResume',
  'query CvJsonResume($id: ID!) { cv(id: $id) { jsonResume } }',
);

/** GET /cvs/{uuid}/pdf and /html: the file in base64, with its name and type. */
export const CV_EXPORT = operation<
  { exportCv: { fileName: string; contentType: string; base64: string } },
  { id: string; format: 'PDF' | 'HTML' }
>(
  'CvExport',
  'mutation CvExport($id: ID!, $format: CvExportFormat!) { exportCv(id: $id, format: $format) { fileName contentType base64 } }',
);

/** GET /cvs/{uuid}/pdf and /html followed from a cvExportUrl link: the same export, the link as credential. */
export const CV_EXPORT_BY_LINK = operation<
  { exportCvByLink: { fileName: string; contentType: string; base64: string } },
  { id: string; format: 'PDF' | 'HTML'; account: string; expires: string; signature: string }
>(
  'CvExportByLink',
  'mutation CvExportByLink($id: ID!, $format: CvExportFormat!, $account: ID!, $expires: String!, $signature: String!) { exportCvByLink(id: $id, format: $format, account: $account, expires: $expires, signature: $signature) { fileName contentType base64 } }',
);
