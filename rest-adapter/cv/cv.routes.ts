import { Router, type ErrorRequestHandler, type Request, type RequestHandler, type Response } from 'express';
import multer from 'multer';
import { camelKeys } from '../../common/case';
import { NotFoundError, RateLimitedError, ValidationError, type FieldErrors } from '../../common/errors';
import { languageOf } from '../../common/language';
import type { Logger } from '../../common/logger';
import type { KnownCredentials, RateBudgets, RatePolicy } from '../../common/rate-budget';
import { fieldErrorsOf } from '../../common/validation';
import { cvUpdateRequest, normalizeStrings } from '../../subgraphs/cv/cv.payload';
import { PHOTO_MAX_BYTES } from '../../subgraphs/cv/photo';
import { sendCacheable } from '../cacheable';
import { GraphOperationError, type GraphClient } from '../graph-client';
import { errorHandler, routeNotFoundMessage } from '../http-errors';
import { inputGuard } from '../input-guard';
import { byAddress, rateLimit } from '../rate-limit';
import {
  CV_AUTH,
  CV_CREATE,
  CV_DELETE,
  CV_DUPLICATE,
  CV_EXPORT,
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
  toAccountResource,
  toCvDocumentResource,
  toCvResource,
  toTemplateResource,
} from './cv.operations';
import { inArabic } from './cv.messages';
import { setCvDocumentHeaders } from '../public/cv-pages.routes';
import { cvOpenApi } from './cv.openapi';

export interface CvRoutesOptions {
  budgets: RateBudgets;
  /** cv-api.md: 60 requests a minute per account. */
  policy: RatePolicy;
  credentials: KnownCredentials;
  /** Where clients reach the platform; the OpenAPI document's server is under it. */
  publicBaseUrl: string;
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
  errors.template_id = templateIdErrors(body.template_id) ?? [];
  if (errors.template_id.length === 0) delete errors.template_id;
  return errors;
}

function templateIdErrors(value: unknown): string[] | undefined {
  if (value === undefined || value === null) return ['The template id field is required.'];
  if (typeof value !== 'number' || !Number.isInteger(value))
    return ['The template id field must be an integer.'];
  return undefined;
}

function objectBody(req: Request): Record<string, unknown> {
  return (typeof req.body === 'object' && req.body !== null ? req.body : {}) as Record<string, unknown>;
}

/**
 * RFC 6266 with RFC 8187: the title as the file name for every client that reads `filename*`,
 * and an ASCII stand-in for the few that do not.
 */
function contentDisposition(kind: 'attachment' | 'inline', fileName: string): string {
  const extension = fileName.slice(fileName.lastIndexOf('.'));
  const ascii = fileName.replace(/[^\x20-\x7e]|["\\]/g, '').trim();
  const fallback = ascii.length > extension.length ? ascii : `cv${extension}`;
  return `${kind}; filename="${fallback}"; filename*=UTF-8''${encodeURIComponent(fileName).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`;
}

/** Per account (availability follows its plan): private caches only. */
const TEMPLATE_CACHE = 'private, max-age=300';

const TOO_MANY = { en: 'Too Many Attempts.', ar: 'محاولات كثيرة جداً. أعد المحاولة لاحقاً.' } as const;

/** A refusal of the CV document's limits, in its error shape and the asked language. */
export function cvRateLimitRefusal(req: Request, retryAfterSeconds: number): Error {
  return new RateLimitedError(retryAfterSeconds, TOO_MANY[languageOf(req.get('accept-language'))]);
}

/**
 * The limit is the account's, not the key's: two keys of one account share it, here and on the
 * gateway (KnownCredentials); a key the graph refuses is counted by the client address (and
 * answered 401 by the route).
 */
function accountLimiter(graph: GraphClient, options: CvRoutesOptions): RequestHandler {
  return rateLimit(options.budgets, options.policy, {
    identify: async (req) => {
      const key = req.get('x-api-key')?.trim();
      if (!key) return byAddress(req);
      const who = await options.credentials.of('cv', key, () =>
        graph.execute(CV_AUTH, {}, req).then(
          ({ me }) => `account:${me.id}`,
          (error: unknown) => {
            if (
              error instanceof GraphOperationError &&
              error.errors[0]?.extensions?.code === 'UNAUTHENTICATED'
            )
              return null;
            throw error;
          },
        ),
      );
      return who ?? byAddress(req);
    },
    refusal: cvRateLimitRefusal,
  });
}

const photoUpload = multer({
  storage: multer.memoryStorage(),
  limits: { fileSize: PHOTO_MAX_BYTES, files: 1, fields: 10, parts: 12 },
}).single('photo');

/**
 * The multipart body of a photo upload. multer's own refusals become the field errors a client can
 * act on; the image itself is judged by the cv subgraph.
 */
function readPhoto(req: Request, res: Response): Promise<Buffer | FieldErrors> {
  return new Promise((resolve) => {
    photoUpload(req, res, (error: unknown) => {
      if (error instanceof multer.MulterError) {
        resolve({
          photo: [
            error.code === 'LIMIT_FILE_SIZE'
              ? `The photo field must not be greater than ${PHOTO_MAX_BYTES / 1024} kilobytes.`
              : error.code === 'LIMIT_UNEXPECTED_FILE' || error.code === 'LIMIT_FILE_COUNT'
                ? 'Send one file, in the multipart field photo.'
                : `The photo upload is malformed: ${error.message}.`,
          ],
        });
      } else if (error !== undefined && error !== null) {
        // busboy's own complaints (no boundary, truncated body) are a malformed upload, not a fault.
        resolve({ photo: [`The photo upload is malformed: ${(error as Error).message}.`] });
      } else if (req.file === undefined) {
        resolve({ photo: ['The photo field is required.'] });
      } else resolve(req.file.buffer);
    });
  });
}

/** The CV document's routes that need `X-API-Key`; each is one operation on the graph. */
export function cvRoutes(graph: GraphClient, logger: Logger, options: CvRoutesOptions): Router {
  const router = Router();
  const document = cvOpenApi(options.publicBaseUrl);
  router.use(CV_PATHS, accountLimiter(graph, options));

  /** The key, the CV's existence and its owner are judged before the body: 401, 404, 403, then 422. */
  const refuse = async (
    req: Request,
    errors: FieldErrors,
    params: Record<string, string> = req.params as Record<string, string>,
  ): Promise<never> => {
    if (typeof params.uuid === 'string') await graph.execute(CV_OWNED, { id: params.uuid }, req);
    else await graph.execute(CV_AUTH, {}, req);
    throw new ValidationError(errors);
  };

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
        return refuse(req, errors, params);
      },
    }),
  );

  router.get('/cv/openapi.json', async (req, res) => {
    await graph.execute(CV_AUTH, {}, req);
    res.json(document);
  });
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
    const body = objectBody(req);
    const errors = createBodyErrors(body);
    if (Object.keys(errors).length > 0) await refuse(req, errors);
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
  router.post('/cvs/import/json-resume', async (req, res) => {
    const body = objectBody(req);
    // Either the resume itself, or {resume, template_id?, title?, locale?}.
    const wrapped = typeof body.resume === 'object' && body.resume !== null && !Array.isArray(body.resume);
    const input: { resume: unknown; templateId?: string; title?: string; locale?: string } = {
      resume: wrapped ? body.resume : req.body,
    };
    const errors: FieldErrors = {};
    const templateId: unknown = wrapped ? body.template_id : req.query.template_id;
    if (typeof templateId === 'number' && Number.isInteger(templateId)) input.templateId = String(templateId);
    else if (typeof templateId === 'string' && /^[1-9][0-9]{0,17}$/.test(templateId))
      input.templateId = templateId;
    else if (templateId !== undefined && templateId !== null) {
      errors.template_id = ['The template id field must be an integer.'];
    }
    for (const field of ['title', 'locale'] as const) {
      const value = wrapped ? body[field] : req.query[field];
      if (value === undefined || value === null) continue;
      if (typeof value === 'string') input[field] = value;
      else errors[field] = [`The ${field} field must be a string.`];
    }
    if (typeof input.resume !== 'object' || input.resume === null || Array.isArray(input.resume)) {
      errors.resume = ['The resume field must be a JSON Resume object.'];
    }
    if (Object.keys(errors).length > 0) await refuse(req, errors);
    const { importJsonResume } = await graph.execute(CV_IMPORT_RESUME, { input }, req);
    res.status(201).json({ data: toCvDocumentResource(importJsonResume) });
  });
  router.get('/cvs/:uuid', async (req, res) => {
    res.json({ data: toCvDocumentResource((await graph.execute(CV_GET, { id: req.params.uuid }, req)).cv) });
  });
  router.put('/cvs/:uuid', async (req, res) => {
    const parsed = cvUpdateRequest.safeParse(normalizeStrings(req.body ?? {}), { reportInput: true });
    if (!parsed.success) return refuse(req, fieldErrorsOf(parsed.error));
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
          template_id: ['The template id field cannot change here; use PUT /cvs/{uuid}/template.'],
        });
      }
    }
    const { updateCv } = await graph.execute(
      CV_UPDATE,
      { id: req.params.uuid, input: camelKeys(patch) },
      req,
    );
    res.json({ data: toCvDocumentResource(updateCv) });
  });
  router.post('/cvs/:uuid/duplicate', async (req, res) => {
    const { duplicateCv } = await graph.execute(CV_DUPLICATE, { id: req.params.uuid }, req);
    res.status(201).json({ data: toCvDocumentResource(duplicateCv) });
  });
  router.put('/cvs/:uuid/template', async (req, res) => {
    const templateId = objectBody(req).template_id;
    const errors = templateIdErrors(templateId);
    if (errors !== undefined) await refuse(req, { template_id: errors });
    const { switchCvTemplate } = await graph.execute(
      CV_SWITCH_TEMPLATE,
      { id: req.params.uuid, templateId: String(templateId as number) },
      req,
    );
    res.json({ data: toCvDocumentResource(switchCvTemplate) });
  });
  router.post('/cvs/:uuid/photo', async (req, res) => {
    const photo = await readPhoto(req, res);
    if (!Buffer.isBuffer(photo)) return refuse(req, photo);
    const { setCvPhoto } = await graph.execute(
      CV_SET_PHOTO,
      { id: req.params.uuid, photoBase64: photo.toString('base64') },
      req,
    );
    res.json({ data: toCvDocumentResource(setCvPhoto) });
  });
  router.delete('/cvs/:uuid/photo', async (req, res) => {
    const { removeCvPhoto } = await graph.execute(CV_REMOVE_PHOTO, { id: req.params.uuid }, req);
    res.json({ data: toCvDocumentResource(removeCvPhoto) });
  });
  for (const format of ['pdf', 'html'] as const) {
    router.get(`/cvs/:uuid/${format}`, async (req, res) => {
      const { exportCv } = await graph.execute(
        CV_EXPORT,
        { id: req.params.uuid, format: format === 'pdf' ? 'PDF' : 'HTML' },
        req,
      );
      if (format === 'html') setCvDocumentHeaders(res);
      res
        .status(200)
        .setHeader('Content-Type', exportCv.contentType)
        .setHeader(
          'Content-Disposition',
          contentDisposition(format === 'pdf' ? 'attachment' : 'inline', exportCv.fileName),
        )
        .setHeader('Cache-Control', 'private, no-store')
        .send(Buffer.from(exportCv.base64, 'base64'));
    });
  }
  router.get('/cvs/:uuid/json-resume', async (req, res) => {
    const { cv } = await graph.execute(CV_JSON_RESUME, { id: req.params.uuid }, req);
    res.json({ data: cv.jsonResume });
  });
  router.delete('/cvs/:uuid', async (req, res) => {
    await graph.execute(CV_DELETE, { id: req.params.uuid }, req);
    res.json({ data: { id: req.params.uuid.toLowerCase(), deleted: true } });
  });
  // A path under the document's that no route takes (`/cvs//pdf`) is still answered in its shape.
  router.use(CV_PATHS, (req, _res, next) => next(new NotFoundError(routeNotFoundMessage(req))));
  // Inside this router, so only the CV document's routes answer in its error shape.
  router.use(cvErrorHandler(logger));
  return router;
}

/** Paths of the CV document, whose errors always carry `errors` and follow `Accept-Language`. */
export const CV_PATHS = ['/me', '/templates', '/cvs', '/cv'];

export function cvErrorHandler(logger: Logger): ErrorRequestHandler {
  return errorHandler(logger, {
    alwaysFieldErrors: true,
    // The graph's own messages (401, 403, 404) arrive already in the asked language.
    localize: (body, req) => (languageOf(req.get('accept-language')) === 'ar' ? inArabic(body) : body),
  });
}
