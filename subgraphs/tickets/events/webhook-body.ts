import {
  toTicketResource,
  type GraphTicket,
  type TicketResource,
} from '../../../contracts/tickets/ticket.resource';
import { Ticket, toTicketType, type FeedbackPayload } from '../tickets';
import type { TextLanguage } from '../../../common/language';
import type { LiveTicket } from '../../../contracts/tickets/live-event';

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

/** The ticket as the graph's `Ticket` answers it (without `branch`), texts in the language. */
export function graphTicketOf(ticket: Ticket, publicBaseUrl: string, language: TextLanguage): GraphTicket {
  const type = toTicketType(ticket, { publicBaseUrl, language });
  const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);
  return {
    ...type,
    status: type.status.toUpperCase() as GraphTicket['status'],
    linkedAt: iso(type.linkedAt),
    readyAt: iso(type.readyAt),
    collectedAt: iso(type.collectedAt),
    cancelledAt: iso(type.cancelledAt),
    createdAt: type.createdAt.toISOString(),
    updatedAt: type.updatedAt.toISOString(),
  };
}

/** Both languages' graph ticket, for live subscribers whichever language they asked for. */
export function liveTicketOf(ticket: Ticket, publicBaseUrl: string): LiveTicket {
  return { en: graphTicketOf(ticket, publicBaseUrl, 'en'), ar: graphTicketOf(ticket, publicBaseUrl, 'ar') };
}

/**
 * The bytes every attempt of a delivery sends: `{"id", "event", "data": {"ticket"}}` (and
 * `data.feedback` for feedback.submitted), the ticket
 * exactly as REST reads show it. Texts are in English, as REST answers a request without
 * Accept-Language (docs/API-DECISIONS.md).
 */
export function webhookBody(
  eventId: string,
  event: string,
  english: GraphTicket,
  feedback?: FeedbackPayload,
): string {
  const ticket: TicketResource = toTicketResource(english);
  return JSON.stringify({ id: eventId, event, data: { ticket, ...(feedback ? { feedback } : {}) } });
}

/** The bytes of a `ping`: the event shape receivers already parse, naming the endpoint tested. */
export function pingBody(eventId: string, endpointId: number): string {
  return JSON.stringify({ id: eventId, event: 'ping', data: { endpoint_id: endpointId } });
}
