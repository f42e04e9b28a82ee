import { Client } from 'pg';
import type { Config } from '../../../common/config';
import type { MikroORM } from '../../../common/database';
import type { Logger } from '../../../common/logger';
import type { Redis } from '../../../common/redis';
import { isDatabaseUnavailable } from '../../../common/database-errors';
import { currentTraceparent, inSpan, linkTo, SpanKind } from '../../../common/trace-context';
import type { JobQueues, QueueName } from './job-queues';

/** A job the pass's deliveries need, after the commit; `at` delays it (an SMS held for WhatsApp). */
interface QueuedJob {
  name: QueueName;
  id: number;
  at?: Date;
  purpose?: string;
}
import { pushText, smsText } from './sms-text';
import { listenToOutbox, OutboxRepository, type OutboxRow, type RelayWrites } from './outbox.repository';
import type { VenueRepository } from '../venues';
import { liveEventsChannel, type LiveEvent } from '../../../contracts/tickets/live-event';
import { liveTicketOf, ticketOfSnapshot, webhookBody } from './webhook-body';

const BATCH = 100;
const POLL_MS = 1_000;
/** A connect that hangs (a server shutting down) must not hold the listener's reconnect loop. */
const LISTEN_CONNECT_TIMEOUT_MS = 3_000;

/**
 * Turns committed outbox rows into deliveries and live events. Each pass, in one transaction: claim
 * a batch of unrelayed rows (locked with SKIP LOCKED, so replicas share the work, and marked
 * relayed in the same statement), write a webhook delivery per subscribed endpoint, the push
 * messages and the SMS of a ready ticket (all idempotent on the event); then claim the relayed,
 * unpublished rows the same way and publish them on Redis for live subscribers, oldest first,
 * taking the mark off those a failure left unsent. A crash before the commit leaves the rows as
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
    const queued: QueuedJob[] = [];
    const counts = await new OutboxRepository(this.orm.em.fork()).transaction(async (tx) => {
      const rows = await tx.outbox.claimUnrelayed(BATCH);
      for (const row of rows) queued.push(...(await this.writeDeliveries(tx, row)));
      return { relayed: rows.length, published: await this.publish(tx.outbox) };
    });
    await this.enqueue(queued);
    if (counts.relayed > 0 || counts.published > 0) this.logger.debug(counts, 'relayed outbox events');
    return counts;
  }

  /**
   * The webhook deliveries, SMS and push messages of one event; answers the jobs to enqueue. Done in
   * a span of the trace of the change behind the event, whose context every row written carries on.
   */
  private writeDeliveries(tx: RelayWrites, row: OutboxRow): Promise<QueuedJob[]> {
    return inSpan(
      `outbox relay ${row.event}`,
      { parent: row.traceparent, attributes: { 'nida.event': row.event, 'nida.event_id': row.event_id } },
      // Untraced here, the rows still carry the change's own context, so its webhook names its trace.
      () => this.writeDeliveriesInSpan(tx, row, currentTraceparent() ?? row.traceparent),
    );
  }

  private async writeDeliveriesInSpan(
    tx: RelayWrites,
    row: OutboxRow,
    traceparent: string | null,
  ): Promise<QueuedJob[]> {
    const queued: QueuedJob[] = [];
    const ticket = ticketOfSnapshot(row.payload.ticket);
    const graph = liveTicketOf(ticket, this.config.publicBaseUrl);
    const body = webhookBody(row.event_id, row.event, graph.en, row.payload.feedback);
    const venueId = Number(row.venue_id);
    const deliveries = await tx.deliveries.insertWebhookDeliveries(
      row.event_id,
      row.event,
      body,
      venueId,
      traceparent,
    );
    for (const id of deliveries) queued.push({ name: 'webhooks', id });
    if ((row.event === 'ticket.ready' || row.event === 'ticket.rung') && row.ticket_id !== null) {
      queued.push(...(await this.writeWhatsAppAlerts(tx, row.event, row.event_id, Number(row.ticket_id))));
    }
    if (row.event === 'ticket.ready' && row.ticket_id !== null) {
      const ticketId = Number(row.ticket_id);
      // A ready alert on its way to a linked chat holds the SMS back as its fallback (sms-worker.ts).
      const holdSeconds =
        this.config.whatsapp !== null && (await tx.whatsapp.hasReadyAlert(ticketId))
          ? this.config.whatsapp.fallbackSeconds
          : 0;
      const text = await this.smsTextOf(tx.venues, row);
      const sms = await tx.deliveries.insertSms(row.event_id, text, ticketId, traceparent, holdSeconds);
      const at = holdSeconds > 0 ? new Date(Date.now() + holdSeconds * 1000) : undefined;
      for (const id of sms)
        queued.push({ name: 'sms', id, ...(at === undefined ? {} : { at, purpose: 'held' }) });
    }
    if ((row.event === 'ticket.ready' || row.event === 'ticket.rung') && row.ticket_id !== null) {
      const venue = await tx.venues.textsOf(venueId);
      const { title, body: text } = pushText(venue.language, row.event, ticket.number, venue.name);
      const pushes = await tx.deliveries.insertPushMessages(
        row.event_id,
        title,
        text,
        Number(row.ticket_id),
        traceparent,
      );
      for (const id of pushes) queued.push({ name: 'push', id });
    }
    return queued;
  }

  /** One WhatsApp alert per linked chat of the ticket, when the platform has WhatsApp configured. */
  private async writeWhatsAppAlerts(
    tx: RelayWrites,
    event: 'ticket.ready' | 'ticket.rung',
    eventId: string,
    ticketId: number,
  ): Promise<QueuedJob[]> {
    if (this.config.whatsapp === null) return [];
    const ids = await tx.whatsapp.insertAlerts(
      eventId,
      event === 'ticket.ready' ? 'ready' : 'ring',
      ticketId,
    );
    return ids.map((id) => ({ name: 'whatsapp', id }));
  }

  /**
   * Publishes relayed rows to live subscribers, oldest first, so a subscriber's last event is its
   * ticket's latest state even after an outage; stops at the first failure and answers how many
   * went out.
   */
  private async publish(outbox: OutboxRepository): Promise<number> {
    // ioredis fails at once while Redis is away (common/redis.ts); checking first spares the query.
    if (this.redis.status !== 'ready') return this.held(0, new Error(`Redis is ${this.redis.status}`));
    const rows = await outbox.claimUnpublished(BATCH);
    let published = 0;
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
        // One message reaches any number of subscribers, long after the change: a span of its own,
        // linked to the change rather than a child of it.
        await inSpan(
          `live publish ${row.event}`,
          {
            kind: SpanKind.PRODUCER,
            parent: null,
            links: linkTo(row.traceparent),
            attributes: { 'messaging.system': 'redis', 'nida.event_id': row.event_id },
          },
          () => this.redis.publish(liveEventsChannel(this.config.redisPrefix), JSON.stringify(live)),
        );
      } catch (error) {
        await outbox.release(rows.slice(published));
        return this.held(published, error);
      }
      published++;
    }
    if (this.publishingHeld) {
      this.publishingHeld = false;
      this.logger.info({ published }, 'live events are published again, held ones first');
    }
    return published;
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

  /** Wake-ups for the workers; with the queue away the first failure ends the attempt. */
  private async enqueue(queued: QueuedJob[]): Promise<void> {
    for (const job of queued) {
      try {
        await this.queues.enqueue(job.name, job.id, 0, job.at, job.purpose);
      } catch (error) {
        this.logger.warn({ err: error, job, jobs: queued.length }, 'could not enqueue; the sweep will');
        return;
      }
    }
  }

  private async smsTextOf(venues: VenueRepository, row: OutboxRow): Promise<string> {
    const venue = await venues.textsOf(Number(row.venue_id));
    return smsText(venue.language, String(row.payload.ticket.number), venue.name);
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
      await listenToOutbox(client);
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
