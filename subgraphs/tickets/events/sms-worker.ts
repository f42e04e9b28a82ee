import { SubgraphClient } from '../../../common/subgraph-call';
import type { Config } from '../../../common/config';
import type { MikroORM } from '../../../common/database';
import { JsonHttpClient } from '../../../common/json-http';
import type { Logger } from '../../../common/logger';
import { inSpan, markActiveSpanFailed } from '../../../common/trace-context';
import type { Redis } from '../../../common/redis';
import { VenuePlanClient } from '../access';
import { DeliveryRowWorker, MAX_RETRIES, retryDelayMs, SMS_ROWS } from './delivery-rows';
import type { ClaimedSms, DeliveryRepository } from './delivery.repository';
import type { EventsMetrics } from './events-metrics';
import type { JobQueues } from './job-queues';
import { SMS_SKIPPED_FOR_WHATSAPP, WhatsAppDeliveryRepository } from './whatsapp-delivery.repository';

const CONCURRENCY = 4;
const SEND_TIMEOUT_MS = 10_000;

/** Hands one text to the provider; resolves when it accepted it, throws when it did not. */
export interface SmsDriver {
  send(message: { id: string; to: string; text: string }): Promise<void>;
  close(): void;
}

/** `log`: the row in sms_messages is the store, the log line the evidence. */
function logDriver(logger: Logger): SmsDriver {
  return {
    send: ({ id, to, text }) => {
      logger.info({ sms: id, to, text }, 'sms (log driver)');
      return Promise.resolve();
    },
    close: () => undefined,
  };
}

/** `http`: POST {"to", "text"} with the optional Bearer token; the message id makes a resend recognisable. */
function httpDriver(config: Config): SmsDriver {
  const client = new JsonHttpClient(config.sms.httpUrl!, SEND_TIMEOUT_MS);
  const send: SmsDriver['send'] = async ({ id, to, text }) => {
    const answer = await client.post(JSON.stringify({ to, text }), {
      'idempotency-key': `sms-${id}`,
      ...(config.sms.httpToken ? { authorization: `Bearer ${config.sms.httpToken}` } : {}),
    });
    if (answer.status < 200 || answer.status >= 300) {
      throw new Error(`provider answered ${answer.status}: ${answer.text.slice(0, 200)}`);
    }
  };
  return { send, close: () => client.close() };
}

/**
 * Sends the one text of a ready ticket. The row is unique per ticket and claimed before sending,
 * so retries, replicas and repeated moves cannot send a second; `sms_sent` turns true in the same
 * transaction that records the provider's acceptance. The venue's plan is asked at send time, so
 * a venue that lost SMS in between gets none (the row says `skipped`).
 */
export class SmsWorker extends DeliveryRowWorker {
  private readonly driver: SmsDriver;
  private readonly plans: VenuePlanClient;

  constructor(
    orm: MikroORM,
    queues: JobQueues,
    redis: Redis,
    private readonly config: Config,
    logger: Logger,
    private readonly metrics: EventsMetrics,
  ) {
    super(SMS_ROWS, CONCURRENCY, orm, queues, logger);
    this.driver = config.sms.driver === 'http' ? httpDriver(config) : logDriver(logger);
    this.plans = new VenuePlanClient(SubgraphClient.of(config, 'billing'), redis, config.redisPrefix);
  }

  /** After the queue has let its in-flight jobs finish. */
  close(): void {
    this.driver.close();
  }

  async deliver(id: number): Promise<void> {
    const deliveries = this.deliveries();
    const claimed = await deliveries.claimSms(id, Math.ceil(SEND_TIMEOUT_MS / 1000) + 30);
    if (claimed === undefined) return;
    await inSpan(
      'sms send',
      {
        parent: claimed.traceparent,
        attributes: {
          'nida.event_id': claimed.event_id,
          'nida.sms_id': Number(claimed.id),
          'nida.attempt': claimed.attempts + 1,
        },
      },
      () => this.attempt(deliveries, claimed),
    );
  }

  /** One attempt of a claimed text, in the span of the trace that caused it. */
  private async attempt(deliveries: DeliveryRepository, claimed: ClaimedSms): Promise<void> {
    const attempts = claimed.attempts + 1;
    let error: string | null = null;
    try {
      if (await this.heldForWhatsApp(deliveries, claimed)) return;
      const entitlements = await this.plans.entitlementsOf(Number(claimed.venue_id));
      if (!entitlements.sms) {
        await this.settle(claimed.id, 'skipped', attempts, 'the venue plan does not include SMS');
        this.metrics.smsAttempt('skipped');
        return;
      }
      await this.driver.send({ id: claimed.event_id, to: claimed.to, text: claimed.text });
    } catch (failure) {
      error = (failure as Error).message;
    }
    if (error === null) {
      await deliveries.recordSmsSent(claimed.id, attempts);
      this.logger.info({ sms: Number(claimed.id), attempt: attempts }, 'sms accepted by the provider');
      this.metrics.smsAttempt('sent');
      return;
    }
    markActiveSpanFailed(error);
    if (attempts > MAX_RETRIES) {
      await this.settle(claimed.id, 'failed', attempts, error);
      this.metrics.smsAttempt('failed');
    } else {
      this.metrics.smsAttempt('retrying');
      const nextAt = new Date(Date.now() + retryDelayMs(this.config.sms.retryScheduleMs, attempts));
      await this.settle(claimed.id, 'pending', attempts, error, nextAt);
      await this.queues.enqueue('sms', Number(claimed.id), attempts, nextAt);
    }
    this.logger.warn({ sms: Number(claimed.id), attempt: attempts, error }, 'sms not accepted');
  }

  /**
   * SMS as WhatsApp's fallback: a ticket whose ready alert reached its chat (`sent` or later) gets
   * no text; one whose alert is still on its way within WHATSAPP_FALLBACK_SECONDS waits until then.
   * Refused, failed, or silent past that time, and the text goes. A ticket without an alert is
   * texted as ever. True when the text was settled here.
   */
  private async heldForWhatsApp(deliveries: DeliveryRepository, claimed: ClaimedSms): Promise<boolean> {
    if (this.config.whatsapp === null) return false;
    const alert = await new WhatsAppDeliveryRepository(this.orm.em.fork()).readyAlertState(
      Number(claimed.ticket_id),
      this.config.whatsapp.fallbackSeconds,
    );
    if (alert.state === 'delivered') {
      await this.settle(claimed.id, 'skipped', claimed.attempts, SMS_SKIPPED_FOR_WHATSAPP);
      this.metrics.smsAttempt('skipped');
      return true;
    }
    if (alert.state !== 'waiting') return false;
    // Not an attempt: the count stays, and the sweep finds the row when it is due.
    await deliveries.settleSms(claimed.id, 'pending', claimed.attempts, 'waiting for WhatsApp', alert.due);
    return true;
  }

  private async settle(
    id: string,
    status: 'pending' | 'failed' | 'skipped',
    attempts: number,
    error: string,
    nextAt = new Date(),
  ): Promise<void> {
    await this.deliveries().settleSms(id, status, attempts, error, nextAt);
  }
}
