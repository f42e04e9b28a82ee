import { sendCacheable } from '../../cacheable';
import { ref } from '../../openapi';
import { CV_TEMPLATE, CV_TEMPLATES } from '../cv.operations';
import { templateIdParameter } from '../cv.requests';
import { TEMPLATE_CACHE_CONTROL, TEMPLATE_VARY, toTemplateResource } from '../cv.resources';
import { route, type CvRoute } from './cv-route';

/** The templates the account can use: the list and one by id. */
export const TEMPLATE_ROUTES: readonly CvRoute[] = [
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
];
