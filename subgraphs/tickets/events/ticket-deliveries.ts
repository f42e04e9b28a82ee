import type { EntityManager } from '../../../common/database';

/** One message a ticket caused on one channel, with its attempts and outcome. */
export interface TicketDeliveryEntry {
  channel: 'whatsapp' | 'sms' | 'push';
  /** WhatsApp: ready, ring, confirm; SMS and push: the event's kind (ready, ring). */
  kind: string;
  /** WhatsApp: pending, sending (claimed, no answer), accepted, sent, delivered, read, failed, refused. */
  status: string;
  attempts: number;
  /** WhatsApp: the ready template (outside the 24-hour window) rather than free-form text. */
  template: boolean;
  error: string | null;
  created_at: Date;
  updated_at: Date;
}

/**
 * A ticket's delivery log: every WhatsApp message, its one SMS and its Web Push messages, oldest
 * first, each with its status, attempts and last error; so a ticket whose WhatsApp alert was
 * refused shows the refusal and then the SMS that went instead. Webhooks are the endpoint's log.
 */
export function ticketDeliveryLog(em: EntityManager, ticketId: number): Promise<TicketDeliveryEntry[]> {
  return em.execute<TicketDeliveryEntry[]>(
    `select * from (
       -- 'accepted': the Graph API took it and no status has come yet.
       select 'whatsapp' as channel, kind,
              case when status = 'sending' and message_id is not null then 'accepted' else status end as status,
              attempts, template, error, created_at, updated_at
         from tickets.whatsapp_messages where ticket_id = ?
       union all
       select 'sms', 'ready', status, attempts, false, last_error, created_at, updated_at
         from tickets.sms_messages where ticket_id = ?
       union all
       select 'push', case when o.event = 'ticket.rung' then 'ring' else 'ready' end, p.status, p.attempts,
              false, p.last_error, p.created_at, p.updated_at
         from tickets.push_messages p join tickets.push_subscriptions s on s.id = p.subscription_id
         left join tickets.outbox o on o.event_id = p.event_id
        where s.ticket_id = ?
     ) log order by created_at, case channel when 'whatsapp' then 0 when 'sms' then 1 else 2 end`,
    [ticketId, ticketId, ticketId],
  );
}
