import type { GraphTicket } from './ticket.resource';

/**
 * What the tickets side promises the gateway's subscriptions: the Redis channel of live events, the
 * shape of each message, and how a ticket's token may read. Nothing here loads the ORM or the
 * schema, so the gateway can import it.
 */

/** The Redis channel every live subscriber listens on; one message per committed ticket event. */
export function liveEventsChannel(redisPrefix: string): string {
  return `${redisPrefix}tickets:events`;
}

/** A ticket as the graph's `Ticket` answers it, without `branch`, per language of its texts. */
export type LiveTicket = Record<'en' | 'ar', GraphTicket>;

export interface LiveEvent {
  /** The event's id, as webhooks carry it. */
  id: string;
  event: string;
  venueId: number;
  branchId: number;
  ticketId: number;
  token: string;
  ticket: LiveTicket;
}

/** The header that carries a ticket's token, as the gateway forwards it for a customer's subscription. */
export const TICKET_TOKEN_HEADER = 'x-ticket-token';

/**
 * What a ticket's token does not reveal: what the business wrote about the customer or the order.
 * The token travels on a printed receipt, so whoever holds the paper may read the rest.
 */
export const TOKEN_HIDDEN_FIELDS = ['externalId', 'customerName', 'note'] as const;
