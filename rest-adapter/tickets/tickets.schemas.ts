import { z } from 'zod';
import { IRAQI_MOBILE_MESSAGE, normalizeIraqiMobile } from '../../subgraphs/tickets/phone';
import { TICKET_STATUSES } from '../../subgraphs/tickets/ticket.entity';
import { DEFAULT_PER_PAGE, TICKET_LIMITS } from '../../subgraphs/tickets/ticket.rules';

/**
 * The wire formats of ticket-calling-api.md. The same schemas validate requests and generate
 * `GET /api/v1/openapi.json`, so the published description cannot drift from what is enforced.
 */

const optionalText = (max: number) => z.string().max(max).nullable().optional();

export const storeTicketRequest = z
  .object({
    number: optionalText(TICKET_LIMITS.number).describe('Leave empty to take the branch’s next number.'),
    external_id: optionalText(TICKET_LIMITS.externalId).describe('Order id of the calling system.'),
    customer_name: optionalText(TICKET_LIMITS.customerName),
    customer_phone: z
      .string()
      .max(TICKET_LIMITS.customerPhone)
      .refine((value) => value.trim() === '' || normalizeIraqiMobile(value) !== null, {
        message: IRAQI_MOBILE_MESSAGE,
      })
      .nullable()
      .optional()
      .describe('Iraqi mobile number (07XXXXXXXXX, +9647XXXXXXXXX, 009647…, 9647…); texted once when ready.'),
    note: optionalText(TICKET_LIMITS.note),
  })
  .meta({ id: 'StoreTicketRequest', description: 'Every field is optional and may be null.' });

/** Query strings arrive as text; a value that is not a whole number is named in the 422. */
const queryInteger = (min: number, max?: number) =>
  max === undefined ? z.coerce.number().int().min(min) : z.coerce.number().int().min(min).max(max);

const isoDateTime = z.union([z.iso.datetime({ offset: true }), z.iso.date()], {
  error: 'must be a valid date',
});

export const listTicketsQuery = z.object({
  search: z.string().max(TICKET_LIMITS.search).optional(),
  status: z.enum(TICKET_STATUSES).optional(),
  external_id: z.string().max(TICKET_LIMITS.externalId).optional(),
  from: isoDateTime.optional().describe('Created at or after (ISO 8601).'),
  to: isoDateTime.optional().describe('Created at or before (ISO 8601).'),
  per_page: queryInteger(1, TICKET_LIMITS.perPage)
    .optional()
    .describe(`1 to 100, default ${DEFAULT_PER_PAGE}.`),
  // The graph's Int is 32-bit: a larger page is refused here in the document's words.
  page: queryInteger(1, 2_147_483_647).optional(),
});

const dateTime = z.string().meta({ format: 'date-time' });

export const ticketResource = z
  .object({
    id: z.number().int(),
    branch_id: z.number().int(),
    number: z.string(),
    external_id: z.string().nullable(),
    token: z.string().length(32),
    status: z.enum(TICKET_STATUSES),
    status_text: z.string(),
    customer_name: z.string().nullable(),
    note: z.string().nullable(),
    source: z.number().int().describe('1 API, 2 cashier, 3 kiosk.'),
    source_text: z.string(),
    ring_count: z.number().int(),
    phone_linked: z.boolean().describe('The customer opened the ticket page.'),
    alerts_enabled: z.boolean().describe('The customer allowed alerts on the page.'),
    sms_opt_in: z.boolean().describe('The customer asked on the page to be texted when ready.'),
    sms_sent: z.boolean(),
    public_url: z.string(),
    qr_url: z.string(),
    linked_at: dateTime.nullable(),
    ready_at: dateTime.nullable(),
    collected_at: dateTime.nullable(),
    cancelled_at: dateTime.nullable(),
    created_at: dateTime.nullable(),
    updated_at: dateTime.nullable(),
  })
  .strict()
  .meta({ id: 'Ticket', description: 'TicketResource: every field is always present.' });

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

export const actionResponse = z.object({ message: z.string() }).strict().meta({ id: 'ActionResponse' });

const pageLink = z.object({ url: z.string().nullable(), label: z.string(), active: z.boolean() }).strict();

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

export const errorBody = z
  .object({ message: z.string(), request_id: z.string().optional() })
  .meta({ id: 'Error', description: 'Every error is JSON with a message.' });

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

export type StoreTicketRequest = z.infer<typeof storeTicketRequest>;
export type ListTicketsQuery = z.infer<typeof listTicketsQuery>;
export type TicketResource = z.infer<typeof ticketResource>;
export type TicketList = z.infer<typeof ticketList>;
