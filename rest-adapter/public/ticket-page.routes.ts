import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import express, { type Request, type Response, type Router } from 'express';
import QRCode from 'qrcode';
import type { Config } from '../../common/config';
import type { TextLanguage } from '../../common/language';
import { projectRoot } from '../../common/paths';
import { IMMUTABLE, sendAsset, type Asset } from '../../common/static-asset';
import { contentSecurityPolicy, PageAssetFiles, sendAssetAt } from './page-assets';
import { TOKEN } from '../../common/patterns';
import type { RateBudgets, RatePolicy } from '../../common/rate-budget';
import { GraphOperationError, type GraphClient } from '../graph-client';
import { byAddress, rateLimit } from '../rate-limit';
import { pageRouteFor, registerRoutes, type PageRoute } from '../route-table';
import { notFoundPage, ticketPage, type PageAssets, type PageTicket } from './ticket-page.html';
import {
  ENABLE_ALERTS,
  OPEN_PAGE,
  OPT_IN_SMS,
  SUBMIT_FEEDBACK,
  SUBSCRIBE_PUSH,
  TICKET_EXISTS,
  TICKET_WHATSAPP,
} from './ticket-page.operations';
import {
  feedbackOf,
  pageLanguage,
  pushSubscriptionOf,
  qrSizeOf,
  writeBody,
  type WriteErrors,
} from './ticket-page.requests';

/** The page's scripts (the live client, then its own) and style under content-hashed names, and its fonts. */
function loadAssets(): { files: Map<string, Asset>; page: PageAssets } {
  const assets = new PageAssetFiles('/t/assets');
  const page = {
    scripts: [assets.hashed('live.js'), assets.hashed('page.js')],
    style: assets.stylesheet('page.css', [400, 700]),
  };
  return { files: assets.files, page };
}

/** What a ticket page route's handler works with. */
interface TicketPageDependencies {
  graph: GraphClient;
  config: Config;
  /** The page's scripts, style and fonts by their served names, and the hashed paths the page links. */
  files: Map<string, Asset>;
  page: PageAssets;
  serviceWorker: Asset;
  csp: string;
}

type TicketPageRoute = PageRoute<TicketPageDependencies>;

const route = pageRouteFor<TicketPageDependencies>();

function missing(res: Response, language: TextLanguage, page: PageAssets): void {
  res.status(404).setHeader('Cache-Control', 'no-store').type('html').send(notFoundPage(language, page));
}

function refuse(res: Response, errors: WriteErrors): void {
  res.status(422).json({ message: Object.values(errors)[0]?.[0] ?? 'The given data was invalid.', errors });
}

/** The path's token when it can be one; otherwise the write is answered 404 here. */
function tokenOf(req: Request, res: Response): string | null {
  const token = String(req.params.token);
  if (TOKEN.test(token)) return token;
  res.status(404).json({ message: 'Ticket not found.' });
  return null;
}

/** The page, its service worker and its assets: answered before the middleware of the routes under a token. */
export const TICKET_PAGE_ROUTES: readonly TicketPageRoute[] = [
  route({
    method: 'get',
    path: '/t/sw.js',
    operations: [],
    // The service worker needs a fixed URL whose path covers /t/ (its scope), and must be revalidated.
    summary: 'The page’s service worker, at the fixed URL its scope needs',
    handler: (req, res, { serviceWorker }) => sendAsset(req, res, serviceWorker),
  }),
  route({
    method: 'get',
    path: '/t/assets/*path',
    operations: [],
    summary: 'The page’s scripts and style under content-hashed names, and its fonts',
    handler: (req, res, { files }, next) => sendAssetAt(req, res, files, next),
  }),
  route({
    method: 'get',
    path: '/t/:token',
    operations: [OPEN_PAGE],
    summary: 'The customer’s page at `public_url`, in Arabic unless asked otherwise',
    handler: async (req, res, { graph, config, page, csp }) => {
      const language = pageLanguage(req.query.lang, req.get('accept-language'));
      res.setHeader('Content-Security-Policy', csp);
      res.setHeader('Referrer-Policy', 'no-referrer');
      res.setHeader('X-Content-Type-Options', 'nosniff');
      res.setHeader('Vary', 'Accept-Language');
      const token = req.params.token;
      if (!TOKEN.test(token)) {
        missing(res, language, page);
        return;
      }
      let ticket: PageTicket;
      try {
        ticket = (await graph.execute(OPEN_PAGE, { token }, req, { 'accept-language': language })).linkTicket;
      } catch (error) {
        if (error instanceof GraphOperationError && error.errors[0]?.extensions?.code === 'NOT_FOUND') {
          missing(res, language, page);
          return;
        }
        throw error;
      }
      res.setHeader('Cache-Control', 'no-store');
      res.type('html').send(ticketPage(ticket, token, language, config.publicLiveUrl, page));
    },
  }),
];

const NO_WHATSAPP =
  'This ticket has no WhatsApp link: its venue has WhatsApp off, or the order is no longer waiting.';

/**
 * What the QR code opens: the ticket's page (`public_url`, forever the same), or with `?to=whatsapp`
 * the chat that opts in to the ready alert, which lasts only while the order waits. Answers the
 * URL, or answers the request itself (422, 404) and null.
 */
async function qrTarget(
  req: Request<{ token: string }>,
  res: Response,
  { graph, config }: TicketPageDependencies,
): Promise<string | null> {
  const token = String(req.params.token);
  const to = req.query.to;
  if (to !== undefined && to !== 'whatsapp') {
    const message = 'The selected to is invalid: leave it out for the page, or give whatsapp.';
    res.status(422).json({ message, errors: { to: [message] } });
    return null;
  }
  const notFound = (message: string) => {
    res.status(404).setHeader('Cache-Control', 'no-store').json({ message });
    return null;
  };
  if (!TOKEN.test(token)) return notFound('Ticket not found.');
  if (to === 'whatsapp') {
    const ticket = (await graph.execute(TICKET_WHATSAPP, { token }, req)).ticketByToken;
    if (ticket === null) return notFound('Ticket not found.');
    if (ticket.whatsappUrl === null) return notFound(NO_WHATSAPP);
    res.setHeader('Cache-Control', 'no-store');
    return ticket.whatsappUrl;
  }
  if ((await graph.execute(TICKET_EXISTS, { token }, req)).ticketByToken === null) {
    return notFound('Ticket not found.');
  }
  res.setHeader('Cache-Control', IMMUTABLE);
  return `${config.publicBaseUrl}/t/${token}`;
}

const qr =
  (format: 'png' | 'svg') =>
  async (req: Request<{ token: string }>, res: Response, dependencies: TicketPageDependencies) => {
    const size = qrSizeOf(req.query.size);
    if (typeof size !== 'number') {
      res.status(422).json({ message: size.message, errors: { size: [size.message] } });
      return;
    }
    const publicUrl = await qrTarget(req, res, dependencies);
    if (publicUrl === null) return;
    const options = { errorCorrectionLevel: 'M', margin: 4 } as const;
    res.setHeader('X-Content-Type-Options', 'nosniff');
    if (format === 'svg') {
      res.type('image/svg+xml').send(await QRCode.toString(publicUrl, { ...options, type: 'svg' }));
      return;
    }
    // Whole dots per module keep the code sharp on a thermal printer: the largest that fits in size.
    const modules = QRCode.create(publicUrl, options).modules.size + 2 * options.margin;
    const scale = Math.max(1, Math.floor(size / modules));
    res.type('image/png').send(await QRCode.toBuffer(publicUrl, { ...options, type: 'png', scale }));
  };

/**
 * Everything under a ticket's token: the page's writes (small JSON bodies, their own tighter limit
 * per client address) and the QR images at `qr_url`, behind that middleware as before.
 */
export const TICKET_PAGE_TOKEN_ROUTES: readonly TicketPageRoute[] = [
  route({
    method: 'post',
    path: '/t/:token/alerts',
    operations: [ENABLE_ALERTS],
    summary: 'The customer allows alerts on the page',
    handler: async (req, res, { graph }) => {
      const token = tokenOf(req, res);
      if (token === null) return;
      const done = await graph.execute(ENABLE_ALERTS, { token }, req);
      res.json({ alerts_enabled: done.enableTicketAlerts.alertsEnabled });
    },
  }),
  route({
    method: 'post',
    path: '/t/:token/sms',
    operations: [OPT_IN_SMS],
    summary: 'The customer asks to be texted when the order is ready',
    handler: async (req, res, { graph }) => {
      const token = tokenOf(req, res);
      if (token === null) return;
      const { phone } = writeBody(req);
      if (typeof phone !== 'string') return refuse(res, { phone: ['The phone field is required.'] });
      const done = await graph.execute(OPT_IN_SMS, { token, phone }, req);
      res.json({ sms_opt_in: done.optInTicketSms.smsOptIn });
    },
  }),
  route({
    method: 'post',
    path: '/t/:token/push',
    operations: [SUBSCRIBE_PUSH],
    summary: 'The page’s Web Push subscription, for alerts while it is closed',
    handler: async (req, res, { graph }) => {
      const token = tokenOf(req, res);
      if (token === null) return;
      const subscription = pushSubscriptionOf(writeBody(req));
      if (subscription.errors !== undefined) return refuse(res, subscription.errors);
      await graph.execute(SUBSCRIBE_PUSH, { token, ...subscription.value }, req);
      res.status(201).json({ subscribed: true });
    },
  }),
  route({
    method: 'post',
    path: '/t/:token/feedback',
    operations: [SUBMIT_FEEDBACK],
    summary: 'The customer rates the order',
    handler: async (req, res, { graph }) => {
      const token = tokenOf(req, res);
      if (token === null) return;
      const feedback = feedbackOf(writeBody(req));
      if (feedback.errors !== undefined) return refuse(res, feedback.errors);
      const done = await graph.execute(SUBMIT_FEEDBACK, { token, ...feedback.value }, req);
      const given = done.submitTicketFeedback;
      res.status(201).json({
        feedback: { rating: given.rating, comment: given.comment, created_at: given.createdAt },
      });
    },
  }),
  route({
    method: 'get',
    path: '/t/:token/qr.png',
    operations: [TICKET_EXISTS, TICKET_WHATSAPP],
    summary:
      'The QR image of `public_url` at `qr_url`, sized for receipt printers; `?to=whatsapp` encodes the ticket’s WhatsApp opt-in link instead',
    handler: qr('png'),
  }),
  route({
    method: 'get',
    path: '/t/:token/qr.svg',
    operations: [TICKET_EXISTS, TICKET_WHATSAPP],
    summary: 'The same QR code as SVG',
    handler: qr('svg'),
  }),
];

/**
 * The public edge of ticket calling: the customer's page at `public_url` and the QR images at
 * `qr_url`, both addressed by the ticket's token and read from the graph like every REST route.
 */
export function ticketPageRoutes(
  graph: GraphClient,
  config: Config,
  budgets: RateBudgets,
  writesPolicy: RatePolicy,
): Router {
  const router = express.Router();
  const { files, page } = loadAssets();
  const serviceWorkerBody = readFileSync(join(projectRoot(), 'rest-adapter', 'public', 'assets', 'sw.js'));
  const dependencies: TicketPageDependencies = {
    graph,
    config,
    files,
    page,
    serviceWorker: {
      body: serviceWorkerBody,
      gzipped: gzipSync(serviceWorkerBody),
      type: 'text/javascript; charset=utf-8',
      cacheControl: 'no-cache',
    },
    csp: contentSecurityPolicy(config.publicLiveUrl),
  };
  registerRoutes(router, TICKET_PAGE_ROUTES, dependencies);
  const writeLimit = rateLimit(budgets, writesPolicy, { identify: byAddress });
  router.use(
    '/t/:token',
    // Every request under a token passes here, the QR images' reads too: only writes count.
    (req, res, next) => (req.method === 'POST' ? writeLimit(req, res, next) : next()),
    express.json({ limit: '8kb', strict: false }),
  );
  return registerRoutes(router, TICKET_PAGE_TOKEN_ROUTES, dependencies);
}
