import type { TicketResource } from './tickets.schemas';

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
