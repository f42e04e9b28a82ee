import { Router, type Response } from 'express';
import { GraphOperationError, type GraphClient } from '../graph-client';
import { pageRouteFor, registerRoutes, type PageRoute } from '../route-table';
import { SHARED_CV, TEMPLATE_PREVIEW } from './cv-pages.operations';

/**
 * A CV document inlines its fonts, photo and styles and runs no script, so nothing else may load:
 * a value that slipped through as markup could still fetch nothing.
 */
export const CV_DOCUMENT_CSP =
  "default-src 'none'; img-src data:; font-src data:; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** Headers of every CV document the platform serves (exports, share page, previews). */
export function setCvDocumentHeaders(res: Response): void {
  res.setHeader('Content-Security-Policy', CV_DOCUMENT_CSP);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
}

const NOT_FOUND_PAGE = `<!doctype html>
<html lang="ar" dir="rtl"><head><meta charset="utf-8"><meta name="robots" content="noindex">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>404</title>
<style>body{font-family:sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#1f2937}</style></head>
<body><h1>لم نجد هذه الصفحة</h1><p>ربما حُذفت السيرة الذاتية أو تغيّر رابطها.</p>
<p lang="en" dir="ltr">This page could not be found: the CV may have been deleted or its link changed.</p></body></html>
`;

/** Sends a CV page the graph renders, kept out of search engines; a page the graph does not know is the friendly 404. */
async function sendPage(res: Response, render: () => Promise<string>, cacheControl: string): Promise<void> {
  setCvDocumentHeaders(res);
  res.setHeader('X-Robots-Tag', 'noindex, nofollow');
  try {
    const html = await render();
    res.status(200).setHeader('Cache-Control', cacheControl).type('html').send(html);
  } catch (error) {
    const missing =
      error instanceof GraphOperationError && error.errors.some((e) => e.extensions?.code === 'NOT_FOUND');
    if (!missing) throw error;
    res.status(404).setHeader('Cache-Control', 'no-store').type('html').send(NOT_FOUND_PAGE);
  }
}

/** What a CV page's handler works with. */
interface CvPagesDependencies {
  graph: GraphClient;
}

const page = pageRouteFor<CvPagesDependencies>();

/** The public CV pages; neither needs a key. */
export const CV_PAGE_ROUTES: readonly PageRoute<CvPagesDependencies>[] = [
  page({
    method: 'get',
    path: '/cv/:token',
    operations: [SHARED_CV],
    summary: 'A CV’s share page (its `share` link)',
    handler: async (req, res, { graph }) => {
      // An edit shows at the next visit; a deleted CV's page is gone at once.
      await sendPage(
        res,
        async () => (await graph.execute(SHARED_CV, { token: req.params.token }, req)).sharedCvHtml,
        'no-cache',
      );
    },
  }),
  page({
    method: 'get',
    path: '/templates/:id/preview',
    operations: [TEMPLATE_PREVIEW],
    summary: 'A template’s live preview (its `preview_url`), in Arabic unless ?lang=en',
    handler: async (req, res, { graph }) => {
      const locale = req.query.lang === 'en' ? 'en' : 'ar';
      res.setHeader('Vary', 'Accept-Encoding');
      await sendPage(
        res,
        async () =>
          (await graph.execute(TEMPLATE_PREVIEW, { id: req.params.id, locale }, req)).templatePreviewHtml,
        'public, max-age=300',
      );
    },
  }),
];

/**
 * The public CV pages: a CV's share page (`/cv/{token}`, the `share` link) and each template's
 * live preview (`/templates/{id}/preview`, its `preview_url`). Neither needs a key; both are kept
 * out of search engines. Their per-address limit is mounted with the ticket page's (rest-adapter.ts).
 */
export function cvPagesRoutes(graph: GraphClient): Router {
  return registerRoutes(Router(), CV_PAGE_ROUTES, { graph });
}
