import type { Client } from 'pg';
import type { EntityManager } from '../../../common/database';
import { DeliveryRepository } from './delivery.repository';
import type { FeedbackPayload } from '../tickets';
import { VenueRepository } from '../venues';

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
      }),
    );
  }

  /** The oldest unrelayed rows, locked; SKIP LOCKED shares them out between replicas. */
  lockUnrelayed(limit: number): Promise<OutboxRow[]> {
    return this.em.execute<OutboxRow[]>(
      `select id, event_id, event, venue_id, ticket_id, payload, traceparent from tickets.outbox
          where relayed_at is null order by id limit ${limit} for update skip locked`,
    );
  }

  /** The oldest relayed rows not yet published to live subscribers, locked as above. */
  lockUnpublished(limit: number): Promise<OutboxRow[]> {
    return this.em.execute<OutboxRow[]>(
      `select id, event_id, event, venue_id, ticket_id, payload, traceparent from tickets.outbox
        where published_at is null and relayed_at is not null
        order by id limit ${limit} for update skip locked`,
    );
  }

  markRelayed(rows: OutboxRow[]): Promise<void> {
    return this.mark('relayed_at', rows);
  }

  markPublished(rows: OutboxRow[]): Promise<void> {
    return this.mark('published_at', rows);
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

  /** Whether Postgres answers: the events process's health check. */
  ping(): Promise<unknown> {
    return this.em.getConnection().execute('select 1');
  }

  private async mark(column: 'relayed_at' | 'published_at', rows: OutboxRow[]): Promise<void> {
    // An empty `in ()` is not SQL.
    if (rows.length === 0) return;
    await this.em.execute(
      `update tickets.outbox set ${column} = now() where id in (${rows.map(() => '?').join(',')})`,
      rows.map((r) => r.id),
    );
  }
}

/** Subscribes a connection of its own to the NOTIFY the outbox trigger sends on every insert. */
export async function listenToOutbox(client: Client): Promise<void> {
  await client.query('listen tickets_outbox');
}
