import { FieldResolver, Resolver, Root } from 'type-graphql';
import type { EntityManager } from '../../../common/database';
import { PublicTicketType, TicketStatusValue } from './ticket.type';
import { whatsAppCodeOf, whatsAppUrl } from './whatsapp-link';
import { WhatsAppRepository } from './whatsapp.repository';

/**
 * The customer's WhatsApp opt-in on their ticket's page; the ticket's token, which found the
 * ticket, is the credential. Each field is read only when selected, one statement by key.
 */
@Resolver(() => PublicTicketType)
export class TicketWhatsAppResolver {
  constructor(
    private readonly em: EntityManager,
    /** The platform's WhatsApp number (config.whatsapp); null: WhatsApp is off everywhere. */
    private readonly businessNumber: string | null,
  ) {}

  @FieldResolver(() => String, {
    nullable: true,
    description:
      'A wa.me link that opens the chat with the platform’s WhatsApp number, the customer’s message prefilled in the venue’s language with the ticket’s code (made the first time it is asked for); sending it links the chat, and the ready alert then comes on WhatsApp. Null when the venue or the platform has WhatsApp off, and once the ticket is ready, collected or cancelled.',
  })
  async whatsappUrl(@Root() ticket: PublicTicketType): Promise<string | null> {
    if (this.businessNumber === null || !ticket.venueWhatsApp || ticket.status !== TicketStatusValue.WAITING)
      return null;
    const code = await whatsAppCodeOf(this.em, ticket.ticketId);
    return whatsAppUrl(this.businessNumber, ticket.language === 'en' ? 'en' : 'ar', ticket.number, code);
  }

  @FieldResolver(() => Boolean, {
    description:
      'Whether a customer’s WhatsApp chat is linked to the ticket (and has not said stop): the ready alert goes there.',
  })
  whatsappLinked(@Root() ticket: PublicTicketType): Promise<boolean> {
    return new WhatsAppRepository(this.em).isLinked(ticket.ticketId);
  }
}
