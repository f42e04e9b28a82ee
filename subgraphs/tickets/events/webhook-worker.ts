import type { Config } from '../../../common/config';
import type { MikroORM } from '../../../common/database';
import type { Logger } from '../../../common/logger';
import {
  EVENT_HEADER,
  EVENT_ID_HEADER,
  SIGNATURE_HEADER,
  signWebhook,
  TIMESTAMP_HEADER,
} from '../../../rest-adapter/webhooks/webhook-signature';
import type { JobQueues } from './job-queues';
import { DeliveryRowWorker, MAX_RETRIES, retryDelayMs, WEBHOOK_ROWS } from './delivery-rows';
import { unseal } from './secret-box';
import { checkWebhookUrlForm, postToVetted, vetWebhookHost, type PostOutcome } from './webhook-url';

const CONCURRENCY = 16;

interface ClaimedDelivery {
  id: string;
  endpoint_id: string;
  event_id: string;
  event: string;
  body: string;
  attempts: number;
  url: string;
  secret_sealed: Buffer;
  deleted_at: Date | null;
}

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
  ) {
    super(WEBHOOK_ROWS, CONCURRENCY, orm, queues, logger);
  }

  async deliver(id: number): Promise<void> {
    const em = this.orm.em.fork();
    const lockSeconds = Math.ceil(this.config.webhooks.timeoutMs / 1000) + 30;
    const [claimed] = await em.execute<ClaimedDelivery[]>(
      `with claimed as (
         update tickets.webhook_deliveries set status = 'delivering', updated_at = now(),
                locked_until = now() + make_interval(secs => ?)
          where id = ? and status = 'pending' and next_attempt_at <= now() + interval '1 second'
          returning id, endpoint_id, event_id, event, body, attempts)
       select c.*, e.url, e.secret_sealed, e.deleted_at
         from claimed c join tickets.webhook_endpoints e on e.id = c.endpoint_id`,
      [lockSeconds, id],
    );
    if (claimed === undefined) return;
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

    await em.transactional(async (tx) => {
      await tx.execute(
        `insert into tickets.webhook_attempts (delivery_id, attempt, started_at, duration_ms, status_code, error)
         values (?, (select coalesce(max(attempt), 0) + 1 from tickets.webhook_attempts where delivery_id = ?), ?, ?, ?, ?)`,
        [claimed.id, claimed.id, started, durationMs, outcome.statusCode, outcome.error],
      );
      await tx.execute(
        `update tickets.webhook_deliveries
            set status = ?, attempts = ?, next_attempt_at = ?, locked_until = null, updated_at = now()
          where id = ?`,
        [status, attempts, nextAt, claimed.id],
      );
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
    if (status === 'pending') await this.queues.enqueue('webhooks', Number(claimed.id), attempts, nextAt);
  }

  private async send(delivery: ClaimedDelivery): Promise<PostOutcome> {
    const { allowInsecure, timeoutMs, secretKey } = this.config.webhooks;
    let url: URL;
    let target: { address: string; family: number };
    try {
      url = checkWebhookUrlForm(delivery.url, allowInsecure);
      target = await vetWebhookHost(url, allowInsecure);
    } catch (error) {
      return { statusCode: null, error: (error as Error).message };
    }
    const timestamp = Math.floor(Date.now() / 1000);
    const secret = unseal(secretKey, delivery.secret_sealed);
    const headers = {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(delivery.body)),
      'user-agent': 'nida-webhooks/1',
      [TIMESTAMP_HEADER]: String(timestamp),
      [SIGNATURE_HEADER]: signWebhook(secret, timestamp, delivery.body),
      [EVENT_HEADER]: delivery.event,
      [EVENT_ID_HEADER]: delivery.event_id,
    };
    return postToVetted(url, target, headers, delivery.body, timeoutMs);
  }
}
