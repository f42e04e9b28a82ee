import type { Request } from 'express';
import { z } from 'zod';
import { isStorableDate } from '../../common/input.rules';
import { rule } from '../../common/validation';
import { IRAQI_MOBILE_PATTERN } from '../../contracts/tickets/iraqi-mobile';
import {
  DEFAULT_PER_PAGE,
  IDEMPOTENCY_HOURS,
  TICKET_LIMITS,
  TICKET_STATUSES,
} from '../../contracts/tickets/ticket.limits';
import { hoursInWords } from '../figures';
import { parameterSchema } from '../openapi';
import type { CreateTicketVariables, ListTicketsVariables } from './tickets.operations';

/**
 * What ticket-calling-api.md accepts: bodies, query strings and path parameters. The same schemas
 * validate requests and generate `GET /api/v1/openapi.json`, so the published description cannot
 * drift from what is enforced.
 */

const optionalText = (max: number) => z.string().max(max).nullable().optional();

/** POST /tickets's body. */
export const storeTicketRequest = z
  .object({
    number: optionalText(TICKET_LIMITS.number).describe('Leave empty to take the branch’s next number.'),
    external_id: optionalText(TICKET_LIMITS.externalId).describe('Order id of the calling system.'),
    customer_name: optionalText(TICKET_LIMITS.customerName),
    customer_phone: z
      .string()
      .max(TICKET_LIMITS.customerPhone)
      // Blank is "not given", as for every field; otherwise the tickets subgraph's own rule.
      .regex(new RegExp(`^\\s*$|${IRAQI_MOBILE_PATTERN}`), rule('field.iraqi_mobile'))
      .nullable()
      .optional()
      .describe('Iraqi mobile number (07XXXXXXXXX, +9647XXXXXXXXX, 009647…, 9647…); texted once when ready.'),
    note: optionalText(TICKET_LIMITS.note),
  })
  .meta({ id: 'StoreTicketRequest', description: 'Every field is optional and may be null.' });

/** Query strings arrive as text; a value that is not a whole number is named in the 422. */
const queryInteger = (min: number, max?: number) =>
  max === undefined ? z.coerce.number().int().min(min) : z.coerce.number().int().min(min).max(max);

const isoDateTime = z
  .union([z.iso.datetime({ offset: true }), z.iso.date()], { error: rule('field.date') })
  .refine(isStorableDate, { error: rule('field.date') });

/** The graph's Int is 32-bit: a larger page is refused here in the document's words. */
const GRAPH_INT_MAX = 2_147_483_647;

/** GET /tickets's query string. */
export const listTicketsQuery = z.object({
  search: z.string().max(TICKET_LIMITS.search).optional(),
  status: z.enum(TICKET_STATUSES).optional(),
  external_id: z.string().max(TICKET_LIMITS.externalId).optional(),
  from: isoDateTime.optional().describe('Created at or after (ISO 8601).'),
  to: isoDateTime.optional().describe('Created at or before (ISO 8601).'),
  per_page: queryInteger(1, TICKET_LIMITS.perPage)
    .optional()
    .describe(`1 to ${TICKET_LIMITS.perPage}, default ${DEFAULT_PER_PAGE}.`),
  page: queryInteger(1, GRAPH_INT_MAX).optional(),
});

/** A valid creation body. */
export type StoreTicketRequest = z.infer<typeof storeTicketRequest>;
/** A valid list query. */
export type ListTicketsQuery = z.infer<typeof listTicketsQuery>;

/** The list's query parameters that the document knows and that carry a value, as sent. */
export function listQueryOf(query: Request['query']): Record<string, string> {
  return Object.fromEntries(
    Object.entries(query).filter(
      (entry): entry is [string, string] =>
        entry[0] in listTicketsQuery.shape && typeof entry[1] === 'string' && entry[1] !== '',
    ),
  );
}

/** A valid list query in the graph's words, with the document's defaults. */
export function listVariables(query: ListTicketsQuery): ListTicketsVariables {
  return {
    filter: {
      ...(query.search !== undefined ? { search: query.search } : {}),
      ...(query.status !== undefined ? { status: query.status.toUpperCase() } : {}),
      ...(query.external_id !== undefined ? { externalId: query.external_id } : {}),
      ...(query.from !== undefined ? { from: new Date(query.from).toISOString() } : {}),
      ...(query.to !== undefined ? { to: new Date(query.to).toISOString() } : {}),
    },
    page: query.page ?? 1,
    perPage: query.per_page ?? DEFAULT_PER_PAGE,
  };
}

/** A valid creation body in the graph's words. */
export function createVariables(
  input: StoreTicketRequest,
  idempotencyKey: string | undefined,
): CreateTicketVariables {
  return {
    input: {
      number: input.number ?? null,
      externalId: input.external_id ?? null,
      customerName: input.customer_name ?? null,
      customerPhone: input.customer_phone ?? null,
      note: input.note ?? null,
    },
    idempotencyKey: idempotencyKey ?? null,
  };
}

/** `GET /tickets`'s query parameters, from the schema that validates them. */
export const listTicketsParameters = Object.entries(listTicketsQuery.shape).map(([name, schema]) => ({
  name,
  in: 'query',
  required: false,
  schema: parameterSchema(schema as z.ZodType),
}));

/** POST /tickets's Idempotency-Key; the tickets subgraph keeps it and replays the first answer. */
export const idempotencyKeyHeader = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  schema: parameterSchema(z.string().min(1).max(TICKET_LIMITS.idempotencyKey)),
  description: `Repeating the key with the same body returns the first response and creates nothing; kept ${hoursInWords(IDEMPOTENCY_HOURS)}.`,
};

/** A ticket's id in the path; one that cannot be an id is the same 404 as an unknown one. */
export const ticketIdParameter = {
  name: 'id',
  in: 'path',
  required: true,
  schema: { type: 'integer', minimum: 1 },
};

/** The calling system's order id in the path. */
export const externalIdParameter = {
  name: 'externalId',
  in: 'path',
  required: true,
  schema: parameterSchema(z.string().max(TICKET_LIMITS.externalId)),
  description: 'Order id of the calling system; the branch’s open ticket with it comes first.',
};

/** The named request schemas of this document, described as they are accepted. */
export const TICKET_REQUEST_SCHEMA_IDS = ['StoreTicketRequest'] as const;

/** The request headers the ticket routes read or pass on, which the router's input guard checks. */
export const TICKETS_GUARDED_HEADERS = ['idempotency-key', 'accept-language'] as const;
