import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import express, { type Request, type Response, type Router } from 'express';
import QRCode from 'qrcode';
import type { Config } from '../../common/config';
import type { TextLanguage } from '../../common/language';
import { projectRoot } from '../../common/paths';
import type { RateBudgets, RatePolicy } from '../../common/rate-budget';
import { GraphOperationError, operation, type GraphClient } from '../graph-client';
import { byAddress, rateLimit } from '../rate-limit';
import { notFoundPage, ticketPage, type PageAssets, type PageTicket } from './ticket-page.html';

const TOKEN = /^[A-Za-z0-9_-]{32}$/;

/** 58 mm receipt printers are 384 dots wide, 80 mm ones 576. */
export const QR_SIZES = { default: 384, min: 128, max: 1024 } as const;

const OPEN_PAGE = operation<{ linkTicket: PageTicket }, { token: string }>(
  'TicketPageOpen',
  `mutation TicketPageOpen($token: String!) {
    linkTicket(token: $token) {
      number status statusText venueName branchName timezone ringCount alertsEnabled smsOptIn smsAvailable pushKey
      feedback { rating } readyAt collectedAt createdAt updatedAt
    }
  }`,
);

const ENABLE_ALERTS = operation<{ enableTicketAlerts: { alertsEnabled: boolean } }, { token: string }>(
  'TicketPageAlerts',
  'mutation TicketPageAlerts($token: String!) { enableTicketAlerts(token: $token) { alertsEnabled } }',
);

const OPT_IN_SMS = operation<{ optInTicketSms: { smsOptIn: boolean } }, { token: string; phone: string }>(
  'TicketPageSms',
  'mutation TicketPageSms($token: String!, $phone: String!) { optInTicketSms(token: $token, phone: $phone) { smsOptIn } }',
);

const SUBSCRIBE_PUSH = operation<
  { subscribeTicketPush: { pushKey: string | null } },
  { token: string; endpoint: string; p256dh: string; auth: string }
>(
  'TicketPagePush',
  `mutation TicketPagePush($token: String!, $endpoint: String!, $p256dh: String!, $auth: String!) {
    subscribeTicketPush(token: $token, endpoint: $endpoint, p256dh: $p256dh, auth: $auth) { pushKey }
  }`,
);

const SUBMIT_FEEDBACK = operation<
  { submitTicketFeedback: { rating: number; comment: string | null; createdAt: string } },
  { token: string; rating: number; comment: string | null }
>(
  'TicketPageFeedback',
  `mutation TicketPageFeedback($token: String!, $rating: Int!, $comment: String) {
    submitTicketFeedback(token: $token, rating: $rating, comment: $comment) { rating comment createdAt }
  }`,
);

const TICKET_EXISTS = operation<{ ticketByToken: { number: string } | null }, { token: string }>(
  'TicketQr',
  'query TicketQr($token: String!) { ticketByToken(token: $token) { number } }',
);

interface Asset {
  body: Buffer;
  gzipped?: Buffer;
  type: string;
  cacheControl: string;
}

const IMMUTABLE = 'public, max-age=31536000, immutable';

/** The page's script and style under content-hashed names, and the fonts it embeds. */
function loadAssets(): { files: Map<string, Asset>; page: PageAssets } {
  const dir = join(projectRoot(), 'rest-adapter', 'public', 'assets');
  const fonts = join(projectRoot(), 'node_modules', '@fontsource', 'noto-naskh-arabic', 'files');
  const files = new Map<string, Asset>();
  const hashed = (name: string, type: string) => {
    const body = readFileSync(join(dir, name));
    const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
    const served = name.replace(/\.(\w+)$/, `.${hash}.$1`);
    files.set(served, { body, gzipped: gzipSync(body, { level: 9 }), type, cacheControl: IMMUTABLE });
    return `/t/assets/${served}`;
  };
  for (const [served, file] of [
    ['naskh-arabic-400.woff2', 'noto-naskh-arabic-arabic-400-normal.woff2'],
    ['naskh-arabic-700.woff2', 'noto-naskh-arabic-arabic-700-normal.woff2'],
    ['naskh-latin-400.woff2', 'noto-naskh-arabic-latin-400-normal.woff2'],
    ['naskh-latin-700.woff2', 'noto-naskh-arabic-latin-700-normal.woff2'],
  ] as const) {
    // Fonts keep their names (the stylesheet refers to them), so a week rather than forever.
    files.set(`fonts/${served}`, {
      body: readFileSync(join(fonts, file)),
      type: 'font/woff2',
      cacheControl: 'public, max-age=604800',
    });
  }
  return {
    files,
    page: {
      script: hashed('page.js', 'text/javascript; charset=utf-8'),
      style: hashed('page.css', 'text/css; charset=utf-8'),
    },
  };
}

/**
 * Arabic unless the customer asks otherwise: `?lang=` (the page's toggle) wins, then the first of
 * ar or en in Accept-Language.
 */
export function pageLanguage(query: unknown, acceptLanguage: string | undefined): TextLanguage {
  if (query === 'en' || query === 'ar') return query;
  for (const part of (acceptLanguage ?? '').split(',')) {
    const tag = part.split(';')[0]?.trim().toLowerCase() ?? '';
    if (tag === 'ar' || tag.startsWith('ar-')) return 'ar';
    if (tag === 'en' || tag.startsWith('en-')) return 'en';
  }
  return 'ar';
}

/** A strict policy: only the project's own files, and the gateway's socket for live updates. */
function contentSecurityPolicy(liveUrl: string): string {
  const live = new URL(liveUrl);
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "font-src 'self'",
    "img-src 'self'",
    "worker-src 'self'",
    "manifest-src 'none'",
    `connect-src 'self' ${live.protocol}//${live.host}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

function sendAsset(req: Request, res: Response, asset: Asset): void {
  res.setHeader('Content-Type', asset.type);
  res.setHeader('Cache-Control', asset.cacheControl);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Vary', 'Accept-Encoding');
  if (asset.gzipped !== undefined && /\bgzip\b/.test(req.get('accept-encoding') ?? '')) {
    res.setHeader('Content-Encoding', 'gzip');
    res.end(asset.gzipped);
    return;
  }
  res.end(asset.body);
}

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
  const serviceWorker: Asset = {
    body: serviceWorkerBody,
    gzipped: gzipSync(serviceWorkerBody),
    type: 'text/javascript; charset=utf-8',
    cacheControl: 'no-cache',
  };
  const csp = contentSecurityPolicy(config.publicLiveUrl);

  // The service worker needs a fixed URL whose path covers /t/ (its scope), and must be revalidated.
  router.get('/t/sw.js', (req, res) => sendAsset(req, res, serviceWorker));

  router.get('/t/assets/*path', (req, res, next) => {
    const asset = files.get(req.params.path.join('/'));
    if (asset === undefined) {
      next();
      return;
    }
    sendAsset(req, res, asset);
  });

  const missing = (res: Response, language: TextLanguage) => {
    res.status(404).setHeader('Cache-Control', 'no-store').type('html').send(notFoundPage(language, page));
  };

  router.get('/t/:token', async (req, res) => {
    const language = pageLanguage(req.query.lang, req.get('accept-language'));
    res.setHeader('Content-Security-Policy', csp);
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Vary', 'Accept-Language');
    const token = req.params.token;
    if (!TOKEN.test(token)) {
      missing(res, language);
      return;
    }
    let ticket: PageTicket;
    try {
      ticket = (await graph.execute(OPEN_PAGE, { token }, req, { 'accept-language': language })).linkTicket;
    } catch (error) {
      if (error instanceof GraphOperationError && error.errors[0]?.extensions?.code === 'NOT_FOUND') {
        missing(res, language);
        return;
      }
      throw error;
    }
    res.setHeader('Cache-Control', 'no-store');
    res.type('html').send(ticketPage(ticket, token, language, config.publicLiveUrl, page));
  });

  // The page's writes: small JSON bodies, their own tighter limit per client address.
  const writes = express.Router({ mergeParams: true });
  const writeLimit = rateLimit(budgets, writesPolicy, { identify: byAddress });
  writes.use(
    // Mounted under /t/:token, this router also sees the page's reads (QR images): only writes count.
    (req, res, next) => (req.method === 'POST' ? writeLimit(req, res, next) : next()),
    express.json({ limit: '8kb', strict: false }),
  );
  const body = (req: Request): Record<string, unknown> =>
    typeof req.body === 'object' && req.body !== null && !Array.isArray(req.body)
      ? (req.body as Record<string, unknown>)
      : {};
  const refuse = (res: Response, errors: Record<string, string[]>) => {
    res.status(422).json({ message: Object.values(errors)[0]?.[0] ?? 'The given data was invalid.', errors });
  };
  const tokenOf = (req: Request, res: Response): string | null => {
    const token = String(req.params.token);
    if (TOKEN.test(token)) return token;
    res.status(404).json({ message: 'Ticket not found.' });
    return null;
  };

  writes.post('/alerts', async (req, res) => {
    const token = tokenOf(req, res);
    if (token === null) return;
    const done = await graph.execute(ENABLE_ALERTS, { token }, req);
    res.json({ alerts_enabled: done.enableTicketAlerts.alertsEnabled });
  });

  writes.post('/sms', async (req, res) => {
    const token = tokenOf(req, res);
    if (token === null) return;
    const { phone } = body(req);
    if (typeof phone !== 'string') return refuse(res, { phone: ['The phone field is required.'] });
    const done = await graph.execute(OPT_IN_SMS, { token, phone }, req);
    res.json({ sms_opt_in: done.optInTicketSms.smsOptIn });
  });

  writes.post('/push', async (req, res) => {
    const token = tokenOf(req, res);
    if (token === null) return;
    // PushSubscription.toJSON() as the browser gives it.
    const { endpoint, keys } = body(req) as {
      endpoint?: unknown;
      keys?: { p256dh?: unknown; auth?: unknown };
    };
    const errors: Record<string, string[]> = {};
    if (typeof endpoint !== 'string') errors.endpoint = ['The endpoint field is required.'];
    if (typeof keys?.p256dh !== 'string') errors['keys.p256dh'] = ['The keys.p256dh field is required.'];
    if (typeof keys?.auth !== 'string') errors['keys.auth'] = ['The keys.auth field is required.'];
    if (Object.keys(errors).length > 0) return refuse(res, errors);
    await graph.execute(
      SUBSCRIBE_PUSH,
      { token, endpoint: endpoint as string, p256dh: keys!.p256dh as string, auth: keys!.auth as string },
      req,
    );
    res.status(201).json({ subscribed: true });
  });

  writes.post('/feedback', async (req, res) => {
    const token = tokenOf(req, res);
    if (token === null) return;
    const { rating, comment } = body(req);
    const errors: Record<string, string[]> = {};
    if (typeof rating !== 'number' || !Number.isInteger(rating)) {
      errors.rating = ['The rating must be 1, 2, 3, 4 or 5.'];
    }
    if (comment !== undefined && comment !== null && typeof comment !== 'string') {
      errors.comment = ['The comment must be a string.'];
    }
    if (Object.keys(errors).length > 0) return refuse(res, errors);
    const done = await graph.execute(
      SUBMIT_FEEDBACK,
      { token, rating: rating as number, comment: (comment as string | null | undefined) ?? null },
      req,
    );
    const feedback = done.submitTicketFeedback;
    res.status(201).json({
      feedback: { rating: feedback.rating, comment: feedback.comment, created_at: feedback.createdAt },
    });
  });
  router.use('/t/:token', writes);

  const qr = (format: 'png' | 'svg') => async (req: Request, res: Response) => {
    const token = String(req.params.token);
    let size: number = QR_SIZES.default;
    if (req.query.size !== undefined) {
      size = Number(req.query.size);
      if (!Number.isInteger(size) || size < QR_SIZES.min || size > QR_SIZES.max) {
        const message = `The size must be a whole number of pixels from ${QR_SIZES.min} to ${QR_SIZES.max}.`;
        res.status(422).json({ message, errors: { size: [message] } });
        return;
      }
    }
    const found = TOKEN.test(token)
      ? (await graph.execute(TICKET_EXISTS, { token }, req)).ticketByToken
      : null;
    if (found === null) {
      res.status(404).setHeader('Cache-Control', 'no-store').json({ message: 'Ticket not found.' });
      return;
    }
    const publicUrl = `${config.publicBaseUrl}/t/${token}`;
    const options = { errorCorrectionLevel: 'M', margin: 4 } as const;
    res.setHeader('Cache-Control', IMMUTABLE);
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
  router.get('/t/:token/qr.png', qr('png'));
  router.get('/t/:token/qr.svg', qr('svg'));
  return router;
}
