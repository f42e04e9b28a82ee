import type { EntityManager } from '../../../common/database';
import type { TicketStatus } from '../../../contracts/tickets/ticket.limits';
import type { VenueLanguage } from '../venues';
import { Ticket } from './ticket.entity';

/** A ticket a customer's WhatsApp code named, with what a reply to them says. */
export interface WhatsAppTicket {
  ticketId: number;
  number: string;
  status: TicketStatus;
  token: string;
  branchId: number;
  venueId: number;
  venueName: string;
  venueLanguage: VenueLanguage;
  /** The venue's switch as stored; WhatsApp is on only while the platform has it configured too. */
  venueWhatsApp: boolean;
}

/** The statuses in which a code still links: the ready alert, or a ring, is still to come. */
export const WHATSAPP_LIVE_STATUSES: readonly TicketStatus[] = ['waiting', 'ready'];

/** Every SQL statement of a ticket's WhatsApp code and its links to customers' chats. */
export class WhatsAppRepository {
  constructor(private readonly em: EntityManager) {}

  /**
   * The ticket's code: `candidate` when it had none, else the one it had (one statement, so two
   * pages opened at once keep one code). A candidate another ticket holds violates the unique index.
   */
  async ensureCode(ticketId: number, candidate: string): Promise<string | null> {
    const [row] = await this.em.execute<{ whatsapp_code: string }[]>(
      `update tickets.tickets set whatsapp_code = coalesce(whatsapp_code, ?)
        where id = ? returning whatsapp_code`,
      [candidate, ticketId],
    );
    return row?.whatsapp_code ?? null;
  }

  /** The first live ticket among the codes, oldest code first as the customer wrote them. */
  async findLiveByCodes(codes: readonly string[]): Promise<WhatsAppTicket | null> {
    if (codes.length === 0) return null;
    const rows = await this.em.execute<
      {
        id: string;
        number: string;
        status: TicketStatus;
        token: string;
        branch_id: string;
        venue_id: string;
        name: string;
        language: VenueLanguage;
        whatsapp_enabled: boolean;
        whatsapp_code: string;
      }[]
    >(
      `select t.id, t.number, t.status, t.token, t.branch_id, t.whatsapp_code,
              v.id as venue_id, v.name, v.language, v.whatsapp_enabled
         from tickets.tickets t
         join tickets.branches b on b.id = t.branch_id
         join tickets.venues v on v.id = b.venue_id
        where t.whatsapp_code in (${codes.map(() => '?').join(', ')})
          and t.status in (${WHATSAPP_LIVE_STATUSES.map(() => '?').join(', ')})`,
      [...codes, ...WHATSAPP_LIVE_STATUSES],
    );
    const row = codes.map((code) => rows.find((r) => r.whatsapp_code === code)).find((r) => r);
    if (row === undefined) return null;
    return {
      ticketId: Number(row.id),
      number: row.number,
      status: row.status,
      token: row.token,
      branchId: Number(row.branch_id),
      venueId: Number(row.venue_id),
      venueName: row.name,
      venueLanguage: row.language,
      venueWhatsApp: row.whatsapp_enabled,
    };
  }

  /** Whether a customer's chat is linked to the ticket and has not said stop. */
  async isLinked(ticketId: number): Promise<boolean> {
    const rows = await this.em.execute<{ one: number }[]>(
      `select 1 as one from tickets.whatsapp_links
        where ticket_id = ? and unlinked_at is null limit 1`,
      [ticketId],
    );
    return rows.length > 0;
  }

  /**
   * Links the chat to the ticket (again, after a stop); false when it was linked already, so the
   * caller announces only a change. The contact's row is made if the chat is new.
   */
  async link(ticketId: number, waId: string): Promise<boolean> {
    await this.em.execute(
      'insert into tickets.whatsapp_contacts (wa_id) values (?) on conflict (wa_id) do nothing',
      [waId],
    );
    const rows = await this.em.execute<{ ticket_id: string }[]>(
      `insert into tickets.whatsapp_links (ticket_id, wa_id) values (?, ?)
       on conflict (ticket_id, wa_id) do update set linked_at = now(), unlinked_at = null
        where tickets.whatsapp_links.unlinked_at is not null
       returning ticket_id`,
      [ticketId, waId],
    );
    return rows.length > 0;
  }

  /** The ticket and its venue, for the outbox row of a link. */
  async ticketWithVenue(ticketId: number): Promise<{ ticket: Ticket; venueId: number } | null> {
    const [row] = await this.em.execute<(Record<string, unknown> & { located_venue_id: string })[]>(
      `select t.*, b.venue_id as located_venue_id
         from tickets.tickets t join tickets.branches b on b.id = t.branch_id
        where t.id = ?`,
      [ticketId],
    );
    if (row === undefined) return null;
    const { located_venue_id: venueId, ...ticketRow } = row;
    return { ticket: this.em.map(Ticket, ticketRow), venueId: Number(venueId) };
  }
}
