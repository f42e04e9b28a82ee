import type { EntityManager } from '../../../common/database';
import type { TextLanguage } from '../../../common/language';

/** What a WhatsApp message is: an alert of a ticket, or an answer to the customer's own message. */
export type WhatsAppKind = 'ready' | 'ring' | 'confirm' | 'help' | 'stop';

/** A status Meta reports of one of our messages. */
export type WhatsAppStatus = 'sent' | 'delivered' | 'read' | 'failed';

/** A message claimed for its one send, with what its words need. */
export interface ClaimedWhatsApp {
  id: string;
  wa_id: string;
  ticket_id: string | null;
  kind: WhatsAppKind;
  number: string | null;
  venue_name: string | null;
  language: TextLanguage | null;
  /** Whether the customer wrote to us within 24 hours: free-form text then, the template otherwise. */
  in_window: boolean;
}

/** Statuses in the order Meta reports them; a status never moves a message back. */
const PROGRESS = `array['pending', 'sending', 'sent', 'delivered', 'read']`;

/** The one reason an SMS is skipped for WhatsApp, so that a later `failed` can reopen it. */
export const SMS_SKIPPED_FOR_WHATSAPP = 'the ready alert reached the customer on WhatsApp';

/**
 * Every SQL statement of the WhatsApp side of tickets-events: Meta's ids seen once, the customers'
 * chats, and the delivery log (`whatsapp_messages`), one row per (cause, chat, kind) so one alert
 * or one answer is sent once whatever retries and replicas do.
 */
export class WhatsAppDeliveryRepository {
  constructor(private readonly em: EntityManager) {}

  /** Records a message id or status Meta sent; false when it was seen already (Meta resends). */
  async firstSeen(id: string): Promise<boolean> {
    const rows = await this.em.execute<{ id: string }[]>(
      'insert into tickets.whatsapp_inbound (id) values (?) on conflict (id) do nothing returning id',
      [id],
    );
    return rows.length > 0;
  }

  /** The customer wrote at `at`: their 24-hour window is counted from their latest message. */
  async touchContact(waId: string, at: Date): Promise<void> {
    await this.em.execute(
      `insert into tickets.whatsapp_contacts (wa_id, last_inbound_at) values (?, ?)
       on conflict (wa_id) do update set last_inbound_at =
         greatest(tickets.whatsapp_contacts.last_inbound_at, excluded.last_inbound_at)`,
      [waId, at],
    );
  }

  /** Takes the chat's hourly "send the code" answer; false when it had one within the hour. */
  async takeHelpSlot(waId: string): Promise<boolean> {
    const rows = await this.em.execute<{ wa_id: string }[]>(
      `update tickets.whatsapp_contacts set last_help_at = now()
        where wa_id = ? and (last_help_at is null or last_help_at <= now() - interval '1 hour')
        returning wa_id`,
      [waId],
    );
    return rows.length > 0;
  }

  /** "stop": the chat is unlinked from every ticket; how many links it ended. */
  async unlinkAll(waId: string): Promise<number> {
    const rows = await this.em.execute<{ ticket_id: string }[]>(
      `update tickets.whatsapp_links set unlinked_at = now()
        where wa_id = ? and unlinked_at is null returning ticket_id`,
      [waId],
    );
    return rows.length;
  }

  /** One message to write, once per (cause, chat, kind); its id, undefined when it exists already. */
  async insertMessage(
    waId: string,
    ticketId: number | null,
    kind: WhatsAppKind,
    cause: string,
  ): Promise<number | undefined> {
    const [row] = await this.em.execute<{ id: string }[]>(
      `insert into tickets.whatsapp_messages (wa_id, ticket_id, kind, cause) values (?, ?, ?, ?)
       on conflict (cause, wa_id, kind) do nothing returning id`,
      [waId, ticketId, kind, cause],
    );
    return row === undefined ? undefined : Number(row.id);
  }

  /**
   * The alert of an event to every chat linked to the ticket (not stopped), when its venue has
   * WhatsApp on; their ids. The unique key makes a second relay pass or replica write none.
   */
  async insertAlerts(eventId: string, kind: 'ready' | 'ring', ticketId: number): Promise<number[]> {
    const rows = await this.em.execute<{ id: string }[]>(
      `insert into tickets.whatsapp_messages (wa_id, ticket_id, kind, cause)
       select l.wa_id, l.ticket_id, ?, ? from tickets.whatsapp_links l
         join tickets.tickets t on t.id = l.ticket_id
         join tickets.branches b on b.id = t.branch_id
         join tickets.venues v on v.id = b.venue_id
        where l.ticket_id = ? and l.unlinked_at is null and v.whatsapp_enabled
       on conflict (cause, wa_id, kind) do nothing returning id`,
      [kind, eventId, ticketId],
    );
    return rows.map((r) => Number(r.id));
  }

  /** Whether the ticket has a ready alert on WhatsApp (its SMS then waits as the fallback). */
  async hasReadyAlert(ticketId: number): Promise<boolean> {
    const rows = await this.em.execute<{ one: number }[]>(
      `select 1 as one from tickets.whatsapp_messages where ticket_id = ? and kind = 'ready' limit 1`,
      [ticketId],
    );
    return rows.length > 0;
  }

  /**
   * Claims a pending message for its one send (`pending` → `sending`, committed before the call).
   * A row left `sending` by a crash is never claimed again: sending twice is worse than the SMS
   * fallback, which covers a ready alert whose `sent` never comes.
   */
  async claim(id: number): Promise<ClaimedWhatsApp | undefined> {
    const [row] = await this.em.execute<ClaimedWhatsApp[]>(
      `with claimed as (
         update tickets.whatsapp_messages set status = 'sending', attempts = attempts + 1, updated_at = now()
          where id = ? and status = 'pending'
          returning id, wa_id, ticket_id, kind)
       select c.*, t.number, v.name as venue_name, v.language,
              coalesce(w.last_inbound_at > now() - interval '24 hours', false) as in_window
         from claimed c
         left join tickets.tickets t on t.id = c.ticket_id
         left join tickets.branches b on b.id = t.branch_id
         left join tickets.venues v on v.id = b.venue_id
         left join tickets.whatsapp_contacts w on w.wa_id = c.wa_id`,
      [id],
    );
    return row;
  }

  /** The Graph API took the message: its id, which Meta's statuses name. */
  async recordAccepted(id: string, messageId: string, template: boolean): Promise<void> {
    await this.em.execute(
      `update tickets.whatsapp_messages set message_id = ?, template = ?, error = null, updated_at = now()
        where id = ?`,
      [messageId, template, id],
    );
  }

  /** The Graph API refused the message (or could not be reached); its ticket, for the SMS fallback. */
  async recordRefused(id: string, error: string, template: boolean): Promise<void> {
    await this.em.execute(
      `update tickets.whatsapp_messages set status = 'refused', template = ?, error = ?, updated_at = now()
        where id = ?`,
      [template, error.slice(0, 1000), id],
    );
  }

  /**
   * A status of one of our messages; moves it forward only (`failed` from anywhere but `read`).
   * Answers the message's ticket and kind when it changed, undefined otherwise.
   */
  async recordStatus(
    messageId: string,
    status: WhatsAppStatus,
    error: string | null,
  ): Promise<{ ticketId: number | null; kind: WhatsAppKind } | undefined> {
    const [row] = await this.em.execute<{ ticket_id: string | null; kind: WhatsAppKind }[]>(
      `update tickets.whatsapp_messages set status = ?, error = coalesce(?, error), updated_at = now()
        where message_id = ?
          and (case when ? = 'failed' then status not in ('failed', 'read')
                    else array_position(${PROGRESS}, status) < array_position(${PROGRESS}, ?::text) end)
        returning ticket_id, kind`,
      [status, error, messageId, status, status],
    );
    return row === undefined
      ? undefined
      : { ticketId: row.ticket_id === null ? null : Number(row.ticket_id), kind: row.kind };
  }

  /** Pending messages whose job was lost (a crash between commit and enqueue, Redis away). */
  async overdue(): Promise<number[]> {
    const rows = await this.em.execute<{ id: string }[]>(
      `select id from tickets.whatsapp_messages
        where status = 'pending' and created_at <= now() - interval '2 seconds' order by id limit 500`,
    );
    return rows.map((r) => Number(r.id));
  }

  /**
   * What the ready alerts of a ticket say for its SMS: `delivered` when one reached the chat (sent or
   * later), `waiting` until `due` while one is still on its way within the fallback time, and
   * `fallback` otherwise (refused, failed, or no `sent` in time); `none` without a ready alert.
   */
  async readyAlertState(
    ticketId: number,
    fallbackSeconds: number,
  ): Promise<{ state: 'none' | 'delivered' | 'fallback' } | { state: 'waiting'; due: Date }> {
    const [row] = await this.em.execute<{ alerts: number; delivered: number; due: Date | null }[]>(
      `select count(*)::int as alerts,
              count(*) filter (where status in ('sent', 'delivered', 'read'))::int as delivered,
              max(created_at + make_interval(secs => ?)) filter
                (where status in ('pending', 'sending') and created_at + make_interval(secs => ?) > now()) as due
         from tickets.whatsapp_messages where ticket_id = ? and kind = 'ready'`,
      [fallbackSeconds, fallbackSeconds, ticketId],
    );
    if (row === undefined || row.alerts === 0) return { state: 'none' };
    if (row.delivered > 0) return { state: 'delivered' };
    if (row.due !== null) return { state: 'waiting', due: new Date(row.due) };
    return { state: 'fallback' };
  }

  /**
   * The ticket's waiting SMS, due now: its WhatsApp alert was refused or failed. A text skipped
   * because the alert had reached the chat is reopened when that alert fails after all. Its id.
   */
  async releaseSms(ticketId: number): Promise<{ id: number; attempts: number } | undefined> {
    const [row] = await this.em.execute<{ id: string; attempts: number }[]>(
      `update tickets.sms_messages set status = 'pending', next_attempt_at = now(), updated_at = now()
        where ticket_id = ? and (status = 'pending' or (status = 'skipped' and last_error = ?))
        returning id, attempts`,
      [ticketId, SMS_SKIPPED_FOR_WHATSAPP],
    );
    return row === undefined ? undefined : { id: Number(row.id), attempts: row.attempts };
  }
}
