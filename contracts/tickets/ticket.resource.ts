import { z } from 'zod';
import { TICKET_STATUSES } from './ticket.limits';

/**
 * A ticket on the wire, as ticket-calling-api.md's TicketResource and as the graph's Ticket: the
 * REST adapter answers it, webhooks and live events carry it. One schema validates and describes it.
 */

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

export type TicketResource = z.infer<typeof ticketResource>;

/** The fields every REST read asks the graph for. */
export const TICKET_FIELDS = `
  fragment TicketFields on Ticket {
    id branchId number externalId token status statusText customerName note source sourceText ringCount
    phoneLinked alertsEnabled smsOptIn smsSent publicUrl qrUrl
    linkedAt readyAt collectedAt cancelledAt createdAt updatedAt
  }`;

export interface GraphTicket {
  id: string;
  branchId: string;
  number: string;
  externalId: string | null;
  token: string;
  status: 'WAITING' | 'READY' | 'COLLECTED' | 'CANCELLED';
  statusText: string;
  customerName: string | null;
  note: string | null;
  source: number;
  sourceText: string;
  ringCount: number;
  phoneLinked: boolean;
  alertsEnabled: boolean;
  smsOptIn: boolean;
  smsSent: boolean;
  publicUrl: string;
  qrUrl: string;
  linkedAt: string | null;
  readyAt: string | null;
  collectedAt: string | null;
  cancelledAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** The graph's Ticket in the document's TicketResource shape. */
export function toTicketResource(t: GraphTicket): TicketResource {
  return {
    id: Number(t.id),
    branch_id: Number(t.branchId),
    number: t.number,
    external_id: t.externalId,
    token: t.token,
    status: t.status.toLowerCase() as TicketResource['status'],
    status_text: t.statusText,
    customer_name: t.customerName,
    note: t.note,
    source: t.source,
    source_text: t.sourceText,
    ring_count: t.ringCount,
    phone_linked: t.phoneLinked,
    alerts_enabled: t.alertsEnabled,
    sms_opt_in: t.smsOptIn,
    sms_sent: t.smsSent,
    public_url: t.publicUrl,
    qr_url: t.qrUrl,
    linked_at: t.linkedAt,
    ready_at: t.readyAt,
    collected_at: t.collectedAt,
    cancelled_at: t.cancelledAt,
    created_at: t.createdAt,
    updated_at: t.updatedAt,
  };
}
