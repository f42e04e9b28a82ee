import type { Client } from 'pg';
import type { EntityManager } from '../../../common/database';
import { DeliveryRepository } from './delivery.repository';
import type { FeedbackPayload } from '../tickets';
import { VenueRepository } from '../venues';
import { WhatsAppDeliveryRepository } from './whatsapp-delivery.repository';

/** An outbox row as the relay reads it; bigint ids come back from pg as text. */
export interface OutboxRow {
  id: string;
  event_id: string;
  event: string;
  venue_id: string;
  ticket_id: string | null;
  payload: { ticket: Record<string, unknown>; feedback?: FeedbackPayload };
  /** The trace of the change behind the event (tickets/ticket-outbox.ts); null if untraced. */
  traceparent: string | null;
}

/** The repositories of one relay pass, bound to its transaction. */
export interface RelayWrites {
  outbox: OutboxRepository;
  deliveries: DeliveryRepository;
  venues: VenueRepository;
  whatsapp: WhatsAppDeliveryRepository;
}

/**
 * The read side of the outbox of ticket events: the relay locks the rows each change wrote
 * (tickets/ticket-outbox.ts), turns them into deliveries and live events, and marks them.
 */
export class OutboxRepository {
  constructor(private readonly em: EntityManager) {}

  /**
   * Runs a relay pass in one transaction, so the rows it locks are marked together with the
   * deliveries they produced, or not at all.
   */
  transaction<T>(work: (tx: RelayWrites) => Promise<T>): Promise<T> {
    return this.em.transactional((tx) =>
      work({
        outbox: new OutboxRepository(tx),
        deliveries: new DeliveryRepository(tx),
        venues: new VenueRepository(tx),
        whatsapp: new WhatsAppDeliveryRepository(tx),
      }),
    );
  }

  /**
   * The oldest unrelayed rows, locked and marked relayed in one statement; SKIP LOCKED shares them
   * out between replicas. The mark commits with the deliveries the pass writes for them, or not at
   * all. Oldest first.
   */
  claimUnrelayed(limit: number): Promise<OutboxRow[]> {
    return this.claim('relayed_at', 'relayed_at is null', limit);
  }

  /**
   * The oldest relayed rows not yet published to live subscribers (this pass's among them), locked
   * and marked published as above, oldest first; `release` takes the mark off those a failed
   * publication did not send.
   */
  claimUnpublished(limit: number): Promise<OutboxRow[]> {
    return this.claim('published_at', 'published_at is null and relayed_at is not null', limit);
  }

  async release(rows: OutboxRow[]): Promise<void> {
    // An empty `in ()` is not SQL.
    if (rows.length === 0) return;
    await this.em.execute(
      `update tickets.outbox set published_at = null where id in (${rows.map(() => '?').join(',')})`,
      rows.map((r) => r.id),
    );
  }

  /**
   * Events not yet published and the age of the oldest, for the metrics. Both read the partial
   * index on unpublished rows, so the cost follows the backlog, not the table.
   */
  async backlog(): Promise<{ pending: number; oldestSeconds: number }> {
    const [row] = await this.em.execute<{ pending: string; oldest_seconds: string | null }[]>(
      `select count(*) as pending, extract(epoch from now() - min(created_at)) as oldest_seconds
         from tickets.outbox where published_at is null`,
    );
    return {
      pending: Number(row?.pending ?? 0),
      oldestSeconds: Math.max(0, Number(row?.oldest_seconds ?? 0)),
    };
  }

  private async claim(
    column: 'relayed_at' | 'published_at',
    unclaimed: string,
    limit: number,
  ): Promise<OutboxRow[]> {
    const rows = await this.em.execute<OutboxRow[]>(
      // Materialised, so the locking read runs once whatever plan the update gets.
      `with claimed as materialized (
         select id from tickets.outbox where ${unclaimed}
          order by id limit ${limit} for update skip locked
       )
       update tickets.outbox o set ${column} = now() from claimed c where o.id = c.id
       returning o.id, o.event_id, o.event, o.venue_id, o.ticket_id, o.payload, o.traceparent`,
    );
    // RETURNING follows no order; events go out oldest first.
    return rows.sort((a, b) => Number(a.id) - Number(b.id));
  }
}

/** Subscribes a connection of its own to the NOTIFY the outbox trigger sends on every insert. */
export async function listenToOutbox(client: Client): Promise<void> {
  await client.query('listen tickets_outbox');
}
