import { Client } from 'pg';
import type { Config } from '../../../common/config';
import type { TextLanguage } from '../../../common/language';
import type { EntityManager, MikroORM } from '../../../common/database';
import type { Logger } from '../../../common/logger';
import type { Redis } from '../../../common/redis';
import type { JobQueues, QueueName } from './job-queues';
import { pushText, smsText } from './sms-text';
import type { FeedbackPayload } from '../outbox';
import { liveEventsChannel, type LiveEvent } from './live-event';
import { liveTicketOf, ticketOfSnapshot, webhookBody } from './webhook-body';

const BATCH = 100;
const POLL_MS = 1_000;

interface OutboxRow {
  id: string;
  event_id: string;
  event: string;
  venue_id: string;
  ticket_id: string | null;
  payload: { ticket: Record<string, unknown>; feedback?: FeedbackPayload };
}

/**
 * Turns committed outbox rows into deliveries. Each pass, in one transaction: lock a batch of
 * unpublished rows (SKIP LOCKED, so replicas share the work), write a webhook delivery per
 * subscribed endpoint and the SMS of a ready ticket (both idempotent on the event), publish each
 * event on Redis for live subscribers, and mark the rows published. A crash before the commit
 * leaves the rows unpublished and the next pass does it all again (live subscribers may see an
 * event twice, never zero times); after the commit the deliveries are rows in Postgres, so the
 * jobs enqueued next are a wake-up whose loss the worker's sweep repairs.
 */
export class OutboxRelay {
  private listener?: Client;
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private again = false;
  private stopped = false;

  constructor(
    private readonly orm: MikroORM,
    private readonly redis: Redis,
    private readonly queues: JobQueues,
    private readonly config: Config,
    private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    await this.listen();
    this.timer = setInterval(() => this.wake(), POLL_MS);
    this.wake();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running;
    await this.listener?.end().catch(() => undefined);
  }

  /** Runs a pass now, or right after the one in progress. */
  wake(): void {
    if (this.stopped) return;
    if (this.running !== undefined) {
      this.again = true;
      return;
    }
    this.running = this.drain()
      .then(() => undefined)
      .catch((error: unknown) => this.logger.error({ err: error }, 'outbox relay pass failed; retrying'))
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      });
  }

  /** Passes until no unpublished row is left; resolves with how many rows it relayed. */
  async drain(): Promise<number> {
    let total = 0;
    for (;;) {
      const relayed = await this.pass();
      total += relayed;
      if (relayed < BATCH || this.stopped) return total;
    }
  }

  private async pass(): Promise<number> {
    const queued: { name: QueueName; id: number }[] = [];
    const em = this.orm.em.fork();
    const count = await em.transactional(async (tx) => {
      const rows = await tx.execute<OutboxRow[]>(
        `select id, event_id, event, venue_id, ticket_id, payload from tickets.outbox
          where published_at is null order by id limit ${BATCH} for update skip locked`,
      );
      for (const row of rows) {
        const ticket = ticketOfSnapshot(row.payload.ticket);
        const graph = liveTicketOf(ticket, this.config.publicBaseUrl);
        const body = webhookBody(row.event_id, row.event, graph.en, row.payload.feedback);
        const deliveries = await tx.execute<{ id: string }[]>(
          `insert into tickets.webhook_deliveries (endpoint_id, event_id, event, body)
           select e.id, ?, ?, ? from tickets.webhook_endpoints e
            where e.venue_id = ? and e.deleted_at is null and ? = any(e.events)
           on conflict (endpoint_id, event_id) do nothing
           returning id`,
          [row.event_id, row.event, body, row.venue_id, row.event],
        );
        for (const d of deliveries) queued.push({ name: 'webhooks', id: Number(d.id) });
        if (row.event === 'ticket.ready' && row.ticket_id !== null) {
          const sms = await tx.execute<{ id: string }[]>(
            `insert into tickets.sms_messages (ticket_id, event_id, "to", "text")
             select t.id, ?, t.customer_phone, ? from tickets.tickets t
               join tickets.branches b on b.id = t.branch_id
               join tickets.venues v on v.id = b.venue_id
              where t.id = ? and t.customer_phone is not null and v.sms_enabled
             on conflict (ticket_id) do nothing
             returning id`,
            [row.event_id, await this.smsTextOf(tx, row), row.ticket_id],
          );
          for (const s of sms) queued.push({ name: 'sms', id: Number(s.id) });
        }
        if ((row.event === 'ticket.ready' || row.event === 'ticket.rung') && row.ticket_id !== null) {
          const venue = await this.venueOf(tx, row);
          const { title, body: text } = pushText(venue.language, row.event, ticket.number, venue.name);
          const pushes = await tx.execute<{ id: string }[]>(
            `insert into tickets.push_messages (subscription_id, event_id, title, body)
             select s.id, ?, ?, ? from tickets.push_subscriptions s where s.ticket_id = ?
             on conflict (subscription_id, event_id) do nothing
             returning id`,
            [row.event_id, title, text, row.ticket_id],
          );
          for (const p of pushes) queued.push({ name: 'push', id: Number(p.id) });
        }
        const live: LiveEvent = {
          id: row.event_id,
          event: row.event,
          venueId: Number(row.venue_id),
          branchId: ticket.branchId,
          ticketId: ticket.id,
          token: ticket.token,
          ticket: graph,
        };
        await this.redis.publish(liveEventsChannel(this.config.redisPrefix), JSON.stringify(live));
      }
      if (rows.length > 0) {
        await tx.execute(
          `update tickets.outbox set published_at = now() where id in (${rows.map(() => '?').join(',')})`,
          rows.map((r) => r.id),
        );
      }
      return rows.length;
    });
    for (const job of queued) {
      await this.queues
        .enqueue(job.name, job.id, 0)
        .catch((error: unknown) =>
          this.logger.warn({ err: error, job }, 'could not enqueue; the sweep will'),
        );
    }
    if (count > 0) this.logger.debug({ count }, 'relayed outbox events');
    return count;
  }

  private async smsTextOf(tx: EntityManager, row: OutboxRow): Promise<string> {
    const venue = await this.venueOf(tx, row);
    return smsText(venue.language, String(row.payload.ticket.number), venue.name);
  }

  private async venueOf(
    tx: EntityManager,
    row: OutboxRow,
  ): Promise<{ name: string; language: TextLanguage }> {
    const [venue] = await tx.execute<{ name: string; language: TextLanguage }[]>(
      'select name, language from tickets.venues where id = ?',
      [row.venue_id],
    );
    return { name: venue?.name ?? '', language: venue?.language ?? 'ar' };
  }

  private async listen(): Promise<void> {
    const client = new Client({ connectionString: this.config.databaseUrl });
    client.on('error', (error) => {
      this.logger.warn({ err: error }, 'outbox listener lost its connection; polling until it is back');
      this.listener = undefined;
      setTimeout(() => void this.reconnect(), POLL_MS);
    });
    client.on('notification', () => this.wake());
    await client.connect();
    await client.query('listen tickets_outbox');
    this.listener = client;
  }

  private async reconnect(): Promise<void> {
    if (this.stopped || this.listener !== undefined) return;
    try {
      await this.listen();
      this.wake();
    } catch {
      setTimeout(() => void this.reconnect(), POLL_MS);
    }
  }
}
