import { Client } from 'pg';
import type { Config } from '../../../common/config';
import type { TextLanguage } from '../../../common/language';
import type { EntityManager, MikroORM } from '../../../common/database';
import type { Logger } from '../../../common/logger';
import type { Redis } from '../../../common/redis';
import { isDatabaseUnavailable } from '../../../common/database-errors';
import type { JobQueues, QueueName } from './job-queues';
import { pushText, smsText } from './sms-text';
import type { FeedbackPayload } from '../outbox';
import { liveEventsChannel, type LiveEvent } from './live-event';
import { liveTicketOf, ticketOfSnapshot, webhookBody } from './webhook-body';

const BATCH = 100;
const POLL_MS = 1_000;
/** A connect that hangs (a server shutting down) must not hold the listener's reconnect loop. */
const LISTEN_CONNECT_TIMEOUT_MS = 3_000;

interface OutboxRow {
  id: string;
  event_id: string;
  event: string;
  venue_id: string;
  ticket_id: string | null;
  payload: { ticket: Record<string, unknown>; feedback?: FeedbackPayload };
}

/**
 * Turns committed outbox rows into deliveries and live events. Each pass, in one transaction: lock
 * a batch of unrelayed rows (SKIP LOCKED, so replicas share the work), write a webhook delivery per
 * subscribed endpoint, the push messages and the SMS of a ready ticket (all idempotent on the
 * event) and mark the rows relayed; then publish the relayed, unpublished rows on Redis for live
 * subscribers, oldest first, and mark them published. A crash before the commit leaves the rows as
 * they were and the next pass does it all again (live subscribers may see an event twice, never
 * zero times); after the commit the deliveries are rows in Postgres, so the jobs enqueued next are
 * a wake-up whose loss the worker's sweep repairs. With Redis away, deliveries go on and
 * publication stops where it is, to resume in order once Redis is back.
 */
export class OutboxRelay {
  private listener?: Client;
  private reconnecting?: NodeJS.Timeout;
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private again = false;
  private stopped = false;
  /** Whether the last publication failed, so that an outage is logged once, not every pass. */
  private publishingHeld = false;

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
    clearTimeout(this.reconnecting);
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
      .catch((error: unknown) => {
        // Postgres away is an outage that passes, polled through; anything else is a fault.
        const level = isDatabaseUnavailable(error) ? 'warn' : 'error';
        this.logger[level]({ err: error }, 'outbox relay pass failed; retrying');
      })
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      });
  }

  /** Passes until no row is left to relay or publish; resolves with how many rows it relayed. */
  async drain(): Promise<number> {
    let total = 0;
    for (;;) {
      const { relayed, published } = await this.pass();
      total += relayed;
      if ((relayed < BATCH && published < BATCH) || this.stopped) return total;
    }
  }

  private async pass(): Promise<{ relayed: number; published: number }> {
    const queued: { name: QueueName; id: number }[] = [];
    const em = this.orm.em.fork();
    const counts = await em.transactional(async (tx) => {
      const rows = await tx.execute<OutboxRow[]>(
        `select id, event_id, event, venue_id, ticket_id, payload from tickets.outbox
          where relayed_at is null order by id limit ${BATCH} for update skip locked`,
      );
      for (const row of rows) queued.push(...(await this.writeDeliveries(tx, row)));
      await this.mark(tx, 'relayed_at', rows);
      return { relayed: rows.length, published: await this.publish(tx) };
    });
    await this.enqueue(queued);
    if (counts.relayed > 0 || counts.published > 0) this.logger.debug(counts, 'relayed outbox events');
    return counts;
  }

  /** The webhook deliveries, SMS and push messages of one event; answers the jobs to enqueue. */
  private async writeDeliveries(
    tx: EntityManager,
    row: OutboxRow,
  ): Promise<{ name: QueueName; id: number }[]> {
    const queued: { name: QueueName; id: number }[] = [];
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
    return queued;
  }

  /**
   * Publishes relayed rows to live subscribers, oldest first, so a subscriber's last event is its
   * ticket's latest state even after an outage; stops at the first failure and answers how many
   * went out.
   */
  private async publish(tx: EntityManager): Promise<number> {
    // ioredis fails at once while Redis is away (common/redis.ts); checking first spares the query.
    if (this.redis.status !== 'ready') return this.held(0, new Error(`Redis is ${this.redis.status}`));
    const rows = await tx.execute<OutboxRow[]>(
      `select id, event_id, event, venue_id, ticket_id, payload from tickets.outbox
        where published_at is null and relayed_at is not null
        order by id limit ${BATCH} for update skip locked`,
    );
    const published: OutboxRow[] = [];
    for (const row of rows) {
      const ticket = ticketOfSnapshot(row.payload.ticket);
      const live: LiveEvent = {
        id: row.event_id,
        event: row.event,
        venueId: Number(row.venue_id),
        branchId: ticket.branchId,
        ticketId: ticket.id,
        token: ticket.token,
        ticket: liveTicketOf(ticket, this.config.publicBaseUrl),
      };
      try {
        await this.redis.publish(liveEventsChannel(this.config.redisPrefix), JSON.stringify(live));
      } catch (error) {
        await this.mark(tx, 'published_at', published);
        return this.held(published.length, error);
      }
      published.push(row);
    }
    await this.mark(tx, 'published_at', published);
    if (this.publishingHeld) {
      this.publishingHeld = false;
      this.logger.info({ published: published.length }, 'live events are published again, held ones first');
    }
    return published.length;
  }

  private held(count: number, error: unknown): number {
    if (!this.publishingHeld) {
      this.publishingHeld = true;
      this.logger.warn(
        { err: error },
        'live events cannot be published; deliveries go on, live events wait for Redis',
      );
    }
    return count;
  }

  private async mark(tx: EntityManager, column: 'relayed_at' | 'published_at', rows: OutboxRow[]) {
    if (rows.length === 0) return;
    await tx.execute(
      `update tickets.outbox set ${column} = now() where id in (${rows.map(() => '?').join(',')})`,
      rows.map((r) => r.id),
    );
  }

  /** Wake-ups for the workers; with the queue away the first failure ends the attempt. */
  private async enqueue(queued: { name: QueueName; id: number }[]): Promise<void> {
    for (const job of queued) {
      try {
        await this.queues.enqueue(job.name, job.id, 0);
      } catch (error) {
        this.logger.warn({ err: error, job, jobs: queued.length }, 'could not enqueue; the sweep will');
        return;
      }
    }
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

  /**
   * LISTENs on its own connection. A lost connection (a Postgres restart) is reported once, however
   * many events pg raises for it, and one reconnect loop at a time tries again every poll interval
   * until it listens again; polling covers the gap.
   */
  private async listen(): Promise<void> {
    const client = new Client({
      connectionString: this.config.databaseUrl,
      connectionTimeoutMillis: LISTEN_CONNECT_TIMEOUT_MS,
    });
    let listening = false;
    const lost = (error: unknown) => {
      if (!listening || this.listener !== client || this.stopped) return;
      this.listener = undefined;
      client.end().catch(() => undefined);
      this.logger.warn({ err: error }, 'outbox listener lost its connection; polling until it is back');
      this.reconnectLater();
    };
    // A failed connect is reported by its rejection; these are for a connection that was up.
    client.on('error', lost);
    client.on('end', () => lost(new Error('the listening connection ended')));
    client.on('notification', () => this.wake());
    try {
      await client.connect();
      await client.query('listen tickets_outbox');
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    listening = true;
    this.listener = client;
  }

  private reconnectLater(): void {
    if (this.stopped || this.reconnecting !== undefined) return;
    this.reconnecting = setTimeout(() => {
      this.reconnecting = undefined;
      if (this.stopped || this.listener !== undefined) return;
      this.listen().then(
        () => {
          this.logger.info('outbox listener is back');
          this.wake();
        },
        () => this.reconnectLater(),
      );
    }, POLL_MS);
  }
}
