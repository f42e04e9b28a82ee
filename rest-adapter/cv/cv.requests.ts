import type { Request, Response } from 'express';
import multer from 'multer';
import { z } from 'zod';
import type { FieldMessages } from '../../common/errors';
import { say, type Message } from '../../common/messages';
import { cvUpdateRequest } from '../../contracts/cv/cv.payload';
import { JSON_RESUME_VERSION } from '../../contracts/cv/json-resume.version';
import { PHOTO_MAX_BYTES, PHOTO_TYPES } from '../../contracts/cv/photo.limits';
import { bytesInWords } from '../figures';
import { parameterSchema } from '../openapi';
import type { ImportJsonResumeInput } from './cv.operations';

/**
 * What cv-api.md accepts: bodies, query strings, path parameters and the photo upload. Requests
 * come from the table and schema that validate PUT /cvs/{uuid}, so the published limits are the
 * enforced ones; the other bodies are checked here for presence and JSON types, their values
 * being the graph's to judge.
 */

const accepted = cvUpdateRequest.shape;

/** A CV's title as every request takes it. */
export const title = accepted.title.unwrap();
/** A CV's locale as every request takes it. */
export const locale = accepted.locale.unwrap().describe('ar or en: sets direction and date formatting.');

/** POST /cvs's body. */
export const createCvRequest = z.object({
  title: title.describe('Internal name.'),
  locale,
  template_id: z.number().int().min(1).describe('A template id from GET /templates.'),
});

/** PUT /cvs/{uuid}/template's body. */
export const switchTemplateRequest = z.object({ template_id: z.number().int().min(1) });

/** A JSON Resume document, as the import takes it and the export gives it. */
export const jsonResume = z
  .looseObject({})
  .describe(
    `A JSON Resume ${JSON_RESUME_VERSION.replace(/^v/, '')} document (https://jsonresume.org/schema). What JSON Resume has no field for (title, locale, settings, hidden and custom sections, tasks, expertise) is kept under extra keys, so an export imports back to the same CV.`,
  );

/** POST /cvs/import/json-resume's body. */
export const importJsonResumeRequest = z
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
  );

/** The named request schemas of the CV document, described as they are accepted. */
export const CV_REQUEST_SCHEMAS = {
  CreateCvRequest: createCvRequest,
  UpdateCvRequest: cvUpdateRequest,
  SwitchTemplateRequest: switchTemplateRequest,
  ImportJsonResumeRequest: importJsonResumeRequest,
} as const;

/** The import's options as query parameters, when the body is the resume itself. */
const IMPORT_QUERY = { template_id: z.number().int().min(1), title, locale } as const;

/** The import's options in the query string. */
export const importQueryParameters = Object.entries(IMPORT_QUERY).map(([name, schema]) => ({
  name,
  in: 'query',
  required: false,
  schema: parameterSchema(schema),
  description: 'Only when the body is the resume itself.',
}));

/** A CV's id in the path. */
export const uuidParameter = {
  name: 'uuid',
  in: 'path',
  required: true,
  schema: parameterSchema(z.string().meta({ format: 'uuid' })),
  description: 'The CV’s id, matched without regard to case.',
};

/** A template's id in the path. */
export const templateIdParameter = {
  name: 'id',
  in: 'path',
  required: true,
  schema: { type: 'integer', minimum: 1 },
};

/** The body as an object; anything else reads as one without fields. */
export function objectBody(req: Request): Record<string, unknown> {
  return (typeof req.body === 'object' && req.body !== null ? req.body : {}) as Record<string, unknown>;
}

/** Presence and JSON types of the create body; values are the graph's to judge. */
export function createBodyErrors(body: Record<string, unknown>): FieldMessages {
  const errors: FieldMessages = {};
  for (const field of ['title', 'locale'] as const) {
    const value = body[field];
    if (value === undefined || value === null || value === '')
      errors[field] = [say('field.required', { field })];
    else if (typeof value !== 'string') errors[field] = [say('field.string', { field })];
  }
  errors.template_id = templateIdErrors(body.template_id) ?? [];
  if (errors.template_id.length === 0) delete errors.template_id;
  return errors;
}

/** A template id's problems, or undefined when it is a whole number. */
export function templateIdErrors(value: unknown): Message[] | undefined {
  if (value === undefined || value === null) return [say('field.required', { field: 'template id' })];
  if (typeof value !== 'number' || !Number.isInteger(value))
    return [say('field.integer', { field: 'template id' })];
  return undefined;
}

/**
 * The import's input and its problems: either the resume itself with its options in the query, or
 * {resume, template_id?, title?, locale?}.
 */
export function importInputOf(req: Request): { input: ImportJsonResumeInput; errors: FieldMessages } {
  const body = objectBody(req);
  const wrapped = typeof body.resume === 'object' && body.resume !== null && !Array.isArray(body.resume);
  const input: ImportJsonResumeInput = { resume: wrapped ? body.resume : req.body };
  const errors: FieldMessages = {};
  const templateId: unknown = wrapped ? body.template_id : req.query.template_id;
  if (typeof templateId === 'number' && Number.isInteger(templateId)) input.templateId = String(templateId);
  else if (typeof templateId === 'string' && /^[1-9][0-9]{0,17}$/.test(templateId))
    input.templateId = templateId;
  else if (templateId !== undefined && templateId !== null) {
    errors.template_id = [say('field.integer', { field: 'template id' })];
  }
  for (const field of ['title', 'locale'] as const) {
    const value = wrapped ? body[field] : req.query[field];
    if (value === undefined || value === null) continue;
    if (typeof value === 'string') input[field] = value;
    else errors[field] = [say('field.string', { field })];
  }
  if (typeof input.resume !== 'object' || input.resume === null || Array.isArray(input.resume)) {
    errors.resume = [say('field.json_resume', { field: 'resume' })];
  }
  return { input, errors };
}

const photoUpload = multer({
  storage: multer.memoryStorage(),
  limits: { fileSize: PHOTO_MAX_BYTES, files: 1, fields: 10, parts: 12 },
}).single('photo');

/**
 * The multipart body of a photo upload. multer's own refusals become the field errors a client can
 * act on; the image itself is judged by the cv subgraph.
 */
export function readPhoto(req: Request, res: Response): Promise<Buffer | FieldMessages> {
  return new Promise((resolve) => {
    photoUpload(req, res, (error: unknown) => {
      if (error instanceof multer.MulterError) {
        resolve({
          photo: [
            error.code === 'LIMIT_FILE_SIZE'
              ? say('field.max_kilobytes', { field: 'photo', max: PHOTO_MAX_BYTES / 1024 })
              : error.code === 'LIMIT_UNEXPECTED_FILE' || error.code === 'LIMIT_FILE_COUNT'
                ? say('cv.photo_one_file')
                : say('cv.photo_malformed', { reason: error.message }),
          ],
        });
      } else if (error !== undefined && error !== null) {
        // busboy's own complaints (no boundary, truncated body) are a malformed upload, not a fault.
        resolve({ photo: [say('cv.photo_malformed', { reason: (error as Error).message })] });
      } else if (req.file === undefined) {
        resolve({ photo: [say('field.required', { field: 'photo' })] });
      } else resolve(req.file.buffer);
    });
  });
}

/** The photo upload's body: one file in the multipart field `photo`. */
export const photoRequestBody = {
  required: true,
  content: {
    'multipart/form-data': {
      schema: {
        type: 'object',
        properties: {
          photo: {
            type: 'string',
            format: 'binary',
            description: `JPEG, PNG or WebP, at most ${PHOTO_MAX_BYTES} bytes (${bytesInWords(PHOTO_MAX_BYTES)}).`,
          },
        },
        required: ['photo'],
      },
      encoding: { photo: { contentType: PHOTO_TYPES.join(', ') } },
    },
  },
};
