import { randomBytes } from 'node:crypto';
import type { Express, Request, Response } from 'express';
import type { Logger } from '../../common/logger';
import { sendAsset } from '../../common/static-asset';
import type { ExplorerBundle } from './explorer-bundle';

const GRAPH_PATH = '/graphql';

/** Under the graph's own path, so a proxy that forwards `/graphql` forwards the explorer too. */
const EXPLORER_ASSET_PATH = `${GRAPH_PATH}/explorer`;

/**
 * What a GraphQL client may ask for, and HTML. A request that prefers HTML over all of them is a
 * browser opening the address: the test Apollo used for its landing page, so every other client
 * (POST, GET asking for JSON or for nothing in particular) still reaches Apollo unchanged.
 */
const NEGOTIATED = ['application/json', 'application/graphql-response+json', 'multipart/mixed', 'text/html'];

function prefersHtml(req: Request): boolean {
  return req.get('accept') !== undefined && req.accepts(NEGOTIATED) === 'text/html';
}

/** A host as a browser names it; anything else is left out of the policy rather than written into a header. */
const HOST = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * Only the gateway's own origin: its script and style, the fonts and icons GraphiQL's stylesheet
 * carries as data: URLs, HTTP to `/graphql` and graphql-ws on the same host. The nonce admits the
 * one `<style>` element Radix's dialogs add to lock scrolling; nothing inline runs.
 */
function contentSecurityPolicy(req: Request, nonce: string): string {
  const host = HOST.test(req.host) ? req.host : undefined;
  return [
    "default-src 'self'",
    "script-src 'self'",
    `style-src 'self' 'nonce-${nonce}'`,
    "font-src 'self' data:",
    "img-src 'self' data:",
    `connect-src 'self'${host === undefined ? '' : ` ws://${host} wss://${host}`}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

function explorerPage({ manifest }: ExplorerBundle, nonce: string): string {
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta property="csp-nonce" nonce="${nonce}" />
    <title>GraphQL explorer</title>
    <link rel="icon" href="data:," />
    <link rel="stylesheet" href="${EXPLORER_ASSET_PATH}/${manifest.style}" />
    <script defer src="${EXPLORER_ASSET_PATH}/${manifest.script}"></script>
  </head>
  <body>
    <div id="explorer"></div>
  </body>
</html>
`;
}

function sendPage(req: Request, res: Response, bundle: ExplorerBundle | undefined): void {
  // The same URL answers JSON to other clients: no cache may hand one the other's answer.
  res.setHeader('Vary', 'Accept');
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  if (bundle === undefined) {
    res.status(503).type('text/plain').send('The explorer is not built: run npm run build.\n');
    return;
  }
  const nonce = randomBytes(16).toString('base64');
  res.setHeader('Content-Security-Policy', contentSecurityPolicy(req, nonce));
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.type('html').send(explorerPage(bundle, nonce));
}

/**
 * GraphiQL on `GET /graphql` for a browser, from the gateway's own origin (no CDN, no font
 * service), and its content-hashed files under EXPLORER_ASSET_PATH. Development only: production
 * mounts none of it. Mounted before the graph, so fetching the page counts against no budget.
 */
export function mountExplorer(app: Express, bundle: ExplorerBundle | undefined, logger: Logger): void {
  if (bundle === undefined) {
    logger.warn('the explorer is not built (npm run build): GET /graphql in a browser says so');
  }
  app.get(`${EXPLORER_ASSET_PATH}/:name`, (req, res) => {
    const file = bundle?.files.get(req.params.name);
    if (file === undefined) {
      res.status(404).json({ message: 'Not found.' });
      return;
    }
    sendAsset(req, res, file);
  });
  app.get(GRAPH_PATH, (req, res, next) => {
    if (prefersHtml(req)) sendPage(req, res, bundle);
    else next();
  });
}
