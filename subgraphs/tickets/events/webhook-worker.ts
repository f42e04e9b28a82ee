import type { Config } from '../../../common/config';
import type { MikroORM } from '../../../common/database';
import type { Logger } from '../../../common/logger';
import {
  inSpan,
  markActiveSpanFailed,
  traceHeaders,
  TRACEPARENT_HEADER,
} from '../../../common/trace-context';
import {
  EVENT_HEADER,
  EVENT_ID_HEADER,
  SIGNATURE_HEADER,
  signWebhook,
  TIMESTAMP_HEADER,
} from '../../../contracts/tickets/webhook-signature';
import type { EventsMetrics } from './events-metrics';
import type { JobQueues } from './job-queues';
import { DeliveryRowWorker, MAX_RETRIES, retryDelayMs, WEBHOOK_ROWS } from './delivery-rows';
import type { ClaimedDelivery, DeliveryRepository } from './delivery.repository';
import { unsealWithEither } from './secret-box';
import {
  checkWebhookUrlForm,
  postToVetted,
  vetWebhookHost,
  type PostOutcome,
} from '../../../common/outbound-url';

const CONCURRENCY = 16;

/**
 * Delivers webhook rows: claims one (so two workers never send the same attempt), signs the
 * stored body with a fresh timestamp, POSTs it to the vetted address, records the attempt and
 * schedules the next one or settles the delivery, all from Postgres' point of view.
 */
export class WebhookWorker extends DeliveryRowWorker {
  constructor(
    orm: MikroORM,
    queues: JobQueues,
    private readonly config: Config,
    logger: Logger,
    private readonly metrics: EventsMetrics,
  ) {
    super(WEBHOOK_ROWS, CONCURRENCY, orm, queues, logger);
  }

  async deliver(id: number): Promise<void> {
    const deliveries = this.deliveries();
    const lockSeconds = Math.ceil(this.config.webhooks.timeoutMs / 1000) + 30;
    const claimed = await deliveries.claimWebhook(id, lockSeconds);
    if (claimed === undefined) return;
    await inSpan(
      `webhook deliver ${claimed.event}`,
      {
        parent: claimed.traceparent,
        attributes: {
          'nida.event': claimed.event,
          'nida.event_id': claimed.event_id,
          'nida.delivery_id': Number(claimed.id),
          'nida.attempt': claimed.attempts + 1,
        },
      },
      () => this.attempt(deliveries, claimed),
    );
  }

  /** One attempt of a claimed delivery, in the span of the trace that caused it. */
  private async attempt(deliveries: DeliveryRepository, claimed: ClaimedDelivery): Promise<void> {
    const started = new Date();
    const outcome: PostOutcome =
      claimed.deleted_at !== null
        ? { statusCode: null, error: 'the endpoint was deleted' }
        : await this.send(claimed);
    const durationMs = Date.now() - started.getTime();
    const delivered = outcome.statusCode !== null && outcome.statusCode >= 200 && outcome.statusCode < 300;
    const attempts = claimed.attempts + 1;
    const finalFailure = !delivered && (attempts > MAX_RETRIES || claimed.deleted_at !== null);
    const nextAt = new Date(Date.now() + retryDelayMs(this.config.webhooks.retryScheduleMs, attempts));
    const status = delivered ? 'succeeded' : finalFailure ? 'failed' : 'pending';
    if (!delivered) markActiveSpanFailed(outcome.error ?? `the receiver answered ${outcome.statusCode}`);

    await deliveries.recordWebhookAttempt({
      deliveryId: claimed.id,
      startedAt: started,
      durationMs,
      statusCode: outcome.statusCode,
      error: outcome.error,
      status,
      attempts,
      nextAt,
    });
    this.logger.info(
      {
        delivery: Number(claimed.id),
        eventId: claimed.event_id,
        event: claimed.event,
        attempt: attempts,
        status: outcome.statusCode,
        durationMs,
        error: outcome.error,
        outcome: status,
      },
      'webhook attempt',
    );
    this.metrics.webhook(
      claimed.event,
      delivered ? 'delivered' : finalFailure ? 'gave_up' : 'retrying',
      durationMs / 1000,
    );
    if (status === 'pending') await this.queues.enqueue('webhooks', Number(claimed.id), attempts, nextAt);
  }

  private async send(delivery: ClaimedDelivery): Promise<PostOutcome> {
    const { allowInsecure, timeoutMs } = this.config.webhooks;
    let url: URL;
    let target: { address: string; family: number };
    try {
      url = checkWebhookUrlForm(delivery.url, allowInsecure);
      target = await vetWebhookHost(url, allowInsecure);
    } catch (error) {
      return { statusCode: null, error: (error as Error).message };
    }
    const timestamp = Math.floor(Date.now() / 1000);
    const { secret } = unsealWithEither(this.config.webhooks, delivery.secret_sealed);
    const headers = {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(delivery.body)),
      'user-agent': 'nida-webhooks/1',
      [TIMESTAMP_HEADER]: String(timestamp),
      [SIGNATURE_HEADER]: signWebhook(secret, timestamp, delivery.body),
      [EVENT_HEADER]: delivery.event,
      [EVENT_ID_HEADER]: delivery.event_id,
      // The receiver can join its logs to ours by this trace id (docs/API-DECISIONS.md). With this
      // process untraced, the stored context still names the trace of the change behind the event.
      ...(delivery.traceparent === null ? {} : { [TRACEPARENT_HEADER]: delivery.traceparent }),
      ...traceHeaders(),
    };
    return postToVetted(url, target, headers, delivery.body, timeoutMs);
  }
}
