import { JSON_RESUME_VERSION } from '../../../contracts/cv/json-resume.version';
import { json, ref } from '../../openapi';
import { CV_AUTH, CV_IMPORT_RESUME, CV_JSON_RESUME } from '../cv.operations';
import { importInputOf, importQueryParameters } from '../cv.requests';
import { toCvDocumentResource } from '../cv.resources';
import { PLAN_REFUSALS, refuse, route, type CvRoute } from './cv-route';

/** A new CV from a JSON Resume document; the table lists it before the routes of one CV. */
export const JSON_RESUME_IMPORT_ROUTE: CvRoute = route({
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
});

/** A CV as JSON Resume; the table lists it after the CV's exports. */
export const JSON_RESUME_EXPORT_ROUTE: CvRoute = route({
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
});
