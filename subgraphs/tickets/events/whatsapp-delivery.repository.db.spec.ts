import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { newTicketRow, newVenueBranch } from '../../../test/support/ticket-rows';
import { useSchemaDatabase } from '../../../test/support/database';
import { TicketRepository } from '../tickets';
import { DeliveryRepository } from './delivery.repository';
import { SMS_SKIPPED_FOR_WHATSAPP, WhatsAppDeliveryRepository } from './whatsapp-delivery.repository';

describe('the WhatsApp delivery log on real Postgres', () => {
  const db = useSchemaDatabase('tickets');
  const repository = () => new WhatsAppDeliveryRepository(db.orm.em.fork());

  /** A ticket at a venue with WhatsApp on (or off) and a chat linked to it. */
  async function linkedTicket(whatsapp = true): Promise<{ ticketId: number; waId: string }> {
    const em = db.orm.em.fork();
    const { branchId, venueId } = await newVenueBranch(em);
    await em.execute('update tickets.venues set whatsapp_enabled = ?, sms_enabled = true where id = ?', [
      whatsapp,
      venueId,
    ]);
    const row = { ...newTicketRow(branchId, 'A1'), customerPhone: '+9647701234567' };
    const ticket = await new TicketRepository(em).insert(row);
    const waId = `9647${String(Math.floor(Math.random() * 1e9)).padStart(9, '0')}`;
    await repository().touchContact(waId, new Date());
    await em.execute('insert into tickets.whatsapp_links (ticket_id, wa_id) values (?, ?)', [
      ticket!.id,
      waId,
    ]);
    return { ticketId: ticket!.id, waId };
  }

  it('writes one alert per linked chat and event however often the relay runs, none at a venue with WhatsApp off or after stop', async () => {
    const { ticketId, waId } = await linkedTicket();
    const event = randomUUID();
    const written = await repository().insertAlerts(event, 'ready', ticketId);
    expect(written).toHaveLength(1);
    expect(await repository().insertAlerts(event, 'ready', ticketId)).toEqual([]);
    expect(await repository().insertAlerts(randomUUID(), 'ring', ticketId)).toHaveLength(1);
    expect(await repository().unlinkAll(waId)).toBe(1);
    expect(await repository().insertAlerts(randomUUID(), 'ring', ticketId)).toEqual([]);
    const off = await linkedTicket(false);
    expect(await repository().insertAlerts(randomUUID(), 'ready', off.ticketId)).toEqual([]);
  });

  it('claims a message once, and never again once it is sending', async () => {
    const { ticketId } = await linkedTicket();
    const [id] = await repository().insertAlerts(randomUUID(), 'ready', ticketId);
    const claims = await Promise.all([
      repository().claim(id!),
      repository().claim(id!),
      repository().claim(id!),
    ]);
    expect(claims.filter((c) => c !== undefined)).toHaveLength(1);
    expect(claims.find((c) => c !== undefined)).toMatchObject({
      kind: 'ready',
      number: 'A1',
      in_window: true,
    });
    expect(await repository().overdue()).not.toContain(id);
  });

  it('moves a message forward only on its statuses, failed from anything but read', async () => {
    const { ticketId } = await linkedTicket();
    const [id] = await repository().insertAlerts(randomUUID(), 'ready', ticketId);
    await repository().claim(id!);
    const messageId = `wamid.${randomUUID()}`;
    await repository().recordAccepted(String(id), messageId, false);
    expect(await repository().recordStatus(messageId, 'delivered', null)).toEqual({
      ticketId,
      kind: 'ready',
    });
    expect(await repository().recordStatus(messageId, 'sent', null)).toBeUndefined();
    expect(await repository().readyAlertState(ticketId, 60)).toEqual({ state: 'delivered' });
    expect(await repository().recordStatus(messageId, 'failed', '131049 not delivered')).toEqual({
      ticketId,
      kind: 'ready',
    });
    expect(await repository().readyAlertState(ticketId, 60)).toEqual({ state: 'fallback' });
  });

  it('holds the SMS while the alert is on its way, and releases it, even one skipped, when the alert fails', async () => {
    const { ticketId } = await linkedTicket();
    expect(await repository().readyAlertState(ticketId, 60)).toEqual({ state: 'none' });
    await repository().insertAlerts(randomUUID(), 'ready', ticketId);
    const waiting = await repository().readyAlertState(ticketId, 60);
    expect(waiting.state).toBe('waiting');
    expect(await repository().readyAlertState(ticketId, 0)).toEqual({ state: 'fallback' });

    const [sms] = await new DeliveryRepository(db.orm.em.fork()).insertSms(
      randomUUID(),
      'ready',
      ticketId,
      null,
      60,
    );
    await new DeliveryRepository(db.orm.em.fork()).settleSms(
      String(sms),
      'skipped',
      0,
      SMS_SKIPPED_FOR_WHATSAPP,
      new Date(),
    );
    expect(await repository().releaseSms(ticketId)).toEqual({ id: sms, attempts: 0 });
    const [row] = await db.orm.em
      .fork()
      .execute<{ status: string; due: boolean }[]>(
        'select status, next_attempt_at <= now() as due from tickets.sms_messages where id = ?',
        [sms],
      );
    expect(row).toEqual({ status: 'pending', due: true });
  });

  it('answers the code hint at most once an hour per chat', async () => {
    const waId = '9647709999999';
    await repository().touchContact(waId, new Date());
    expect(await repository().takeHelpSlot(waId)).toBe(true);
    expect(await repository().takeHelpSlot(waId)).toBe(false);
    await db.orm.em
      .fork()
      .execute(
        `update tickets.whatsapp_contacts set last_help_at = now() - interval '61 minutes' where wa_id = ?`,
        [waId],
      );
    expect(await repository().takeHelpSlot(waId)).toBe(true);
  });
});
