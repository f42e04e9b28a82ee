import type { WhatsAppConfig } from '../../../common/config';
import type { MikroORM } from '../../../common/database';
import type { Logger } from '../../../common/logger';
import { QueueUnavailableError, type JobQueues } from './job-queues';
import type { EventsMetrics } from './events-metrics';
import { WhatsAppDeliveryRepository } from './whatsapp-delivery.repository';
import { WhatsAppGraphClient, WhatsAppRefusal } from './whatsapp-graph.client';
import { whatsAppContent } from './whatsapp-text';

const CONCURRENCY = 4;
const SWEEP_MS = 2_000;

/**
 * Sends the rows of `whatsapp_messages`, each at most once. A row is claimed (`pending` →
 * `sending`, committed) before the Graph API is called and its message id recorded after; the Cloud
 * API has no idempotency key, so a worker killed between the two leaves the row `sending` for good
 * rather than risk a second message. For a ready alert that is the SMS fallback's case: no `sent`
 * within WHATSAPP_FALLBACK_SECONDS, and the ticket's one SMS goes out instead.
 */
export class WhatsAppWorker {
  private readonly client: WhatsAppGraphClient;
  private sweeper?: NodeJS.Timeout;
  private sweeping = false;

  constructor(
    private readonly orm: MikroORM,
    private readonly queues: JobQueues,
    private readonly whatsapp: WhatsAppConfig,
    private readonly logger: Logger,
    private readonly metrics: EventsMetrics,
  ) {
    this.client = new WhatsAppGraphClient(whatsapp);
  }

  start(): void {
    this.queues.queue('whatsapp').process(CONCURRENCY, (job) => this.deliver(job.data.id));
    this.sweeper = setInterval(() => void this.sweep(), SWEEP_MS);
  }

  stop(): void {
    clearInterval(this.sweeper);
  }

  /** Enqueues the rows a transaction wrote; one the queue does not take is the sweep's. */
  async enqueue(ids: readonly number[]): Promise<void> {
    for (const id of ids) {
      try {
        await this.queues.enqueue('whatsapp', id, 0);
      } catch (error) {
        if (!(error instanceof QueueUnavailableError)) throw error;
        return;
      }
    }
  }

  /** Sends the row once if it is still pending; a job for any other row does nothing. */
  async deliver(id: number): Promise<void> {
    const messages = new WhatsAppDeliveryRepository(this.orm.em.fork());
    const claimed = await messages.claim(id);
    if (claimed === undefined) return;
    const content = whatsAppContent(claimed, this.whatsapp.readyTemplate);
    const template = content.type === 'template';
    let messageId: string;
    try {
      messageId = await this.client.send(claimed.wa_id, content);
    } catch (error) {
      if (!(error instanceof WhatsAppRefusal)) throw error;
      await messages.recordRefused(claimed.id, error.message, template);
      this.metrics.whatsAppMessage(claimed.kind, 'refused');
      this.logger.warn(
        { whatsapp: Number(claimed.id), kind: claimed.kind, error: error.message },
        'whatsapp refused',
      );
      if (claimed.kind === 'ready' && claimed.ticket_id !== null)
        await this.releaseSms(Number(claimed.ticket_id));
      return;
    }
    await messages.recordAccepted(claimed.id, messageId, template);
    this.metrics.whatsAppMessage(claimed.kind, template ? 'accepted_template' : 'accepted');
    this.logger.info({ whatsapp: Number(claimed.id), kind: claimed.kind, template }, 'whatsapp accepted');
  }

  /** The ready alert will not reach the chat: the ticket's waiting SMS goes now (if it has one). */
  async releaseSms(ticketId: number): Promise<void> {
    const sms = await new WhatsAppDeliveryRepository(this.orm.em.fork()).releaseSms(ticketId);
    if (sms === undefined) return;
    await this.queues.enqueue('sms', sms.id, sms.attempts).catch((error: unknown) => {
      // The row is due; the SMS worker's sweep finds it.
      if (!(error instanceof QueueUnavailableError)) throw error;
    });
  }

  /** Pending rows whose job was lost are sent here; `sending` rows are never touched. */
  private async sweep(): Promise<void> {
    if (this.sweeping) return;
    this.sweeping = true;
    try {
      const due = await new WhatsAppDeliveryRepository(this.orm.em.fork()).overdue();
      for (const id of due) await this.deliver(id);
    } catch (error) {
      this.logger.warn({ err: error }, 'whatsapp sweep failed');
    } finally {
      this.sweeping = false;
    }
  }
}
