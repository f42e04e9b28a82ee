import type { TextLanguage } from '../../../common/language';
import { text, type MessageId } from '../../../common/messages';
import { TicketSource, type TicketStatus } from '../../../contracts/tickets/ticket.limits';

const STATUS: Record<TicketStatus, MessageId> = {
  waiting: 'ticket.status.waiting',
  ready: 'ticket.status.ready',
  collected: 'ticket.status.collected',
  cancelled: 'ticket.status.cancelled',
};

const SOURCE: Record<TicketSource, MessageId> = {
  [TicketSource.API]: 'ticket.source.api',
  [TicketSource.CASHIER]: 'ticket.source.cashier',
  [TicketSource.KIOSK]: 'ticket.source.kiosk',
};

/** `status_text`: the status as people read it, in the request's language. */
export function statusText(status: TicketStatus, language: TextLanguage): string {
  return text(STATUS[status], language);
}

/** `source_text`: where the ticket was made, in the request's language. */
export function sourceText(source: TicketSource, language: TextLanguage): string {
  return text(SOURCE[source], language);
}
