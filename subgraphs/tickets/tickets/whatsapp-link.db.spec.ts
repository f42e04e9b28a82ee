import 'reflect-metadata';
import { newTicketRow, newVenueBranch } from '../../../test/support/ticket-rows';
import { useSchemaDatabase } from '../../../test/support/database';
import { TicketRepository } from './ticket.repository';
import { TicketService } from './ticket.service';
import { toPublicTicket, type PublicTicketType } from './ticket.type';
import * as codes from './whatsapp-code';
import { findTicketByWhatsAppCode, linkWhatsApp, whatsAppCodeOf } from './whatsapp-link';
import { TicketWhatsAppResolver } from './whatsapp.resolver';

const BUSINESS = '9647800000001';

describe('a ticket’s WhatsApp code and link on real Postgres', () => {
  const db = useSchemaDatabase('tickets');

  async function ticket(
    number: string,
    whatsapp = true,
  ): Promise<{ id: number; token: string; venueId: number }> {
    const em = db.orm.em.fork();
    const { branchId, venueId } = await newVenueBranch(em);
    await em.execute('update tickets.venues set whatsapp_enabled = ?, language = ? where id = ?', [
      whatsapp,
      'en',
      venueId,
    ]);
    const row = newTicketRow(branchId, number);
    const created = await new TicketRepository(em).insert(row);
    return { id: created!.id, token: row.token, venueId };
  }

  async function publicTicket(token: string): Promise<PublicTicketType> {
    const view = await new TicketService(db.orm.em.fork()).byToken(token);
    return toPublicTicket(view!, 'en', null);
  }

  const resolver = (businessNumber: string | null = BUSINESS) =>
    new TicketWhatsAppResolver(db.orm.em.fork(), businessNumber);

  const storedCode = async (id: number) =>
    (
      await db.orm.em
        .fork()
        .execute<{ whatsapp_code: string | null }[]>(
          'select whatsapp_code from tickets.tickets where id = ?',
          [id],
        )
    )[0]?.whatsapp_code;

  it('makes the code the first time the link is asked for, and keeps it, even asked at once', async () => {
    const { id, token } = await ticket('42');
    expect(await storedCode(id)).toBeNull();
    const answers = await Promise.all(Array.from({ length: 5 }, () => whatsAppCodeOf(db.orm.em.fork(), id)));
    expect(new Set(answers).size).toBe(1);
    const code = answers[0]!;
    expect(await storedCode(id)).toBe(code);

    const url = new URL((await resolver().whatsappUrl(await publicTicket(token)))!);
    expect(url.origin + url.pathname).toBe(`https://wa.me/${BUSINESS}`);
    expect(url.searchParams.get('text')).toBe(
      `Notify me when order 42 is ready. Code: ${codes.formatWhatsAppCode(code)}`,
    );
    expect(await storedCode(id)).toBe(code);
  });

  it('draws another code when the first clashes with another ticket’s', async () => {
    const first = await ticket('1');
    const taken = await whatsAppCodeOf(db.orm.em.fork(), first.id);
    const second = await ticket('2');
    const spy = jest
      .spyOn(codes, 'newWhatsAppCode')
      .mockReturnValueOnce(taken)
      .mockReturnValueOnce('ZZZZ2222');
    try {
      expect(await whatsAppCodeOf(db.orm.em.fork(), second.id)).toBe('ZZZZ2222');
    } finally {
      spy.mockRestore();
    }
  });

  it('offers no link when the venue or the platform has WhatsApp off, or once not waiting', async () => {
    const off = await ticket('7', false);
    expect(await resolver().whatsappUrl(await publicTicket(off.token))).toBeNull();
    const on = await ticket('8');
    expect(await resolver(null).whatsappUrl(await publicTicket(on.token))).toBeNull();
    expect(await storedCode(on.id)).toBeNull();
    await db.orm.em.fork().execute(`update tickets.tickets set status = 'ready' where id = ?`, [on.id]);
    expect(await resolver().whatsappUrl(await publicTicket(on.token))).toBeNull();
  });

  it('finds the live ticket by its code in any text: case, spaces, dash, Arabic-Indic digits', async () => {
    const { id, venueId } = await ticket('31');
    const code = await whatsAppCodeOf(db.orm.em.fork(), id);
    const arabicDigits = code.replace(/[0-9]/g, (d) => String.fromCharCode(0x0660 + Number(d)));
    const texts = [
      `Notify me when order 31 is ready. Code: ${codes.formatWhatsAppCode(code)}`,
      `الرمز ${arabicDigits.slice(0, 4).toLowerCase()} ${arabicDigits.slice(4).toLowerCase()}`,
      code.toLowerCase(),
    ];
    for (const text of texts) {
      const found = await findTicketByWhatsAppCode(db.orm.em.fork(), text);
      expect(found).toMatchObject({
        ticketId: id,
        number: '31',
        status: 'waiting',
        venueId,
        venueWhatsApp: true,
      });
      expect(found?.venueName).toBe('Kebab Erbil');
    }
    expect(await findTicketByWhatsAppCode(db.orm.em.fork(), 'hello')).toBeNull();
    expect(await findTicketByWhatsAppCode(db.orm.em.fork(), 'ZZZZ-ZZZZ')).toBeNull();
    await db.orm.em.fork().execute(`update tickets.tickets set status = 'collected' where id = ?`, [id]);
    expect(await findTicketByWhatsAppCode(db.orm.em.fork(), code)).toBeNull();
  });

  it('links a chat once, with one live-only outbox event, and again after a stop', async () => {
    const { id, token, venueId } = await ticket('12');
    const outbox = () =>
      db.orm.em
        .fork()
        .execute<{ event: string; venue_id: string }[]>(
          'select event, venue_id from tickets.outbox where ticket_id = ? order by id',
          [id],
        );
    expect(await resolver().whatsappLinked(await publicTicket(token))).toBe(false);
    expect(await linkWhatsApp(db.orm.em.fork(), id, '9647701112222')).toBe(true);
    expect(await linkWhatsApp(db.orm.em.fork(), id, '9647701112222')).toBe(false);
    expect(await resolver().whatsappLinked(await publicTicket(token))).toBe(true);
    expect(await outbox()).toEqual([{ event: 'ticket.whatsapp_linked', venue_id: String(venueId) }]);

    await db.orm.em
      .fork()
      .execute('update tickets.whatsapp_links set unlinked_at = now() where ticket_id = ?', [id]);
    expect(await resolver().whatsappLinked(await publicTicket(token))).toBe(false);
    expect(await linkWhatsApp(db.orm.em.fork(), id, '9647701112222')).toBe(true);
    expect(await outbox()).toHaveLength(2);
    expect(await linkWhatsApp(db.orm.em.fork(), 999_999_999, '9647701112222')).toBe(false);
  });
});
