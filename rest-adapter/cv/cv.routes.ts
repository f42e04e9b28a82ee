import { Router } from 'express';
import { ValidationError, type FieldErrors } from '../../common/errors';
import type { Logger } from '../../common/logger';
import { sendCacheable } from '../cacheable';
import type { PlanData } from '../plans/plans.routes';
import { operation, type GraphClient } from '../graph-client';
import { errorHandler } from '../http-errors';

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

const CV_AUTH = operation<{ me: { id: string } }>('CvAuth', 'query CvAuth { me { id } }');

/** A CV as lists and creation show it (the full payload comes with GET /cvs/{uuid}). */
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

/** Presence and JSON types of the create body; values are the graph's to judge. */
function createBodyErrors(body: Record<string, unknown>): FieldErrors {
  const errors: FieldErrors = {};
  for (const field of ['title', 'locale'] as const) {
    const value = body[field];
    if (value === undefined || value === null || value === '')
      errors[field] = [`The ${field} field is required.`];
    else if (typeof value !== 'string') errors[field] = [`The ${field} field must be a string.`];
  }
  const templateId = body.template_id;
  if (templateId === undefined || templateId === null)
    errors.template_id = ['The template id field is required.'];
  else if (typeof templateId !== 'number' || !Number.isInteger(templateId)) {
    errors.template_id = ['The template id field must be an integer.'];
  }
  return errors;
}

/** Per account (availability follows its plan): private caches only. */
const TEMPLATE_CACHE = 'private, max-age=300';

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

/** The CV document's routes that need `X-API-Key`; each is one operation on the graph. */
export function cvRoutes(graph: GraphClient, logger: Logger): Router {
  const router = Router();
  router.get('/me', async (req, res) => {
    res.json({ data: toAccountResource(await graph.execute(CV_ME, {}, req)) });
  });
  router.get('/templates', async (req, res) => {
    const { templates } = await graph.execute(CV_TEMPLATES, {}, req);
    res.setHeader('Vary', 'X-API-Key, Accept-Language');
    sendCacheable(req, res, { data: templates.map(toTemplateResource) }, TEMPLATE_CACHE);
  });
  router.get('/templates/:id', async (req, res) => {
    const { template } = await graph.execute(CV_TEMPLATE, { id: req.params.id }, req);
    res.setHeader('Vary', 'X-API-Key, Accept-Language');
    sendCacheable(req, res, { data: toTemplateResource(template) }, TEMPLATE_CACHE);
  });
  router.get('/cvs', async (req, res) => {
    res.json({ data: (await graph.execute(CV_LIST, {}, req)).cvs.map(toCvResource) });
  });
  router.post('/cvs', async (req, res) => {
    const body = (typeof req.body === 'object' && req.body !== null ? req.body : {}) as Record<
      string,
      unknown
    >;
    const errors = createBodyErrors(body);
    if (Object.keys(errors).length > 0) {
      // The key is judged first: an unknown key is 401 even with a malformed body.
      await graph.execute(CV_AUTH, {}, req);
      throw new ValidationError(errors);
    }
    const { createCv } = await graph.execute(
      CV_CREATE,
      {
        input: {
          title: body.title as string,
          locale: body.locale as string,
          templateId: String(body.template_id as number),
        },
      },
      req,
    );
    res.status(201).json({ data: toCvResource(createCv) });
  });
  router.delete('/cvs/:uuid', async (req, res) => {
    await graph.execute(CV_DELETE, { id: req.params.uuid }, req);
    res.json({ data: { id: req.params.uuid.toLowerCase(), deleted: true } });
  });
  // Inside this router, so only the CV document's routes answer in its error shape.
  router.use(errorHandler(logger, { alwaysFieldErrors: true }));
  return router;
}
