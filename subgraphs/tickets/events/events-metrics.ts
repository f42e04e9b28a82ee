import type { Counter, Histogram } from 'prom-client';
import type { ProcessMetrics } from '../../../common/metrics';
import type { JobQueues, PayloadQueueName, QueueName } from './job-queues';
import type { OutboxRepository } from './outbox.repository';

/** A webhook attempt's outcome: 2xx, another attempt scheduled, or no attempt left. */
export type WebhookResult = 'delivered' | 'retrying' | 'gave_up';
export type SmsResult = 'sent' | 'retrying' | 'failed' | 'skipped';
/** `expired`: the push service called the subscription gone (404, 410), and it was deleted. */
export type PushResult = 'sent' | 'retrying' | 'failed' | 'expired';

/** A WhatsApp message's send or its `failed` status; `accepted_template`: sent as the ready template. */
export type WhatsAppResult = 'accepted' | 'accepted_template' | 'refused' | 'failed';
/** What a message or status Meta posted led to. */
export type WhatsAppInboundResult =
  'linked' | 'help' | 'unanswered' | 'stop' | 'status' | 'duplicate' | 'ignored';

const WHATSAPP_KINDS = ['ready', 'ring', 'confirm', 'help', 'stop'] as const;
const WHATSAPP_RESULTS: readonly WhatsAppResult[] = ['accepted', 'accepted_template', 'refused', 'failed'];
const WHATSAPP_INBOUND_RESULTS: readonly WhatsAppInboundResult[] = [
  'linked',
  'help',
  'unanswered',
  'stop',
  'status',
  'duplicate',
  'ignored',
];

/** Webhook attempts are slower than requests: a receiver may take up to WEBHOOK_TIMEOUT_MS. */
const DELIVERY_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * The events worker's families. Backlogs (outbox, queues) are read from Postgres and Redis when
 * Prometheus scrapes, so the relay and workers pay nothing for them between scrapes.
 */
export class EventsMetrics {
  private readonly webhooks: Counter<'event' | 'result'>;
  private readonly webhookDuration: Histogram;
  private readonly sms: Counter<'result'>;
  private readonly push: Counter<'result'>;
  private readonly whatsApp: Counter<'kind' | 'result'>;
  private readonly inbound: Counter<'result'>;

  constructor(
    metrics: ProcessMetrics,
    backing: {
      outbox: () => OutboxRepository;
      queues: JobQueues;
      queueNames: readonly (QueueName | PayloadQueueName)[];
    },
  ) {
    this.webhooks = metrics.counter(
      'nida_webhook_deliveries_total',
      'Webhook attempts by event and result.',
      ['event', 'result'],
    );
    this.webhookDuration = metrics.histogram(
      'nida_webhook_delivery_duration_seconds',
      "Duration of one webhook attempt, from claim to the receiver's answer.",
      [],
      DELIVERY_BUCKETS,
    );
    this.sms = metrics.counter('nida_sms_total', 'SMS attempts by result.', ['result']);
    this.push = metrics.counter('nida_push_total', 'Web Push attempts by result.', ['result']);
    // Seen at zero before the first attempt, so a rate over them exists from the start.
    for (const result of ['sent', 'retrying', 'failed', 'skipped'] as const) this.sms.inc({ result }, 0);
    for (const result of ['sent', 'retrying', 'failed', 'expired'] as const) this.push.inc({ result }, 0);
    this.whatsApp = metrics.counter(
      'nida_whatsapp_messages_total',
      'WhatsApp messages by kind (ready, ring, confirm, help, stop) and result (accepted by the Graph API, refused, failed later).',
      ['kind', 'result'],
    );
    this.inbound = metrics.counter(
      'nida_whatsapp_inbound_total',
      'Messages and statuses of the WhatsApp webhook, by what they led to (linked, help, stop, status, duplicate, ignored...).',
      ['result'],
    );
    for (const kind of WHATSAPP_KINDS) {
      for (const result of WHATSAPP_RESULTS) this.whatsApp.inc({ kind, result }, 0);
    }
    for (const result of WHATSAPP_INBOUND_RESULTS) this.inbound.inc({ result }, 0);

    metrics.gauge('nida_outbox_pending', 'Outbox events not yet published.', [], async (gauge) => {
      gauge.set((await backlogOf(backing.outbox)).pending);
    });
    metrics.gauge(
      'nida_outbox_oldest_seconds',
      'Age of the oldest outbox event not yet published; 0 when none waits.',
      [],
      async (gauge) => {
        gauge.set((await backlogOf(backing.outbox)).oldestSeconds);
      },
    );
    metrics.gauge(
      'nida_job_queue_jobs',
      "Jobs in each delivery queue, by state (bee-queue's checkHealth).",
      ['queue', 'state'],
      async (gauge) => {
        await Promise.all(
          backing.queueNames.map(async (queue) => {
            const health = await backing.queues.health(queue);
            if (health === undefined) return;
            gauge.set({ queue, state: 'waiting' }, health.waiting + health.delayed);
            gauge.set({ queue, state: 'active' }, health.active);
            gauge.set({ queue, state: 'failed' }, health.failed);
          }),
        );
      },
    );
  }

  webhook(event: string, result: WebhookResult, seconds: number): void {
    this.webhooks.inc({ event, result });
    this.webhookDuration.observe(seconds);
  }

  smsAttempt(result: SmsResult): void {
    this.sms.inc({ result });
  }

  pushAttempt(result: PushResult): void {
    this.push.inc({ result });
  }

  whatsAppMessage(kind: (typeof WHATSAPP_KINDS)[number], result: WhatsAppResult): void {
    this.whatsApp.inc({ kind, result });
  }

  whatsAppInbound(result: WhatsAppInboundResult): void {
    this.inbound.inc({ result });
  }
}

/**
 * One query per scrape, shared by the two outbox gauges: prom-client collects them one after the
 * other, so the second reuses the first's answer while it is fresh.
 */
const backlogs = new WeakMap<
  object,
  { at: number; answer: Promise<{ pending: number; oldestSeconds: number }> }
>();
const BACKLOG_FRESH_MS = 1_000;

function backlogOf(outbox: () => OutboxRepository): Promise<{ pending: number; oldestSeconds: number }> {
  const cached = backlogs.get(outbox);
  if (cached !== undefined && Date.now() - cached.at < BACKLOG_FRESH_MS) return cached.answer;
  const answer = outbox().backlog();
  backlogs.set(outbox, { at: Date.now(), answer });
  return answer;
}
