import { ref } from '../../openapi';
import { CV_ME } from '../cv.operations';
import { toAccountResource } from '../cv.resources';
import { route, type CvRoute } from './cv-route';

/** The account of the key: `GET /me`. */
export const ACCOUNT_ROUTES: readonly CvRoute[] = [
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
];
