import { randomUUID } from 'node:crypto';
import type { EntityManager } from '../../../common/database';
import { currentTraceparent } from '../../../common/trace-context';
import { Ticket } from './ticket.entity';
import type { FeedbackPayload, OutboxEventName } from './ticket-events';

/**
 * The write side of the outbox (`tickets.outbox`): every ticket change records the event it causes
 * in its own transaction, so a crash between commit and delivery loses nothing. The events worker
 * relays the rows (events/outbox-relay.ts).
 */
export class TicketOutbox {
  constructor(private readonly em: EntityManager) {}

  /**
   * The outbox row of an event, written in the transaction of the change it reports: a stable event
   * id, a snapshot of the ticket without its phone number (plus the feedback it reports, if any),
   * and the trace of the request that made the change, which its deliveries continue.
   */
  async recordEvent(
    venueId: number,
    event: OutboxEventName,
    ticket: Ticket,
    feedback?: FeedbackPayload,
  ): Promise<void> {
    const { customerPhone: _phone, ...snapshot } = ticket;
    await this.em.execute(
      `insert into tickets.outbox (event_id, event, venue_id, ticket_id, payload, traceparent)
       values (?, ?, ?, ?, ?, ?)`,
      [
        randomUUID(),
        event,
        venueId,
        ticket.id,
        JSON.stringify({ ticket: snapshot, ...(feedback ? { feedback } : {}) }),
        currentTraceparent(),
      ],
    );
  }
}

/** Entity fields the snapshot leaves out: the phone is for the SMS alone, never for subscribers. */
const NOT_IN_SNAPSHOT = new Set<string>(['customerPhone']);

const snapshotSql = new WeakMap<object, string>();

/**
 * The outbox's snapshot of a ticket, as SQL over the row `alias` of `tickets.tickets`: the same
 * object `recordEvent` writes from the entity (its JSON without the phone), for a statement that
 * writes a ticket and its event at once. Built from the entity's metadata, so a column added to
 * the ticket later is in both; times as `Date.toISOString()` writes them (milliseconds, truncated
 * as the driver's parser truncates them).
 */
export function ticketSnapshotSql(em: EntityManager, alias: string): string {
  const metadata = em.getMetadata();
  const cached = snapshotSql.get(metadata);
  if (cached !== undefined) return cached.replaceAll('$row', alias);
  const pairs = em
    .getMetadata(Ticket)
    .props.filter((p) => !NOT_IN_SNAPSHOT.has(p.name))
    .map((p) => {
      const column = `$row.${p.fieldNames[0]!}`;
      const value =
        p.runtimeType === 'Date'
          ? `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`
          : column;
      return `'${p.name}', ${value}`;
    });
  const sql = `jsonb_build_object(${pairs.join(', ')})`;
  snapshotSql.set(metadata, sql);
  return sql.replaceAll('$row', alias);
}
