/**
 * Tickets: the ticket, its state machine, its rules, its repository and outbox writes, the
 * staff's and the customer's operations and their graph types, and leases of upcoming numbers.
 * What the other folders of the tickets subgraph may use; the rest of tickets/ is its own.
 */
export { Ticket } from './ticket.entity';
export { TicketRepository, type NewTicketRow } from './ticket.repository';
export { TicketOutbox } from './ticket-outbox';
export { TicketService } from './ticket.service';
export { TicketCustomerService } from './ticket-customer.service';
export {
  DOCUMENTED_EVENTS,
  WEBHOOK_EVENTS,
  isWebhookEvent,
  LIVE_ONLY_EVENTS,
  type FeedbackPayload,
  type OutboxEventName,
  type WebhookEvent,
} from './ticket-events';
export {
  PublicTicketType,
  TicketStatusValue,
  TicketType,
  toTicketType,
  type PresentOptions,
} from './ticket.type';
export { BranchResolver, TicketResolver } from './ticket.resolver';
export { TicketCustomerResolver } from './ticket-customer.resolver';
export { NumberLeaseService, NUMBER_LEASE_DEFAULT, NUMBER_LEASE_MAX } from './number-lease.service';
export { NumberLeaseResolver } from './number-lease.resolver';
export { formatWhatsAppCode, whatsAppCodesIn } from './whatsapp-code';
export { findTicketByWhatsAppCode, linkWhatsApp, whatsAppCodeOf, whatsAppUrl } from './whatsapp-link';
export { WHATSAPP_LIVE_STATUSES, type WhatsAppTicket } from './whatsapp.repository';
export { TicketWhatsAppResolver } from './whatsapp.resolver';
