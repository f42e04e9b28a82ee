import type { WhatsAppConfig } from '../../../common/config';
import type { EntityManager, MikroORM } from '../../../common/database';
import type { Logger } from '../../../common/logger';
import {
  WHATSAPP_INBOUND_QUEUE,
  whatsAppNotification,
  type WhatsAppInboundMessage,
  type WhatsAppStatusUpdate,
} from '../../../contracts/tickets/whatsapp-webhook';
import { findTicketByWhatsAppCode, linkWhatsApp } from '../tickets';
import type { JobQueues } from './job-queues';
import type { EventsMetrics, WhatsAppInboundResult } from './events-metrics';
import { WhatsAppDeliveryRepository, type WhatsAppStatus } from './whatsapp-delivery.repository';
import { isStop } from './whatsapp-text';
import type { WhatsAppWorker } from './whatsapp-worker';

const CONCURRENCY = 2;
const STATUSES: readonly string[] = ['sent', 'delivered', 'read', 'failed'] satisfies WhatsAppStatus[];

/**
 * Handles what Meta posts to `/webhooks/whatsapp`, as the REST adapter queued it (signature checked
 * there). Each message id and each (message id, status) is handled once, in the transaction that
 * records it (`whatsapp_inbound`), so Meta's resends and a retried job change nothing; payloads
 * for another phone number are ignored. A text carrying a live ticket's code links the chat and
 * is confirmed; "stop" unlinks the chat from every ticket and is confirmed; anything else gets the
 * "send the code" answer at most once an hour. Statuses move our messages on the delivery log, and
 * a ready alert that `failed` lets the ticket's SMS go.
 */
export class WhatsAppInbound {
  constructor(
    private readonly orm: MikroORM,
    private readonly queues: JobQueues,
    private readonly whatsapp: WhatsAppConfig,
    private readonly sender: WhatsAppWorker,
    private readonly logger: Logger,
    private readonly metrics: EventsMetrics,
  ) {}

  start(): void {
    this.queues.payloadQueue(WHATSAPP_INBOUND_QUEUE).process(CONCURRENCY, (job) =>
      this.handle(job.data.body).catch((error: unknown) => {
        // The job is retried with a backoff; what is seen once commits with its work, so nothing is lost.
        this.logger.warn({ err: error }, 'whatsapp notification not handled; retrying');
        throw error;
      }),
    );
  }

  /** One notification; throws (and the job is retried) only when Postgres fails it. */
  async handle(body: string): Promise<void> {
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      json = undefined;
    }
    const parsed = whatsAppNotification.safeParse(json);
    if (!parsed.success || parsed.data.object !== 'whatsapp_business_account') {
      this.metrics.whatsAppInbound('ignored');
      return;
    }
    for (const entry of parsed.data.entry) {
      for (const change of entry.changes) {
        if (change.value.metadata.phone_number_id !== this.whatsapp.phoneNumberId) {
          this.metrics.whatsAppInbound('ignored');
          continue;
        }
        for (const message of change.value.messages ?? []) await this.onMessage(message);
        for (const status of change.value.statuses ?? []) await this.onStatus(status);
      }
    }
  }

  private async onMessage(message: WhatsAppInboundMessage): Promise<void> {
    const outcome = await this.orm.em.fork().transactional(async (tx) => {
      const chats = new WhatsAppDeliveryRepository(tx);
      if (!(await chats.firstSeen(`message:${message.id}`))) return { result: 'duplicate' as const };
      const at = Number(message.timestamp);
      await chats.touchContact(
        message.from,
        Number.isFinite(at) && at > 0 ? new Date(at * 1000) : new Date(),
      );
      return this.answer(tx, chats, message);
    });
    this.metrics.whatsAppInbound(outcome.result);
    if (outcome.id !== undefined) await this.sender.enqueue([outcome.id]);
  }

  /** What a customer's message leads to, and the answer's row (if one is due). */
  private async answer(
    tx: EntityManager,
    chats: WhatsAppDeliveryRepository,
    message: WhatsAppInboundMessage,
  ): Promise<{ result: WhatsAppInboundResult; id?: number }> {
    const text = message.text?.body ?? '';
    if (isStop(text)) {
      await chats.unlinkAll(message.from);
      return { result: 'stop', id: await chats.insertMessage(message.from, null, 'stop', message.id) };
    }
    // The opt-in side's lookup and link (tickets/whatsapp-link.ts): a live ticket's code, and the
    // link that also moves the ticket's page live, in this transaction.
    const ticket = await findTicketByWhatsAppCode(tx, text);
    if (ticket !== null && ticket.venueWhatsApp) {
      await linkWhatsApp(tx, ticket.ticketId, message.from);
      return {
        result: 'linked',
        id: await chats.insertMessage(message.from, ticket.ticketId, 'confirm', message.id),
      };
    }
    if (!(await chats.takeHelpSlot(message.from))) return { result: 'unanswered' };
    return { result: 'help', id: await chats.insertMessage(message.from, null, 'help', message.id) };
  }

  private async onStatus(update: WhatsAppStatusUpdate): Promise<void> {
    if (!STATUSES.includes(update.status)) {
      this.metrics.whatsAppInbound('ignored');
      return;
    }
    const status = update.status as WhatsAppStatus;
    const error =
      update.errors
        ?.map((e) => [e.code, e.title, e.message].filter((part) => part !== undefined).join(' '))
        .join('; ') ?? null;
    const changed = await this.orm.em.fork().transactional(async (tx) => {
      const messages = new WhatsAppDeliveryRepository(tx);
      if (!(await messages.firstSeen(`status:${update.id}:${status}`))) return undefined;
      return (await messages.recordStatus(update.id, status, status === 'failed' ? error : null)) ?? null;
    });
    this.metrics.whatsAppInbound(changed === undefined ? 'duplicate' : 'status');
    if (changed === undefined || changed === null) return;
    if (status === 'failed') {
      this.metrics.whatsAppMessage(changed.kind, 'failed');
      this.logger.warn({ kind: changed.kind, error }, 'whatsapp message failed');
      if (changed.kind === 'ready' && changed.ticketId !== null)
        await this.sender.releaseSms(changed.ticketId);
    }
  }
}
