import { camelKeys } from '../../../common/case';
import { ValidationError } from '../../../common/errors';
import { say } from '../../../common/messages';
import { fieldErrorsOf } from '../../../common/validation';
import { cvUpdateRequest, normalizeStrings } from '../../../contracts/cv/cv.payload';
import { json, ref } from '../../openapi';
import {
  CV_AUTH,
  CV_CREATE,
  CV_DELETE,
  CV_DUPLICATE,
  CV_GET,
  CV_LIST,
  CV_OWNED,
  CV_SWITCH_TEMPLATE,
  CV_UPDATE,
} from '../cv.operations';
import { createBodyErrors, objectBody, templateIdErrors } from '../cv.requests';
import { toCvDocumentResource, toCvResource, toDeletedCv } from '../cv.resources';
import { PLAN_REFUSALS, refuse, route, type CvRoute } from './cv-route';

/** The account's CVs: the list, and a new one. */
export const CV_COLLECTION_ROUTES: readonly CvRoute[] = [
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
];

/** One CV by its UUID: read, change, delete, copy, and put on another template. */
export const CV_ITEM_ROUTES: readonly CvRoute[] = [
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
];
