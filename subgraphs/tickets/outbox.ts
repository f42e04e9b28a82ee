import { randomUUID } from 'node:crypto';
import type { EntityManager } from '../../common/database';
import type { WebhookEvent } from './events/ticket-events';
import type { Ticket } from './ticket.entity';

/** The customer's rating as an event carries it, in the document's snake_case. */
export interface FeedbackPayload {
  rating: number;
  comment: string | null;
  created_at: string;
}

/**
 * The outbox row of an event, written in the transaction of the change it reports: a stable event
 * id and a snapshot of the ticket without its phone number (plus the feedback it reports, if any).
 */
export async function recordEvent(
  tx: EntityManager,
  venueId: number,
  event: WebhookEvent,
  ticket: Ticket,
  feedback?: FeedbackPayload,
): Promise<void> {
  const { customerPhone: _phone, ...snapshot } = ticket;
  await tx.execute(
    `insert into tickets.outbox (event_id, event, venue_id, ticket_id, payload) values (?, ?, ?, ?, ?)`,
    [
      randomUUID(),
      event,
      venueId,
      ticket.id,
      JSON.stringify({ ticket: snapshot, ...(feedback ? { feedback } : {}) }),
    ],
  );
}
