import { CV_AUTH } from '../cv.operations';
import { route, type CvRoute } from './cv-route';

/** The document itself: `GET /cv/openapi.json`. */
export const OPENAPI_ROUTES: readonly CvRoute[] = [
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
