/**
 * What ticket-calling-api.md fixes about a ticket and both sides enforce: its statuses, where it
 * came from, the lengths of its fields, the page sizes of a list and how often a customer may be
 * alerted again. The tickets subgraph checks them; the REST adapter validates and describes them.
 */

export const TICKET_STATUSES = ['waiting', 'ready', 'collected', 'cancelled'] as const;
export type TicketStatus = (typeof TICKET_STATUSES)[number];

/** Where a ticket came from; the codes are part of the public resource (see docs/API-DECISIONS.md). */
export enum TicketSource {
  API = 1,
  CASHIER = 2,
  KIOSK = 3,
}

/** Maximum lengths of the creation request and list filters. */
export const TICKET_LIMITS = {
  number: 20,
  externalId: 100,
  customerName: 80,
  customerPhone: 20,
  note: 255,
  search: 255,
  idempotencyKey: 255,
  perPage: 100,
} as const;

export const DEFAULT_PER_PAGE = 15;

/** A customer is alerted again (ring) at most once in this many seconds. */
export const RING_INTERVAL_SECONDS = 30;

/** How long an Idempotency-Key is kept (and its first answer replayed), in hours. */
export const IDEMPOTENCY_HOURS = 24;
