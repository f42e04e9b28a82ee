import express from 'express';
import type { Config } from '../common/config';
import { createProbePool } from '../common/postgres';
import { HEADER_LIMITS, HttpService } from '../common/http-service';
import { pgPoolState, ProcessMetrics } from '../common/metrics';
import { createLogger, type Logger } from '../common/logger';
import { stopOnce, type Running } from '../common/process';
import { JobQueues } from '../common/job-queues';
import { connectRedis } from '../common/redis';
import { GraphClient } from './graph-client';
import { SharedReads } from './shared-reads';
import { errorHandler, JSON_BODY_LIMIT_BYTES, unknownRoute } from './http-errors';
import { plansRoutes } from './plans/plans.routes';
import { CredentialBudgets, KnownCredentials, RateBudgets, ratePolicies } from '../common/rate-budget';
import { presentedCredentials } from '../contracts/credentials';
import { byAddress, credentialLimit, credentialLookup, rateLimit } from './rate-limit';
import { CV_PATHS, cvErrorHandler, cvRateLimitRefusal, cvRoutes } from './cv/cv.routes';
import { cvPagesRoutes } from './public/cv-pages.routes';
import { boardPagesRoutes } from './public/board-pages.routes';
import { ticketPageRoutes } from './public/ticket-page.routes';
import { ticketExportRoutes } from './public/ticket-export.routes';
import { ticketReadDoor } from './tickets/ticket-read.door';
import { ticketsRoutes } from './tickets/tickets.routes';
import { whatsAppWebhookOutcomes, whatsAppWebhookRoutes } from './whatsapp/whatsapp-webhook.routes';
import { API_PREFIX } from './route-table';

export interface RunningRestAdapter extends Running {
  port: number;
  metricsPort: number;
}

/** What `/api/v1`'s routes count requests against. */
interface ApiBudgets {
  budgets: RateBudgets;
  policies: ReturnType<typeof ratePolicies>;
  counts: CredentialBudgets;
}

/** `/api/v1`: both documents' routes, each area behind the budget its document gives it. */
function apiRouter(
  graph: GraphClient,
  config: Config,
  logger: Logger,
  { budgets, policies, counts }: ApiBudgets,
): express.Router {
  const api = express.Router();
  // Not strict: a JSON string or number is a wrongly typed body (422), not malformed JSON (400).
  api.use(
    express.json({
      limit: JSON_BODY_LIMIT_BYTES,
      strict: false,
      type: ['application/json', 'application/*+json'],
    }),
  );
  // A body the parser refuses on a CV path is answered in the CV document's error shape.
  api.use(CV_PATHS, cvErrorHandler(logger));
  // ticket-calling-api.md's per-key budget (config.ticketsRateLimit), over every one of its endpoints.
  const perTicketKey = credentialLimit(counts, {
    presented: (req) => presentedCredentials({ authorization: req.get('authorization') }),
  });
  api.use(['/tickets', '/openapi.json'], perTicketKey);
  api.use(ticketsRoutes(graph, { publicBaseUrl: config.publicBaseUrl, policy: policies.tickets }));
  // The catalogue needs no key: it is counted per client address, as on the gateway. Its own
  // failures answer in the CV document's error shape, the document it belongs to; a body the
  // parser refused before it does not reach this router's handler. After the tickets' router,
  // which passes its paths by untouched, so a ticket request does not walk through it.
  const plans = express.Router();
  plans.use(
    '/plans',
    rateLimit(budgets, policies.public, { identify: byAddress, refusal: cvRateLimitRefusal }),
  );
  plans.use(plansRoutes(graph));
  plans.use('/plans', cvErrorHandler(logger));
  api.use(plans);
  api.use(
    cvRoutes(graph, logger, {
      counts,
      policy: policies.cv,
      publicBaseUrl: config.publicBaseUrl,
      openApi: { publicPolicy: policies.public, renderTimeoutMs: config.render.timeoutMs },
    }),
  );
  return api;
}

/** The legacy REST surface: each route is one GraphQL operation against the gateway. */
export async function startRestAdapter(config: Config): Promise<RunningRestAdapter> {
  const logger = createLogger({ service: 'rest-adapter', level: config.logLevel });
  const metrics = new ProcessMetrics('rest-adapter');
  const pool = createProbePool(config.databaseUrl);
  const redis = await connectRedis(config.redis, 'rest-adapter', logger);
  const known = new KnownCredentials(redis, config.redisPrefix);
  const reads = config.shareRestReads
    ? await SharedReads.listen(redis, config.redisPrefix, () => known.forgetKept())
    : undefined;
  const graph = new GraphClient(
    config.gatewayUrl,
    config.upstreamTimeoutMs,
    config.internalSecret,
    reads?.join,
  );
  const budgets = new RateBudgets(
    redis,
    config.redisPrefix,
    logger,
    metrics.rateBudgetObserver('rest'),
    config.rateCountTimeoutMs,
  );
  const policies = ratePolicies(config);
  const perAddress = rateLimit(budgets, policies.public, { identify: byAddress });
  // The gateway's budgets per credential, kept in the same Redis counts (common/rate-budget.ts).
  const counts = new CredentialBudgets(budgets, known, policies, credentialLookup(graph));

  const service = HttpService.forPlatform(
    config,
    'rest-adapter',
    logger,
    { postgres: () => pool.query('select 1'), redis, metrics, pool: () => pgPoolState(pool) },
    HEADER_LIMITS.restAdapter,
  );
  if (config.restFrontDoor) {
    service.setFrontDoor(ticketReadDoor({ service, graph, counts, logger }));
  }
  service.app.use(API_PREFIX, apiRouter(graph, config, logger, { budgets, policies, counts }));
  service.app.use(['/t', '/cv', '/templates', '/board', '/display', '/b', '/exports'], perAddress);
  service.app.use(ticketPageRoutes(graph, config, budgets, policies.publicWrites));
  service.app.use(boardPagesRoutes(graph, config));
  service.app.use(cvPagesRoutes(graph));
  service.app.use(ticketExportRoutes(config, logger));
  // Meta's webhook: a producer of the tickets-events process's queue, only while WhatsApp is on.
  let queues: JobQueues | undefined;
  const whatsAppOutcomes = whatsAppWebhookOutcomes(metrics);
  if (config.whatsapp !== null) {
    queues = new JobQueues(config, false, redis);
    service.app.use(whatsAppWebhookRoutes(config.whatsapp, queues, logger, whatsAppOutcomes));
  }
  service.app.use(unknownRoute);
  service.app.use(errorHandler(logger));

  const port = await service.listen(config.ports.rest, config.listenHost);
  return {
    port,
    metricsPort: service.metricsPort,
    stop: stopOnce(async () => {
      await service.close();
      await reads?.close();
      await queues?.close();
      graph.close();
      await pool.end();
      redis.disconnect();
      logger.info('rest-adapter stopped');
    }),
  };
}
