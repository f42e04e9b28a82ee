import { toTicketResource, type GraphTicket } from '../../../rest-adapter/tickets/ticket.resource';
import type { TicketResource } from '../../../rest-adapter/tickets/tickets.schemas';
import { Ticket } from '../ticket.entity';
import { toTicketType } from '../ticket.type';

const DATE_FIELDS = [
  'linkedAt',
  'readyAt',
  'collectedAt',
  'cancelledAt',
  'createdAt',
  'updatedAt',
  'lastAlertAt',
] as const;

/** The outbox's snapshot (the ticket entity as JSON, without the phone) back as a Ticket. */
export function ticketOfSnapshot(snapshot: Record<string, unknown>): Ticket {
  const ticket = Object.assign(new Ticket(), snapshot);
  for (const field of DATE_FIELDS) {
    const value = snapshot[field];
    (ticket as unknown as Record<string, Date | null>)[field] =
      typeof value === 'string' ? new Date(value) : null;
  }
  ticket.customerPhone = null;
  return ticket;
}

/**
 * The document's Ticket resource as of the event, exactly as REST reads show it. Texts are in
 * English, as REST answers a request without Accept-Language (docs/API-DECISIONS.md).
 */
export function ticketResourceOf(ticket: Ticket, publicBaseUrl: string): TicketResource {
  const type = toTicketType(ticket, { publicBaseUrl, language: 'en' });
  const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);
  const graph: GraphTicket = {
    ...type,
    status: type.status.toUpperCase() as GraphTicket['status'],
    linkedAt: iso(type.linkedAt),
    readyAt: iso(type.readyAt),
    collectedAt: iso(type.collectedAt),
    cancelledAt: iso(type.cancelledAt),
    createdAt: type.createdAt.toISOString(),
    updatedAt: type.updatedAt.toISOString(),
  };
  return toTicketResource(graph);
}

/** The bytes every attempt of a delivery sends: `{"id", "event", "data": {"ticket"}}`. */
export function webhookBody(eventId: string, event: string, ticket: TicketResource): string {
  return JSON.stringify({ id: eventId, event, data: { ticket } });
}
