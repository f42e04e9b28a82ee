import express, { type Router } from 'express';
import type { Config } from '../../common/config';
import { escapeHtml } from '../../common/html';
import { text } from '../../common/messages';
import { GraphOperationError, type GraphClient } from '../graph-client';
import { pageRouteFor, registerRoutes, type PageRoute } from '../route-table';
import { boardPage, displayPage } from './board-pages.html';
import { OPEN_DISPLAY } from './board-pages.operations';
import type { Asset } from '../../common/static-asset';
import { boardWorker, contentSecurityPolicy, PageAssetFiles, sendAssetAt } from './page-assets';
import { sendAsset } from '../../common/static-asset';
import type { PageAssets } from './ticket-page.html';
import { pageLanguage } from './ticket-page.requests';

interface BoardPagesDependencies {
  graph: GraphClient;
  config: Config;
  files: Map<string, Asset>;
  board: PageAssets;
  display: PageAssets;
  /** The board's service worker, naming this release's files. */
  worker: Asset;
  csp: string;
}

/** Where the board's service worker is served: at the root, so its scope can be `/board`. */
const BOARD_WORKER_PATH = '/board-sw.js';

const route = pageRouteFor<BoardPagesDependencies>();

/** A display token as `createDisplay` makes them; anything else cannot be one. */
const DISPLAY_TOKEN = /^dsp_[A-Za-z0-9_-]{43}$/;

function pageHeaders(res: express.Response, csp: string): void {
  res.setHeader('Content-Security-Policy', csp);
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Cache-Control', 'no-store');
}

/** A removed or unknown display: said in both languages, since its own is unknown. */
function goneDisplay(res: express.Response): void {
  const said = ['ar', 'en'].map((language) => escapeHtml(text('display.page.gone', language as 'ar' | 'en')));
  res
    .status(404)
    .type('html')
    .send(
      `<!doctype html><html lang="ar" dir="rtl"><head><meta charset="utf-8"><meta name="robots" content="noindex"><title>404</title></head><body><p>${said[0]}</p><p lang="en" dir="ltr">${said[1]}</p></body></html>`,
    );
}

export const BOARD_PAGE_ROUTES: readonly PageRoute<BoardPagesDependencies>[] = [
  route({
    method: 'get',
    path: '/b/assets/*path',
    operations: [],
    summary: 'The board’s and the display’s scripts and styles under content-hashed names, and their fonts',
    handler: (req, res, { files }, next) => sendAssetAt(req, res, files, next),
  }),
  ...(['/board', '/board/pair'] as const).map((path) =>
    route({
      method: 'get',
      path,
      operations: [],
      summary: 'The staff board: pair a tablet or sign in, then call the branch’s tickets live',
      handler: (req, res, { config, board, csp }) => {
        pageHeaders(res, csp);
        res.setHeader('Vary', 'Accept-Language');
        const language = pageLanguage(req.query.lang, req.get('accept-language'));
        res.type('html').send(boardPage(language, config.publicLiveUrl, board, BOARD_WORKER_PATH));
      },
    }),
  ),
  route({
    method: 'get',
    path: BOARD_WORKER_PATH,
    operations: [],
    summary: 'The staff board’s service worker: keeps the board and its files for a start with no connection',
    handler: (req, res, { worker }) => sendAsset(req, res, worker),
  }),
  route({
    method: 'get',
    path: '/display/:token',
    operations: [OPEN_DISPLAY],
    summary: 'A room’s display at the URL createDisplay gave, in the display’s language',
    handler: async (req, res, { graph, config, display, csp }) => {
      pageHeaders(res, csp);
      const token = req.params.token;
      if (!DISPLAY_TOKEN.test(token)) {
        goneDisplay(res);
        return;
      }
      let language: 'ar' | 'en';
      try {
        language = (await graph.execute(OPEN_DISPLAY, { token }, req)).displayBoard.language;
      } catch (error) {
        if (error instanceof GraphOperationError && error.errors[0]?.extensions?.code === 'NOT_FOUND') {
          goneDisplay(res);
          return;
        }
        throw error;
      }
      res.type('html').send(displayPage(token, language, config.publicLiveUrl, display));
    },
  }),
];

/** The venue's screens: the staff board and the room's display, on the public edge. */
export function boardPagesRoutes(graph: GraphClient, config: Config): Router {
  const assets = new PageAssetFiles('/b/assets');
  const live = assets.hashed('live.js');
  const callOut = assets.hashed('call-out.js');
  // The board draws its bold from the regular face; the display has nothing but bold.
  const board: PageAssets = {
    scripts: [
      live,
      callOut,
      assets.hashed('board-store.js'),
      assets.hashed('board-sync.js'),
      assets.hashed('board.js'),
    ],
    style: assets.stylesheet('board.css', [400]),
  };
  const dependencies: BoardPagesDependencies = {
    graph,
    config,
    files: assets.files,
    board,
    display: {
      scripts: [live, callOut, assets.hashed('display.js')],
      style: assets.stylesheet('display.css', [700]),
    },
    worker: boardWorker(assets, ['/board', board.style, ...(board.scripts ?? [])]),
    csp: contentSecurityPolicy(config.publicLiveUrl),
  };
  return registerRoutes(express.Router(), BOARD_PAGE_ROUTES, dependencies);
}
