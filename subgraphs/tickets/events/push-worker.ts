import webpush from 'web-push';
import type { Config } from '../../../common/config';
import type { MikroORM } from '../../../common/database';
import type { Logger } from '../../../common/logger';
import { inSpan, markActiveSpanFailed } from '../../../common/trace-context';
import { DeliveryRowWorker, PUSH_ROWS, retryDelayMs } from './delivery-rows';
import type { ClaimedPush, DeliveryRepository } from './delivery.repository';
import type { EventsMetrics } from './events-metrics';
import type { JobQueues } from './job-queues';
import {
  checkWebhookUrlForm,
  postToVetted,
  vetWebhookHost,
  type PostOutcome,
} from '../../../common/outbound-url';

const CONCURRENCY = 8;
const SEND_TIMEOUT_MS = 10_000;
/** A notification is about now: two quick retries, then it is no longer worth sending. */
const PUSH_RETRY_SCHEDULE_MS = [5_000, 30_000];
/** How long a push service may hold a notification for a phone that is offline. */
const TTL_SECONDS = 300;

/**
 * Sends the Web Push notifications of ready and ring to the browsers that subscribed on the ticket
 * page, encrypted and VAPID-signed by `web-push`, posted by us to the vetted address of the push
 * service (its URL came from a browser, so it gets the same address checks as a webhook URL). A
 * push service that calls the subscription gone (404, 410) gets it deleted.
 */
export class PushWorker extends DeliveryRowWorker {
  constructor(
    orm: MikroORM,
    queues: JobQueues,
    private readonly config: Config,
    logger: Logger,
    private readonly metrics: EventsMetrics,
  ) {
    super(PUSH_ROWS, CONCURRENCY, orm, queues, logger);
  }

  async deliver(id: number): Promise<void> {
    const deliveries = this.deliveries();
    const claimed = await deliveries.claimPush(id, Math.ceil(SEND_TIMEOUT_MS / 1000) + 30);
    if (claimed === undefined) return;
    await inSpan(
      'push send',
      {
        parent: claimed.traceparent,
        attributes: { 'nida.push_id': Number(claimed.id), 'nida.attempt': claimed.attempts + 1 },
      },
      () => this.attempt(deliveries, claimed),
    );
  }

  /** One attempt of a claimed push message, in the span of the trace that caused it. */
  private async attempt(deliveries: DeliveryRepository, claimed: ClaimedPush): Promise<void> {
    const attempts = claimed.attempts + 1;
    const outcome = await this.send(claimed);
    const status = outcome.statusCode;
    if (status === 404 || status === 410) {
      await deliveries.deletePushSubscription(claimed.subscription_id);
      this.logger.info({ push: Number(claimed.id), status }, 'push subscription gone; removed');
      this.metrics.pushAttempt('expired');
      return;
    }
    if (status !== null && status >= 200 && status < 300) {
      await this.settle(claimed.id, 'sent', attempts, null);
      this.metrics.pushAttempt('sent');
      return;
    }
    const error = outcome.error ?? `push service answered ${status}`;
    markActiveSpanFailed(error);
    // 429 and 5xx may pass; any other answer will not change on a retry.
    const transient = status === null || status === 429 || status >= 500;
    if (!transient || attempts > PUSH_RETRY_SCHEDULE_MS.length) {
      await this.settle(claimed.id, 'failed', attempts, error);
      this.metrics.pushAttempt('failed');
    } else {
      this.metrics.pushAttempt('retrying');
      const nextAt = new Date(Date.now() + retryDelayMs(PUSH_RETRY_SCHEDULE_MS, attempts));
      await this.settle(claimed.id, 'pending', attempts, error, nextAt);
      await this.queues.enqueue('push', Number(claimed.id), attempts, nextAt);
    }
    this.logger.warn({ push: Number(claimed.id), attempt: attempts, error }, 'push not accepted');
  }

  private async send(push: ClaimedPush): Promise<PostOutcome> {
    const keys = this.config.push;
    if (keys === null) return { statusCode: null, error: 'Web Push is off (no VAPID keys)' };
    const allowInsecure = this.config.webhooks.allowInsecure;
    try {
      const url = checkWebhookUrlForm(push.endpoint, allowInsecure);
      const target = await vetWebhookHost(url, allowInsecure);
      const details = webpush.generateRequestDetails(
        { endpoint: push.endpoint, keys: { p256dh: push.p256dh, auth: push.auth } },
        JSON.stringify({
          title: push.title,
          body: push.body,
          url: `${this.config.publicBaseUrl}/t/${push.token}`,
        }),
        {
          vapidDetails: { subject: keys.subject, publicKey: keys.publicKey, privateKey: keys.privateKey },
          TTL: TTL_SECONDS,
          urgency: 'high',
          contentEncoding: 'aes128gcm',
        },
      );
      const headers = Object.fromEntries(
        Object.entries(details.headers).map(([name, value]) => [name.toLowerCase(), String(value)]),
      );
      const body = details.body ?? Buffer.alloc(0);
      headers['content-length'] = String(body.length);
      return await postToVetted(url, target, headers, body, SEND_TIMEOUT_MS);
    } catch (error) {
      return { statusCode: null, error: (error as Error).message };
    }
  }

  private async settle(
    id: string,
    status: 'pending' | 'sent' | 'failed',
    attempts: number,
    error: string | null,
    nextAt = new Date(),
  ): Promise<void> {
    await this.deliveries().settlePush(id, status, attempts, error, nextAt);
  }
}
