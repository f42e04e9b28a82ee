import { Router, type ErrorRequestHandler, type Request, type RequestHandler } from 'express';
import { camelKeys } from '../../common/case';
import { NotFoundError, RateLimitedError, ValidationError, type FieldMessages } from '../../common/errors';
import { languageOf } from '../../common/language';
import { say, text } from '../../common/messages';
import type { Logger } from '../../common/logger';
import type { CredentialBudgets, RatePolicy } from '../../common/rate-budget';
import { fieldErrorsOf } from '../../common/validation';
import { cvUpdateRequest, normalizeStrings } from '../../contracts/cv/cv.payload';
import { EXPORT_LINK_SECONDS } from '../../contracts/cv/export-link';
import { EXPORTS_PER_MINUTE } from '../../contracts/cv/export.limits';
import { JSON_RESUME_VERSION } from '../../contracts/cv/json-resume.version';
import { PHOTO_MAX_BYTES, PHOTO_MAX_SIDE } from '../../contracts/cv/photo.limits';
import { sendCacheable } from '../cacheable';
import { bytesInWords } from '../figures';
import type { GraphClient } from '../graph-client';
import { bodyIn, errorHandler, routeNotFound } from '../http-errors';
import { inputGuard } from '../input-guard';
import { json, ref } from '../openapi';
import { PLAN_ROUTES } from '../plans/plans.routes';
import { setCvDocumentHeaders } from '../public/cv-pages.routes';
import { presentedCredentials } from '../../contracts/credentials';
import { credentialLimit } from '../rate-limit';
import { registerRoutes, routeFor, type RestRoute } from '../route-table';
import { cvOpenApi, type CvDescriptions } from './cv.openapi';
import {
  CV_AUTH,
  CV_CREATE,
  CV_DELETE,
  CV_DUPLICATE,
  CV_EXPORT,
  CV_EXPORT_BY_LINK,
  CV_GET,
  CV_IMPORT_RESUME,
  CV_JSON_RESUME,
  CV_LIST,
  CV_ME,
  CV_OWNED,
  CV_REMOVE_PHOTO,
  CV_SET_PHOTO,
  CV_SWITCH_TEMPLATE,
  CV_TEMPLATE,
  CV_TEMPLATES,
  CV_UPDATE,
} from './cv.operations';
import {
  createBodyErrors,
  importInputOf,
  importQueryParameters,
  objectBody,
  photoRequestBody,
  readPhoto,
  templateIdErrors,
  templateIdParameter,
} from './cv.requests';
import {
  contentDisposition,
  TEMPLATE_CACHE_CONTROL,
  TEMPLATE_VARY,
  toAccountResource,
  toCvDocumentResource,
  toCvResource,
  toDeletedCv,
  toTemplateResource,
} from './cv.resources';

/** What the CV router counts against and describes itself with. */
export interface CvRoutesOptions {
  /** The platform's budgets per credential: every CV route counts against its account's. */
  counts: CredentialBudgets;
  /** The account budget (cv-api.md's requests a minute per account), as the document states it. */
  policy: RatePolicy;
  /** Where clients reach the platform; the OpenAPI document's server is under it. */
  publicBaseUrl: string;
  /**
   * What else the published document states that the configuration decides. A router built
   * without it, only to list its routes, has no document to serve.
   */
  openApi?: { publicPolicy: RatePolicy; renderTimeoutMs: number };
}

/** What a CV route's handler works with. */
interface CvDependencies {
  graph: GraphClient;
  /** cv-api.md's openapi.json, built once from the tables and the configuration. */
  document: Record<string, unknown> | undefined;
}

type CvRoute = RestRoute<CvDescriptions, CvDependencies>;

const route = routeFor<CvDescriptions, CvDependencies>();

/** The key, the CV's existence and its owner are judged before the body: 401, 404, 403, then 422. */
async function refuse(
  graph: GraphClient,
  req: Request,
  errors: FieldMessages,
  params: Record<string, string> = req.params as Record<string, string>,
): Promise<never> {
  if (typeof params.uuid === 'string') await graph.execute(CV_OWNED, { id: params.uuid }, req);
  else await graph.execute(CV_AUTH, {}, req);
  throw new ValidationError(errors);
}

const PLAN_REFUSALS = 'The plan’s cv_limit is reached, or the template is premium and the plan lacks them.';

/** The exports, as the document describes them. */
const EXPORTS = [
  {
    format: 'pdf',
    graphFormat: 'PDF',
    type: 'application/pdf',
    disposition: 'attachment',
    description:
      'A4, tagged, bookmarks from the section headings; a watermark on every page on a plan with one.',
  },
  {
    format: 'html',
    graphFormat: 'HTML',
    type: 'text/html',
    disposition: 'inline',
    description:
      'One self-contained document (fonts, photo and styles inline; no external reference), the same look as the PDF; sent with a Content-Security-Policy that lets it load nothing.',
  },
] as const;

/** The query values of a download link (the graph's cvExportUrl), which stand in for X-API-Key. */
const LINK_PARAMETERS = [
  {
    name: 'expires',
    in: 'query',
    required: false,
    description: 'Of a download link: when it stops working, in Unix seconds.',
    schema: { type: 'string', pattern: '^[0-9]+$' },
  },
  {
    name: 'account',
    in: 'query',
    required: false,
    description: 'Of a download link: the account whose CV it is.',
    schema: { type: 'string', pattern: '^[0-9]+$' },
  },
  {
    name: 'signature',
    in: 'query',
    required: false,
    description: 'Of a download link: the platform’s signature of the rest; with it no key is needed.',
    schema: { type: 'string' },
  },
];

/** A download link's values when the request follows one; the graph judges them. */
function linkOf(req: Request): { account: string; expires: string; signature: string } | null {
  const value = (name: string) => (typeof req.query[name] === 'string' ? req.query[name] : '');
  if (req.query.signature === undefined) return null;
  return { account: value('account'), expires: value('expires'), signature: value('signature') };
}

const exportRoutes: CvRoute[] = EXPORTS.map((exported) =>
  route({
    method: 'get',
    path: `/cvs/:uuid/${exported.format}`,
    operations: [CV_EXPORT, CV_EXPORT_BY_LINK],
    openapi: ({ onCv, limited, exportErrors }) => {
      const described = onCv(
        `exportCv${exported.graphFormat}`,
        `${exported.graphFormat} export`,
        `${exported.description} Counts toward downloads_this_month; at most ${EXPORTS_PER_MINUTE} exports a minute per account. Without a key, a download link from the graph's cvExportUrl (expires, account, signature; valid ${EXPORT_LINK_SECONDS} seconds) serves it the same way; a link that is not the platform's or has expired is 403.`,
        {
          '200': {
            description: `The ${exported.graphFormat} file`,
            headers: {
              ...limited,
              'Content-Disposition': {
                required: true,
                description: `${exported.disposition}; the CV's title as filename* (RFC 8187) with an ASCII filename beside it.`,
                schema: { type: 'string' },
              },
            },
            content: { [exported.type]: { schema: { type: 'string', format: 'binary' } } },
          },
        },
        exportErrors,
      );
      return {
        ...described,
        security: [{ apiKey: [] }, {}],
        parameters: [...described.parameters, ...LINK_PARAMETERS],
      };
    },
    handler: async (req, res, { graph }) => {
      const id = req.params.uuid;
      const link = linkOf(req);
      const exportCv =
        link === null
          ? (await graph.execute(CV_EXPORT, { id, format: exported.graphFormat }, req)).exportCv
          : (await graph.execute(CV_EXPORT_BY_LINK, { id, format: exported.graphFormat, ...link }, req))
              .exportCvByLink;
      if (exported.format === 'html') setCvDocumentHeaders(res);
      res
        .status(200)
        .setHeader('Content-Type', exportCv.contentType)
        .setHeader('Content-Disposition', contentDisposition(exported.disposition, exportCv.fileName))
        .setHeader('Cache-Control', 'private, no-store')
        .send(Buffer.from(exportCv.base64, 'base64'));
    },
  }),
);

/** The CV document's routes that need `X-API-Key`, in the document's order; each is one graph operation. */
export const CV_ROUTES: readonly CvRoute[] = [
  route({
    method: 'get',
    path: '/me',
    operations: [CV_ME],
    openapi: ({ ok, data, authErrors, acceptLanguage }) => ({
      operationId: 'getAccount',
      summary: 'The account, its plan, subscription and usage',
      parameters: [acceptLanguage],
      responses: { '200': ok('The account of the key', data(ref('Account'))), ...authErrors },
    }),
    handler: async (req, res, { graph }) => {
      res.json({ data: toAccountResource(await graph.execute(CV_ME, {}, req)) });
    },
  }),
  route({
    method: 'get',
    path: '/templates',
    operations: [CV_TEMPLATES],
    openapi: ({
      ok,
      data,
      authErrors,
      acceptLanguage,
      ifNoneMatch,
      templateCache,
      notModified,
      limited,
    }) => ({
      operationId: 'listTemplates',
      summary: 'Templates the account can use',
      description: 'The platform’s templates in seeding order, then the account’s company’s own.',
      parameters: [acceptLanguage, ifNoneMatch],
      responses: {
        '200': ok('The templates', data({ type: 'array', items: ref('Template') }), templateCache),
        '304': notModified({ ...limited, ...templateCache }),
        ...authErrors,
      },
    }),
    handler: async (req, res, { graph }) => {
      const { templates } = await graph.execute(CV_TEMPLATES, {}, req);
      res.setHeader('Vary', TEMPLATE_VARY);
      sendCacheable(req, res, { data: templates.map(toTemplateResource) }, TEMPLATE_CACHE_CONTROL);
    },
  }),
  route({
    method: 'get',
    path: '/templates/:id',
    operations: [CV_TEMPLATE],
    openapi: ({
      ok,
      error,
      data,
      authErrors,
      acceptLanguage,
      ifNoneMatch,
      templateCache,
      notModified,
      limited,
    }) => ({
      operationId: 'getTemplate',
      summary: 'One template',
      parameters: [templateIdParameter, acceptLanguage, ifNoneMatch],
      responses: {
        '200': ok('The template', data(ref('Template')), templateCache),
        '304': notModified({ ...limited, ...templateCache }),
        ...authErrors,
        '404': error('No template with this id that the account can use.'),
      },
    }),
    handler: async (req, res, { graph }) => {
      const { template } = await graph.execute(CV_TEMPLATE, { id: req.params.id }, req);
      res.setHeader('Vary', TEMPLATE_VARY);
      sendCacheable(req, res, { data: toTemplateResource(template) }, TEMPLATE_CACHE_CONTROL);
    },
  }),
  route({
    method: 'get',
    path: '/cvs',
    operations: [CV_LIST],
    openapi: ({ ok, data, authErrors, acceptLanguage }) => ({
      operationId: 'listCvs',
      summary: 'The account’s CVs, newest first',
      parameters: [acceptLanguage],
      responses: { '200': ok('The CVs', data({ type: 'array', items: ref('Cv') })), ...authErrors },
    }),
    handler: async (req, res, { graph }) => {
      res.json({ data: (await graph.execute(CV_LIST, {}, req)).cvs.map(toCvResource) });
    },
  }),
  route({
    method: 'post',
    path: '/cvs',
    operations: [CV_CREATE, CV_AUTH],
    openapi: ({ ok, error, data, authErrors, bodyErrors, validation, acceptLanguage }) => ({
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
        '403': error(PLAN_REFUSALS),
        ...validation('A field is missing or invalid, or the template is unknown or another company’s.'),
      },
    }),
    handler: async (req, res, { graph }) => {
      const body = objectBody(req);
      const errors = createBodyErrors(body);
      if (Object.keys(errors).length > 0) await refuse(graph, req, errors);
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
    },
  }),
  route({
    method: 'post',
    path: '/cvs/import/json-resume',
    operations: [CV_IMPORT_RESUME, CV_AUTH],
    openapi: ({ ok, error, data, authErrors, bodyErrors, validation, acceptLanguage }) => ({
      operationId: 'importJsonResume',
      summary: 'Create a CV from a JSON Resume document',
      description:
        'The mapped document is validated as an update is; its errors are keyed under resume., e.g. resume.personal.email.',
      parameters: [...importQueryParameters, acceptLanguage],
      requestBody: { required: true, ...json(ref('ImportJsonResumeRequest')) },
      responses: {
        '201': ok('Created', data(ref('CvDocument'))),
        ...authErrors,
        ...bodyErrors,
        '403': error(PLAN_REFUSALS),
        ...validation('Not a JSON Resume object, an invalid option, or a mapped field is invalid.'),
      },
    }),
    handler: async (req, res, { graph }) => {
      const { input, errors } = importInputOf(req);
      if (Object.keys(errors).length > 0) await refuse(graph, req, errors);
      const { importJsonResume } = await graph.execute(CV_IMPORT_RESUME, { input }, req);
      res.status(201).json({ data: toCvDocumentResource(importJsonResume) });
    },
  }),
  route({
    method: 'get',
    path: '/cvs/:uuid',
    operations: [CV_GET],
    openapi: ({ ok, data, onCv }) =>
      onCv(
        'getCv',
        'The whole CV',
        'Personal information, settings, every section, custom sections, the photo’s facts and links.',
        { '200': ok('The CV', data(ref('CvDocument'))) },
      ),
    handler: async (req, res, { graph }) => {
      const { cv } = await graph.execute(CV_GET, { id: req.params.uuid }, req);
      res.json({ data: toCvDocumentResource(cv) });
    },
  }),
  route({
    method: 'put',
    path: '/cvs/:uuid',
    operations: [CV_UPDATE, CV_OWNED],
    openapi: ({ ok, data, onCv, bodyErrors, validation }) => ({
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
    }),
    handler: async (req, res, { graph }) => {
      const parsed = cvUpdateRequest.safeParse(normalizeStrings(req.body ?? {}), { reportInput: true });
      if (!parsed.success) return refuse(graph, req, fieldErrorsOf(parsed.error));
      // What a read returns besides the payload may come back unchanged; a different template may not.
      const {
        id: _id,
        template_id: templateId,
        photo: _p,
        links: _l,
        created_at: _c,
        updated_at: _u,
        ...patch
      } = parsed.data;
      if (templateId !== undefined && templateId !== null) {
        const { cv } = await graph.execute(CV_OWNED, { id: req.params.uuid }, req);
        if (templateId !== Number(cv.templateId)) {
          throw new ValidationError({
            template_id: [say('cv.template_id_fixed', { route: 'PUT /cvs/{uuid}/template' })],
          });
        }
      }
      const { updateCv } = await graph.execute(
        CV_UPDATE,
        { id: req.params.uuid, input: camelKeys(patch) },
        req,
      );
      res.json({ data: toCvDocumentResource(updateCv) });
    },
  }),
  route({
    method: 'delete',
    path: '/cvs/:uuid',
    operations: [CV_DELETE],
    openapi: ({ ok, data, onCv }) =>
      onCv(
        'deleteCv',
        'Delete a CV',
        'Removes the CV with its sections and photo; its share page stops working.',
        { '200': ok('Deleted', data(ref('DeletedCv'))) },
      ),
    handler: async (req, res, { graph }) => {
      await graph.execute(CV_DELETE, { id: req.params.uuid }, req);
      res.json({ data: toDeletedCv(req.params.uuid) });
    },
  }),
  route({
    method: 'post',
    path: '/cvs/:uuid/duplicate',
    operations: [CV_DUPLICATE],
    openapi: ({ ok, error, data, onCv }) =>
      onCv(
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
    handler: async (req, res, { graph }) => {
      const { duplicateCv } = await graph.execute(CV_DUPLICATE, { id: req.params.uuid }, req);
      res.status(201).json({ data: toCvDocumentResource(duplicateCv) });
    },
  }),
  route({
    method: 'put',
    path: '/cvs/:uuid/template',
    operations: [CV_SWITCH_TEMPLATE, CV_OWNED],
    openapi: ({ ok, error, data, onCv, bodyErrors, validation }) => ({
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
    }),
    handler: async (req, res, { graph }) => {
      const templateId = objectBody(req).template_id;
      const errors = templateIdErrors(templateId);
      if (errors !== undefined) await refuse(graph, req, { template_id: errors });
      const { switchCvTemplate } = await graph.execute(
        CV_SWITCH_TEMPLATE,
        { id: req.params.uuid, templateId: String(templateId as number) },
        req,
      );
      res.json({ data: toCvDocumentResource(switchCvTemplate) });
    },
  }),
  route({
    method: 'post',
    path: '/cvs/:uuid/photo',
    operations: [CV_SET_PHOTO, CV_OWNED],
    openapi: ({ ok, data, onCv, validation }) => ({
      ...onCv(
        'uploadCvPhoto',
        'Set the CV’s photo',
        `Judged by its bytes, whatever the file name or part type say. Stored upright, without metadata, at most ${PHOTO_MAX_SIDE} px a side, in its own format.`,
        { '200': ok('The CV with its photo', data(ref('CvDocument'))) },
        validation(
          `No photo part, more than one file, over ${bytesInWords(PHOTO_MAX_BYTES)}, not JPEG, PNG or WebP, or unreadable.`,
        ),
      ),
      requestBody: photoRequestBody,
    }),
    handler: async (req, res, { graph }) => {
      const photo = await readPhoto(req, res);
      if (!Buffer.isBuffer(photo)) return refuse(graph, req, photo);
      const { setCvPhoto } = await graph.execute(
        CV_SET_PHOTO,
        { id: req.params.uuid, photoBase64: photo.toString('base64') },
        req,
      );
      res.json({ data: toCvDocumentResource(setCvPhoto) });
    },
  }),
  route({
    method: 'delete',
    path: '/cvs/:uuid/photo',
    operations: [CV_REMOVE_PHOTO],
    openapi: ({ ok, data, onCv }) =>
      onCv('removeCvPhoto', 'Remove the CV’s photo', 'Removing an absent photo changes nothing.', {
        '200': ok('The CV without a photo', data(ref('CvDocument'))),
      }),
    handler: async (req, res, { graph }) => {
      const { removeCvPhoto } = await graph.execute(CV_REMOVE_PHOTO, { id: req.params.uuid }, req);
      res.json({ data: toCvDocumentResource(removeCvPhoto) });
    },
  }),
  ...exportRoutes,
  route({
    method: 'get',
    path: '/cvs/:uuid/json-resume',
    operations: [CV_JSON_RESUME],
    openapi: ({ ok, data, onCv }) =>
      onCv(
        'exportJsonResume',
        `The CV as JSON Resume ${JSON_RESUME_VERSION.replace(/^v/, '')}`,
        'meta.canonical is the CV’s self link and meta.lastModified its last change.',
        { '200': ok('The resume', data(ref('JsonResume'))) },
      ),
    handler: async (req, res, { graph }) => {
      const { cv } = await graph.execute(CV_JSON_RESUME, { id: req.params.uuid }, req);
      res.json({ data: cv.jsonResume });
    },
  }),
  route({
    method: 'get',
    path: '/cv/openapi.json',
    operations: [CV_AUTH],
    openapi: ({ ok, authErrors, acceptLanguage }) => ({
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
    }),
    handler: async (req, res, { graph, document }) => {
      await graph.execute(CV_AUTH, {}, req);
      if (document === undefined) throw new Error('this CV router was built without its OpenAPI document');
      res.json(document);
    },
  }),
];

/** Every route cv-api.md's document describes: the CV routes and the plan catalogue. */
export const CV_DOCUMENT_ROUTES: readonly RestRoute<CvDescriptions, never>[] = [...CV_ROUTES, ...PLAN_ROUTES];

/** A refusal of the CV document's limits, in its error shape and the asked language. */
export function cvRateLimitRefusal(req: Request, retryAfterSeconds: number): Error {
  return new RateLimitedError(
    retryAfterSeconds,
    text('rate.too_many_attempts', languageOf(req.get('accept-language'))),
  );
}

/**
 * The limit is the account's, not the key's: two keys of one account share it, here and on the
 * gateway (CredentialBudgets); a key the graph refuses is counted by the client address (and
 * answered 401 by the route).
 */
function accountLimiter(options: CvRoutesOptions): RequestHandler {
  return credentialLimit(options.counts, {
    presented: (req) => presentedCredentials({ 'x-api-key': req.get('x-api-key') }),
    refusal: cvRateLimitRefusal,
  });
}

/** The router of the CV routes: the account's limit, the input guard, every route of the table, then the document's own 404 and error shape. */
export function cvRoutes(graph: GraphClient, logger: Logger, options: CvRoutesOptions): Router {
  const router = Router();
  router.use(CV_PATHS, accountLimiter(options));
  router.use(
    inputGuard({
      paths: CV_PATHS,
      // The import's path is listed first so that `import` is not read as a CV's UUID.
      routes: ['/cvs/import/json-resume', '/cvs/:uuid', '/templates/:id'],
      // A UUID or template id that cannot be one is that record's 404, in the graph's words and language.
      identifiers: ['uuid', 'id'],
      headers: ['accept-language', 'if-none-match'],
      refuse: async (req, { errors, params, unaddressable }) => {
        if (unaddressable && typeof params.id === 'string' && params.uuid === undefined) {
          await graph.execute(CV_TEMPLATE, { id: params.id }, req);
        }
        return refuse(graph, req, errors, params);
      },
    }),
  );
  const document =
    options.openApi === undefined
      ? undefined
      : cvOpenApi(CV_DOCUMENT_ROUTES, {
          publicBaseUrl: options.publicBaseUrl,
          policies: { cv: options.policy, public: options.openApi.publicPolicy },
          renderTimeoutMs: options.openApi.renderTimeoutMs,
        });
  registerRoutes(router, CV_ROUTES, { graph, document });
  // A path under the document's that no route takes (`/cvs//pdf`) is still answered in its shape.
  router.use(CV_PATHS, (req, _res, next) => next(new NotFoundError(routeNotFound(req))));
  // Inside this router, so only the CV document's routes answer in its error shape.
  router.use(cvErrorHandler(logger));
  return router;
}

/** Paths of the CV document, whose errors always carry `errors` and follow `Accept-Language`. */
export const CV_PATHS = ['/me', '/templates', '/cvs', '/cv'];

/** The CV document's error handler: field errors always present, messages in the asked language. */
export function cvErrorHandler(logger: Logger): ErrorRequestHandler {
  return errorHandler(logger, {
    alwaysFieldErrors: true,
    // The graph's own messages (401, 403, 404) arrive already in the asked language.
    localize: (mapped, req) => bodyIn(mapped, languageOf(req.get('accept-language'))),
  });
}
