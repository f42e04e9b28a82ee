import type { Config } from '../../../common/config';
import { openSchema, type MikroORM } from '../../../common/database';
import { HttpService } from '../../../common/http-service';
import { createLogger } from '../../../common/logger';
import { stopOnce, type Running } from '../../../common/process';
import { connectRedis, type Redis } from '../../../common/redis';
import { OutboxRepository } from '../outbox.repository';
import { ticketsSubgraph } from '../tickets.subgraph';
import { JobQueues } from './job-queues';
import { OutboxRelay } from './outbox-relay';
import { PushWorker } from './push-worker';
import { SmsWorker } from './sms-worker';
import { WebhookWorker } from './webhook-worker';

export interface RunningEvents extends Running {
  port: number;
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
  const orm = await openSchema(config, ticketsSubgraph.schemaModule, logger);
  let redis: Redis;
  try {
    redis = await connectRedis(config.redisUrl, 'tickets-events');
  } catch (error) {
    await orm.close(true);
    throw error;
  }
  const queues = new JobQueues(config, true, redis);
  const relay = new OutboxRelay(orm, redis, queues, config, logger);
  const webhooks = new WebhookWorker(orm, queues, config, logger);
  const sms = new SmsWorker(orm, queues, redis, config, logger);
  const push = new PushWorker(orm, queues, config, logger);
  try {
    await relay.start();
    webhooks.start();
    sms.start();
    push.start();
  } catch (error) {
    await relay.stop();
    await queues.close();
    await orm.close(true);
    redis.disconnect();
    throw error;
  }

  const service = HttpService.forPlatform(config, 'tickets-events', logger, {
    postgres: () => new OutboxRepository(orm.em).ping(),
    redis,
  });
  const port = await service.listen(config.eventsPort, config.listenHost);
  return {
    port,
    relay,
    webhooks,
    sms,
    orm,
    stop: stopOnce(async () => {
      await service.close();
      webhooks.stop();
      sms.stop();
      push.stop();
      await relay.stop();
      await queues.close();
      sms.close();
      await orm.close(true);
      redis.disconnect();
      logger.info('tickets-events stopped');
    }),
  };
}
