import express from 'express';
import type { Config } from '../common/config';
import { createProbePool } from '../common/database';
import { HttpService } from '../common/http-service';
import { createLogger } from '../common/logger';
import { stopOnce, type Running } from '../common/process';
import { connectRedis } from '../common/redis';
import { GraphClient } from './graph-client';
import { errorHandler, unknownRoute } from './http-errors';
import { plansRoutes } from './plans/plans.routes';
import { credentialOf, publicRateLimit, rateLimit } from './rate-limit';
import { CV_PATHS, cvErrorHandler, cvRoutes } from './cv/cv.routes';
import { cvPagesRoutes } from './public/cv-pages.routes';
import { ticketPageRoutes } from './public/ticket-page.routes';
import { ticketsRoutes } from './tickets/tickets.routes';

export const API_PREFIX = '/api/v1';

export interface RunningRestAdapter extends Running {
  port: number;
}

/** The legacy REST surface: each route is one GraphQL operation against the gateway. */
export async function startRestAdapter(config: Config): Promise<RunningRestAdapter> {
  const logger = createLogger({ service: 'rest-adapter', level: config.logLevel });
  const pool = createProbePool(config.databaseUrl);
  const redis = await connectRedis(config.redisUrl, 'rest-adapter');
  const graph = new GraphClient(config.gatewayUrl, config.upstreamTimeoutMs);

  const service = HttpService.forPlatform(config, 'rest-adapter', logger, {
    postgres: () => pool.query('select 1'),
    redis,
  });
  const api = express.Router();
  // Not strict: a JSON string or number is a wrongly typed body (422), not malformed JSON (400).
  api.use(express.json({ limit: '1mb', strict: false, type: ['application/json', 'application/*+json'] }));
  // A body the parser refuses on a CV path is answered in the CV document's error shape.
  api.use(CV_PATHS, cvErrorHandler(logger));
  api.use(plansRoutes(graph));
  // ticket-calling-api.md: 120 requests a minute per key, over every one of its endpoints.
  const perTicketKey = rateLimit(redis, config.redisPrefix, {
    name: 'tickets',
    quota: config.ticketsRateLimit,
    windowSeconds: 60,
    identify: (req) => credentialOf(req.get('authorization'), req),
  });
  api.use(['/tickets', '/openapi.json'], perTicketKey);
  api.use(ticketsRoutes(graph, config.publicBaseUrl));
  api.use(
    cvRoutes(graph, logger, {
      redis,
      redisPrefix: config.redisPrefix,
      rateLimit: config.cvRateLimit,
      publicBaseUrl: config.publicBaseUrl,
    }),
  );
  service.app.use(API_PREFIX, api);
  service.app.use(['/t', '/cv', '/templates'], publicRateLimit(redis, config));
  service.app.use(ticketPageRoutes(graph, config, redis));
  service.app.use(cvPagesRoutes(graph));
  service.app.use(unknownRoute);
  service.app.use(errorHandler(logger));

  const port = await service.listen(config.ports.rest, config.listenHost);
  return {
    port,
    stop: stopOnce(async () => {
      await service.close();
      graph.close();
      await pool.end();
      redis.disconnect();
      logger.info('rest-adapter stopped');
    }),
  };
}
