import { z } from 'zod';
import { ticketResource, toTicketResource, type GraphTicket } from '../../contracts/tickets/ticket.resource';
import { describes } from '../openapi';
import { paginate } from '../pagination';
import type { CreatedTicket, TicketAction } from './tickets.operations';

/**
 * What ticket-calling-api.md answers, and the mappers from the graph's results to it. The Ticket
 * resource itself is the contract's (contracts/tickets/ticket.resource.ts), shared with webhooks.
 */

export const ticketCreated = z
  .object({
    message: z.literal('Ticket created successfully'),
    id: z.number().int(),
    number: z.string(),
    token: z.string(),
    qr_url: z.string(),
    public_url: z.string(),
  })
  .strict()
  .meta({ id: 'TicketCreated' });

/** What a move answers. */
export const actionResponse = z.object({ message: z.string() }).strict().meta({ id: 'ActionResponse' });

const pageLink = z.object({ url: z.string().nullable(), label: z.string(), active: z.boolean() }).strict();

/** GET /tickets's answer: a page in Laravel's paginated shape. */
export const ticketList = z
  .object({
    data: z.array(ticketResource),
    links: z
      .object({
        first: z.string().nullable(),
        last: z.string().nullable(),
        prev: z.string().nullable(),
        next: z.string().nullable(),
      })
      .strict(),
    meta: z
      .object({
        current_page: z.number().int().min(1),
        from: z.number().int().nullable(),
        last_page: z.number().int().min(1),
        links: z.array(pageLink),
        path: z.string().nullable(),
        per_page: z.number().int().min(0),
        to: z.number().int().nullable(),
        total: z.number().int().min(0),
      })
      .strict(),
  })
  .strict()
  .meta({ id: 'TicketList', description: 'Newest first.' });

/** Every error of the document. */
export const errorBody = z
  .object({ message: z.string(), request_id: z.string().optional() })
  .meta({ id: 'Error', description: 'Every error is JSON with a message.' });

/** A 422 of the document. */
export const validationErrorBody = z
  .object({ message: z.string(), errors: z.record(z.string(), z.array(z.string())) })
  .meta({ id: 'ValidationError', description: 'Field (or parameter) → messages.' });

/** The named schemas of this document, as components of its openapi.json. */
export const TICKET_SCHEMA_IDS = [
  'StoreTicketRequest',
  'Ticket',
  'TicketCreated',
  'ActionResponse',
  'TicketList',
  'Error',
  'ValidationError',
] as const;

/** A page of tickets as sent. */
export type TicketList = z.infer<typeof ticketList>;

/** The creation answer: the new ticket's id, number and the addresses its customer uses. */
export function toTicketCreated(ticket: CreatedTicket) {
  return {
    message: 'Ticket created successfully' as const,
    id: Number(ticket.id),
    number: ticket.number,
    token: ticket.token,
    qr_url: ticket.qrUrl,
    public_url: ticket.publicUrl,
  };
}

/** What each move answers, `{"message": …}`. */
export const ACTION_MESSAGES: Record<TicketAction, string> = {
  ready: 'Ticket marked ready',
  collected: 'Ticket marked collected',
  cancel: 'Ticket cancelled',
  ring: 'Customer alerted again',
};

/** A page of the graph's tickets in Laravel's paginated shape, its links keeping the request's query. */
export function toTicketList(
  tickets: { items: GraphTicket[]; total: number },
  page: { page: number; perPage: number; path: string; query: URLSearchParams },
) {
  return paginate(tickets.items.map(toTicketResource), { ...page, total: tickets.total });
}

describes(ticketCreated, toTicketCreated);
describes(ticketList, toTicketList);
