import type { Config } from '../../../common/config';
import { openSchema, postgresAnswering, type MikroORM, type SchemaModule } from '../../../common/database';
import { HttpService } from '../../../common/http-service';
import { ormPoolState, ProcessMetrics } from '../../../common/metrics';
import { createLogger } from '../../../common/logger';
import { stopOnce, type Running } from '../../../common/process';
import { connectRedis, type Redis } from '../../../common/redis';
import { ApiKey } from '../access';
import { Ticket } from '../tickets';
import { Branch, Venue } from '../venues';
import { OutboxEvent } from './outbox-event.entity';
import { OutboxRepository } from './outbox.repository';
import { EventsMetrics } from './events-metrics';
import { JobQueues } from './job-queues';
import { OutboxRelay } from './outbox-relay';
import { PushWorker } from './push-worker';
import { SmsWorker } from './sms-worker';
import { WebhookWorker } from './webhook-worker';
import { WhatsAppInbound } from './whatsapp-inbound';
import { WhatsAppWorker } from './whatsapp-worker';

/**
 * The `tickets` schema as this worker opens it: the subgraph's own tables and migrations (the
 * subgraph's root module lists the same), read here without reaching back up to it.
 */
const EVENTS_SCHEMA: SchemaModule = {
  schema: 'tickets',
  entities: [Venue, Branch, ApiKey, Ticket, OutboxEvent],
  migrations: () => import('../../../migrations/tickets').then((m) => m.ticketsMigrations),
};

export interface RunningEvents extends Running {
  port: number;
  metricsPort: number;
  relay: OutboxRelay;
  webhooks: WebhookWorker;
  sms: SmsWorker;
  orm: MikroORM;
}

/**
 * The tickets events worker: relays the outbox, delivers webhooks, sends the SMS of ready tickets
 * and the Web Push notifications of ready and ring. Any number may run; the
 * outbox rows and delivery rows are shared out by row locks, so each event goes out once per
 * endpoint whatever the count.
 */
export async function startEvents(config: Config): Promise<RunningEvents> {
  const logger = createLogger({ service: 'tickets-events', level: config.logLevel });
  const metrics = new ProcessMetrics('tickets-events');
  const orm = await openSchema(config, EVENTS_SCHEMA, logger);
  let redis: Redis;
  try {
    redis = await connectRedis(config.redis, 'tickets-events', logger);
  } catch (error) {
    await orm.close(true);
    throw error;
  }
  const queues = new JobQueues(config, true, redis);
  const relay = new OutboxRelay(orm, redis, queues, config, logger);
  const eventsMetrics = new EventsMetrics(metrics, {
    outbox: () => new OutboxRepository(orm.em.fork()),
    queues,
    queueNames:
      config.whatsapp === null
        ? ['webhooks', 'sms', 'push']
        : ['webhooks', 'sms', 'push', 'whatsapp', 'whatsapp-inbound'],
  });
  const webhooks = new WebhookWorker(orm, queues, config, logger, eventsMetrics);
  const sms = new SmsWorker(orm, queues, redis, config, logger, eventsMetrics);
  const push = new PushWorker(orm, queues, config, logger, eventsMetrics);
  // WhatsApp (issue 55): the sender of whatsapp_messages and the handler of Meta's webhook, when configured.
  const whatsApp =
    config.whatsapp === null
      ? undefined
      : new WhatsAppWorker(orm, queues, config.whatsapp, logger, eventsMetrics);
  const inbound =
    config.whatsapp === null || whatsApp === undefined
      ? undefined
      : new WhatsAppInbound(orm, queues, config.whatsapp, whatsApp, logger, eventsMetrics);
  try {
    await relay.start();
    webhooks.start();
    sms.start();
    push.start();
    whatsApp?.start();
    inbound?.start();
  } catch (error) {
    await relay.stop();
    await queues.close();
    await orm.close(true);
    redis.disconnect();
    throw error;
  }

  const service = HttpService.forPlatform(config, 'tickets-events', logger, {
    postgres: postgresAnswering(orm, config.readyCheckTimeoutMs),
    redis,
    metrics,
    pool: ormPoolState(orm),
  });
  const port = await service.listen(config.eventsPort, config.listenHost);
  return {
    port,
    metricsPort: service.metricsPort,
    relay,
    webhooks,
    sms,
    orm,
    stop: stopOnce(async () => {
      await service.close();
      webhooks.stop();
      sms.stop();
      push.stop();
      whatsApp?.stop();
      await relay.stop();
      await queues.close();
      sms.close();
      await orm.close(true);
      redis.disconnect();
      logger.info('tickets-events stopped');
    }),
  };
}
