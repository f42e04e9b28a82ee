import { TICKET_FIELDS, type GraphTicket } from '../../contracts/tickets/ticket.resource';
import { operation, type GraphOperation } from '../graph-client';

/** The graph operations the ticket routes map onto, and what each returns. */

export type TicketScope = 'READ' | 'WRITE';

/** Judges the key alone: asked before a 422 so a bad key (401) or a missing scope (403) answers first. */
export const TICKET_ACCESS = operation<{ ticketAccess: boolean }, { scope: TicketScope }>(
  'TicketAccess',
  `query TicketAccess($scope: TicketScope!) { ticketAccess(scope: $scope) }`,
);

/** GET /tickets/{id}. */
export const TICKET_BY_ID = operation<{ ticket: GraphTicket }, { id: string }>(
  'TicketById',
  `query TicketById($id: ID!) { ticket(id: $id) { ...TicketFields } } ${TICKET_FIELDS}`,
);

/** GET /tickets/by-external/{externalId}: the branch's open ticket with it first. */
export const TICKET_BY_EXTERNAL_ID = operation<{ ticketByExternalId: GraphTicket }, { externalId: string }>(
  'TicketByExternalId',
  `query TicketByExternalId($externalId: String!) { ticketByExternalId(externalId: $externalId) { ...TicketFields } } ${TICKET_FIELDS}`,
);

/** The graph's `TicketFilter`: the list's query string in the graph's words. */
export interface TicketFilter {
  search?: string;
  status?: string;
  externalId?: string;
  from?: string;
  to?: string;
}

/** A page of the list, filtered. */
export interface ListTicketsVariables extends Record<string, unknown> {
  filter: TicketFilter;
  page: number;
  perPage: number;
}

/** GET /tickets: a page and the total. */
export const LIST_TICKETS = operation<
  { tickets: { items: GraphTicket[]; total: number } },
  ListTicketsVariables
>(
  'Tickets',
  `query Tickets($filter: TicketFilter, $page: Int!, $perPage: Int!) {
     tickets(filter: $filter, page: $page, perPage: $perPage) { total items { ...TicketFields } }
   } ${TICKET_FIELDS}`,
);

/** The creation body in the graph's words, with the Idempotency-Key. */
export interface CreateTicketVariables extends Record<string, unknown> {
  input: {
    number?: string | null;
    externalId?: string | null;
    customerName?: string | null;
    customerPhone?: string | null;
    note?: string | null;
  };
  idempotencyKey: string | null;
}

/** The new ticket as the creation answer shows it. */
export interface CreatedTicket {
  id: string;
  number: string;
  token: string;
  qrUrl: string;
  publicUrl: string;
}

/** POST /tickets: the new ticket, or the first one again on a replay. */
export const CREATE_TICKET = operation<
  { createTicket: { replayed: boolean; ticket: CreatedTicket } },
  CreateTicketVariables
>(
  'CreateTicket',
  `mutation CreateTicket($input: CreateTicketInput!, $idempotencyKey: String) {
     createTicket(input: $input, idempotencyKey: $idempotencyKey) { replayed ticket { id number token qrUrl publicUrl } }
   }`,
);

/** The moves of ticket-calling-api.md, by the last segment of their path. */
export type TicketAction = 'ready' | 'collected' | 'cancel' | 'ring';

type ActionField = 'markTicketReady' | 'markTicketCollected' | 'cancelTicket' | 'ringTicket';

/** A move addresses the ticket by id or by the calling system's order id. */
type ActionVariables = { id?: string; externalId?: string };

const actionOperation = <F extends ActionField>(field: F) =>
  operation<Record<F, { id: string }>, ActionVariables>(
    field,
    `mutation ${field}($id: ID, $externalId: String) { ${field}(id: $id, externalId: $externalId) { id } }`,
  );

/** One mutation per move, answering the moved ticket's id. */
export const TICKET_ACTIONS: Record<
  TicketAction,
  GraphOperation<Partial<Record<ActionField, { id: string }>>, ActionVariables>
> = {
  ready: actionOperation('markTicketReady'),
  collected: actionOperation('markTicketCollected'),
  cancel: actionOperation('cancelTicket'),
  ring: actionOperation('ringTicket'),
};
