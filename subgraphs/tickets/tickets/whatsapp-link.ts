import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '../../../common/database';
import { text } from '../../../common/messages';
import type { TextLanguage } from '../../../common/language';
import { TicketOutbox } from './ticket-outbox';
import { formatWhatsAppCode, newWhatsAppCode, whatsAppCodesIn } from './whatsapp-code';
import { WhatsAppRepository, type WhatsAppTicket } from './whatsapp.repository';

/** Tries of a new code: a clash with another ticket's is one in about 10^9 per live code. */
const CODE_ATTEMPTS = 5;

/**
 * The ticket's WhatsApp code, made and stored the first time it is asked for; the one it has
 * afterwards, whoever asks. A code another ticket holds already is drawn again.
 */
export async function whatsAppCodeOf(em: EntityManager, ticketId: number): Promise<string> {
  const repository = new WhatsAppRepository(em);
  for (let attempt = 1; ; attempt++) {
    try {
      const code = await repository.ensureCode(ticketId, newWhatsAppCode());
      if (code === null) throw new Error(`ticket ${ticketId} is gone`);
      return code;
    } catch (error) {
      if (!(error instanceof UniqueConstraintViolationException) || attempt >= CODE_ATTEMPTS) throw error;
    }
  }
}

/**
 * `https://wa.me/<number>?text=…`: the chat with the business, the customer's message written for
 * them in the venue's language, carrying the ticket's code.
 */
export function whatsAppUrl(
  businessNumber: string,
  language: TextLanguage,
  number: string,
  code: string,
): string {
  const prefilled = text('whatsapp.prefilled', language, { number, code: formatWhatsAppCode(code) });
  return `https://wa.me/${businessNumber}?text=${encodeURIComponent(prefilled)}`;
}

/**
 * For the messaging side: the live ticket (waiting or ready) whose code a customer's message
 * carries, anywhere in its text, whatever its case, spacing, dash or digits; null when none does.
 * Whether the venue still has WhatsApp on is in the answer (`venueWhatsApp`).
 */
export function findTicketByWhatsAppCode(em: EntityManager, message: string): Promise<WhatsAppTicket | null> {
  return new WhatsAppRepository(em).findLiveByCodes(whatsAppCodesIn(message));
}

/**
 * For the messaging side: links the customer's chat (`waId`) to the ticket and, when that changed
 * anything, moves the ticket's page live (the outbox event `ticket.whatsapp_linked`, which no
 * webhook endpoint can subscribe to, so integrators see nothing). One transaction; true when this
 * call linked it, false when it was linked already or the ticket is gone.
 */
export function linkWhatsApp(em: EntityManager, ticketId: number, waId: string): Promise<boolean> {
  return em.transactional(async (tx) => {
    const repository = new WhatsAppRepository(tx);
    const found = await repository.ticketWithVenue(ticketId);
    if (found === null) return false;
    if (!(await repository.link(ticketId, waId))) return false;
    await new TicketOutbox(tx).recordEvent(found.venueId, 'ticket.whatsapp_linked', found.ticket);
    return true;
  });
}
