import type { Request } from 'express';
import { EXPORT_LINK_SECONDS } from '../../../contracts/cv/export-link';
import { EXPORTS_PER_MINUTE } from '../../../contracts/cv/export.limits';
import { setCvDocumentHeaders } from '../../public/cv-pages.routes';
import { CV_EXPORT, CV_EXPORT_BY_LINK } from '../cv.operations';
import { contentDisposition } from '../cv.resources';
import { route, type CvRoute } from './cv-route';

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

/** A CV as PDF and as HTML, with a key or by a download link. */
export const EXPORT_ROUTES: readonly CvRoute[] = EXPORTS.map((exported) =>
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
