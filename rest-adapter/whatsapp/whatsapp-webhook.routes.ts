import { createHmac, timingSafeEqual } from 'node:crypto';
import express, { type Request, type Response, type Router } from 'express';
import type { WhatsAppConfig } from '../../common/config';
import type { JobQueues } from '../../common/job-queues';
import type { Logger } from '../../common/logger';
import type { Counter } from 'prom-client';
import type { ProcessMetrics } from '../../common/metrics';
import { currentRequestId } from '../../common/request-context';
import {
  WHATSAPP_INBOUND_QUEUE,
  WHATSAPP_SIGNATURE_HEADER,
  WHATSAPP_WEBHOOK_PATH,
} from '../../contracts/tickets/whatsapp-webhook';
import { JSON_BODY_LIMIT_BYTES } from '../http-errors';
import { pageRouteFor, registerRoutes, type PageRoute } from '../route-table';

/** What a webhook request came to: the `result` of `nida_whatsapp_webhook_requests_total`. */
export type WhatsAppWebhookOutcome =
  'verified' | 'verify_refused' | 'accepted' | 'bad_signature' | 'missing_signature' | 'queue_unavailable';

const OUTCOMES: readonly WhatsAppWebhookOutcome[] = [
  'verified',
  'verify_refused',
  'accepted',
  'bad_signature',
  'missing_signature',
  'queue_unavailable',
];

/** What the webhook's routes work with. */
interface WhatsAppWebhookDependencies {
  whatsapp: WhatsAppConfig;
  queues: JobQueues;
  logger: Logger;
  outcome: (result: WhatsAppWebhookOutcome) => void;
}

/** Whether `header` is `sha256=` + the hex HMAC-SHA256 of `raw` under one of the secrets, compared in constant time. */
export function whatsAppSignatureValid(raw: Buffer, header: string, secrets: readonly string[]): boolean {
  const match = /^sha256=([0-9a-f]{64})$/i.exec(header.trim());
  if (match === null) return false;
  const given = Buffer.from(match[1]!.toLowerCase(), 'hex');
  // Every secret is tried, so the time taken says nothing of which one (if any) matched.
  let valid = false;
  for (const secret of secrets) {
    const expected = createHmac('sha256', secret).update(raw).digest();
    if (timingSafeEqual(given, expected)) valid = true;
  }
  return valid;
}

/** Meta's verification: `hub.mode=subscribe` and our verify token, answered with the challenge as it came. */
function verify(req: Request, res: Response, dependencies: WhatsAppWebhookDependencies): void {
  const mode = req.query['hub.mode'];
  const token = req.query['hub.verify_token'];
  const challenge = req.query['hub.challenge'];
  const expected = Buffer.from(dependencies.whatsapp.verifyToken);
  const tokenOk =
    typeof token === 'string' &&
    Buffer.byteLength(token) === expected.length &&
    timingSafeEqual(Buffer.from(token), expected);
  if (mode !== 'subscribe' || !tokenOk || typeof challenge !== 'string') {
    dependencies.outcome('verify_refused');
    res.status(403).type('text/plain').send('Forbidden');
    return;
  }
  dependencies.outcome('verified');
  res.status(200).type('text/plain').send(challenge);
}

/**
 * A notification: its raw bytes checked against each app secret, then handed whole to the
 * tickets-events process through the queue, and answered 200 at once (Meta waits for no work).
 * Unsigned or wrongly signed: 401, and nothing is kept. A queue that does not take it: 503, so
 * Meta sends it again.
 */
async function receive(
  req: Request,
  res: Response,
  dependencies: WhatsAppWebhookDependencies,
): Promise<void> {
  const signature = req.get(WHATSAPP_SIGNATURE_HEADER);
  const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
  if (signature === undefined) {
    dependencies.outcome('missing_signature');
    res.status(401).json({ message: 'Unauthenticated.', request_id: currentRequestId() });
    return;
  }
  if (!whatsAppSignatureValid(raw, signature, dependencies.whatsapp.appSecrets)) {
    dependencies.outcome('bad_signature');
    dependencies.logger.warn('WhatsApp webhook with a bad signature refused');
    res.status(401).json({ message: 'Unauthenticated.', request_id: currentRequestId() });
    return;
  }
  try {
    await dependencies.queues.enqueuePayload(WHATSAPP_INBOUND_QUEUE, raw.toString('utf8'));
  } catch (error) {
    dependencies.outcome('queue_unavailable');
    dependencies.logger.warn({ err: error }, 'WhatsApp webhook not queued; Meta will send it again');
    res.status(503).setHeader('Retry-After', '5').json({ message: 'Service temporarily unavailable' });
    return;
  }
  dependencies.outcome('accepted');
  res.status(200).type('text/plain').send('OK');
}

const route = pageRouteFor<WhatsAppWebhookDependencies>();

export const WHATSAPP_WEBHOOK_ROUTES: readonly PageRoute<WhatsAppWebhookDependencies>[] = [
  route({
    method: 'get',
    path: WHATSAPP_WEBHOOK_PATH,
    operations: [],
    summary: 'Meta’s verification of the WhatsApp webhook (hub.mode, hub.verify_token, hub.challenge)',
    handler: (req, res, dependencies) => verify(req, res, dependencies),
  }),
  route({
    method: 'post',
    path: WHATSAPP_WEBHOOK_PATH,
    operations: [],
    summary:
      'Meta’s WhatsApp notifications (messages, statuses), signed with the app secret; queued for tickets-events',
    handler: (req, res, dependencies) => receive(req, res, dependencies),
  }),
];

/**
 * `nida_whatsapp_webhook_requests_total`, each outcome at 0: registered whether or not WhatsApp is
 * configured, so the family the dashboard and alert read is always served (at 0 while it is off).
 */
export function whatsAppWebhookOutcomes(metrics: ProcessMetrics): Counter<'result'> {
  const outcomes = metrics.counter(
    'nida_whatsapp_webhook_requests_total',
    'Requests to the WhatsApp webhook, by outcome (verified, accepted, bad_signature, ...).',
    ['result'],
  );
  for (const result of OUTCOMES) outcomes.inc({ result }, 0);
  return outcomes;
}

/**
 * Meta's WhatsApp webhook (`/webhooks/whatsapp`), a platform route no document describes. Like the
 * CSV export it sends no GraphQL operation: a signed notification is queued for the tickets-events
 * process, which owns the chats and the delivery log. Unregistered while WhatsApp is not
 * configured, so the path is then an unknown route (404).
 */
export function whatsAppWebhookRoutes(
  whatsapp: WhatsAppConfig,
  queues: JobQueues,
  logger: Logger,
  outcomes: Counter<'result'>,
): Router {
  const router = express.Router();
  // The signature is over the bytes as sent, so the body is kept raw, whatever its type says.
  router.use(WHATSAPP_WEBHOOK_PATH, express.raw({ type: () => true, limit: JSON_BODY_LIMIT_BYTES }));
  return registerRoutes(router, WHATSAPP_WEBHOOK_ROUTES, {
    whatsapp,
    queues,
    logger,
    outcome: (result) => outcomes.inc({ result }),
  });
}
