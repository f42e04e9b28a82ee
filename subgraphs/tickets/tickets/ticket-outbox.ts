import { randomUUID } from 'node:crypto';
import type { EntityManager } from '../../../common/database';
import { currentTraceparent } from '../../../common/trace-context';
import type { Ticket } from './ticket.entity';
import type { FeedbackPayload, WebhookEvent } from './ticket-events';

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
    event: WebhookEvent,
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
