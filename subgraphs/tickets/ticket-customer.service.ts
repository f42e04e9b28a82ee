import type { EntityManager } from '../../common/database';
import { ConflictError, NotFoundError, ValidationError } from '../../common/errors';
import { checkWebhookUrlForm } from './events/webhook-url';
import { recordEvent, type FeedbackPayload } from './outbox';
import { normalizeIraqiMobile } from './phone';
import { Ticket } from './ticket.entity';

/** At most this many characters of comment come with a rating. */
export const FEEDBACK_COMMENT_MAX = 500;

const TOKEN_PATTERN = /^[A-Za-z0-9_-]{32}$/;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** Browsers (phone, watch, a second tab) that may be notified about one ticket. */
export const PUSH_SUBSCRIPTIONS_MAX = 5;

type Row = Record<string, unknown>;

interface Located {
  ticket: Ticket;
  venueId: number;
  smsEnabled: boolean;
}

/**
 * What the customer does on the ticket's page, addressed by the ticket's token (the credential the
 * QR code carries): open it, allow alerts, ask for a text, rate the order. Each is one conditional
 * write, so repeating it (a reload, a double tap, two tabs) changes nothing and emits nothing twice.
 */
export class TicketCustomerService {
  constructor(private readonly em: EntityManager) {}

  /** The first open sets linked_at and phone_linked and emits ticket.linked; later opens change nothing. */
  async link(token: string): Promise<Ticket> {
    return this.em.transactional(async (tx) => {
      const { ticket, venueId } = await this.locate(tx, token);
      const rows = await tx.execute<Row[]>(
        `update tickets.tickets set linked_at = now(), phone_linked = true, updated_at = now()
          where id = ? and linked_at is null returning *`,
        [ticket.id],
      );
      if (rows[0] === undefined) return ticket;
      const linked = tx.map(Ticket, rows[0]);
      await recordEvent(tx, venueId, 'ticket.linked', linked);
      return linked;
    });
  }

  /** The customer tapped "enable alerts": the page may now chime, vibrate and keep the screen on. */
  async enableAlerts(token: string): Promise<Ticket> {
    return this.em.transactional(async (tx) => {
      const { ticket } = await this.locate(tx, token);
      const rows = await tx.execute<Row[]>(
        `update tickets.tickets set alerts_enabled = true, updated_at = now()
          where id = ? and not alerts_enabled returning *`,
        [ticket.id],
      );
      return rows[0] === undefined ? ticket : tx.map(Ticket, rows[0]);
    });
  }

  /**
   * The customer's own number for the one text on ready. Only while the order is waiting (the
   * moment it is ready the text has been decided) and only at a venue that sends texts.
   */
  async optInSms(token: string, phone: string): Promise<Ticket> {
    const e164 = normalizeIraqiMobile(phone);
    if (e164 === null)
      throw new ValidationError({ phone: ['The phone field must be a valid Iraqi mobile number.'] });
    return this.em.transactional(async (tx) => {
      const { ticket, smsEnabled } = await this.locate(tx, token);
      if (!smsEnabled) throw new ValidationError({ phone: ['This venue does not send text messages.'] });
      if (ticket.status !== 'waiting') {
        throw new ValidationError({
          phone: [`The order is already ${ticket.status}; there is nothing left to text.`],
        });
      }
      const rows = await tx.execute<Row[]>(
        `update tickets.tickets set customer_phone = ?, sms_opt_in = true, updated_at = now()
          where id = ? and status = 'waiting' returning *`,
        [e164, ticket.id],
      );
      if (rows[0] === undefined) throw new ValidationError({ phone: ['The order is no longer waiting.'] });
      return tx.map(Ticket, rows[0]);
    });
  }

  /**
   * A browser's Web Push subscription for the ticket, so ready and every ring reach a page in the
   * background. At most PUSH_SUBSCRIPTIONS_MAX per ticket; the same endpoint again replaces its keys.
   */
  async subscribePush(
    token: string,
    subscription: { endpoint: string; p256dh: string; auth: string },
    allowInsecure: boolean,
  ): Promise<void> {
    const errors: Record<string, string[]> = {};
    try {
      checkWebhookUrlForm(subscription.endpoint, allowInsecure);
    } catch (error) {
      errors.endpoint = [(error as Error).message.replace('The url', 'The endpoint')];
    }
    if (Buffer.from(subscription.p256dh, 'base64url').length !== 65 || !BASE64URL.test(subscription.p256dh)) {
      errors.p256dh = ['The p256dh key must be an uncompressed P-256 public key in base64url.'];
    }
    if (Buffer.from(subscription.auth, 'base64url').length !== 16 || !BASE64URL.test(subscription.auth)) {
      errors.auth = ['The auth secret must be 16 bytes in base64url.'];
    }
    if (Object.keys(errors).length > 0) throw new ValidationError(errors);
    await this.em.transactional(async (tx) => {
      const { ticket } = await this.locate(tx, token);
      if (ticket.status === 'collected' || ticket.status === 'cancelled') {
        throw new ValidationError({
          status: [`The order is ${ticket.status}; there is nothing left to notify.`],
        });
      }
      const [count] = await tx.execute<{ n: string }[]>(
        'select count(*) as n from tickets.push_subscriptions where ticket_id = ? and endpoint <> ?',
        [ticket.id, subscription.endpoint],
      );
      if (Number(count?.n ?? 0) >= PUSH_SUBSCRIPTIONS_MAX) {
        throw new ValidationError({
          endpoint: [`A ticket takes at most ${PUSH_SUBSCRIPTIONS_MAX} push subscriptions.`],
        });
      }
      await tx.execute(
        `insert into tickets.push_subscriptions (ticket_id, endpoint, p256dh, auth) values (?, ?, ?, ?)
         on conflict (ticket_id, endpoint) do update set p256dh = excluded.p256dh, auth = excluded.auth`,
        [ticket.id, subscription.endpoint, subscription.p256dh, subscription.auth],
      );
    });
  }

  /** One rating per ticket, once it is collected; emits feedback.submitted. */
  async submitFeedback(token: string, rating: number, comment: string | null): Promise<FeedbackPayload> {
    const text = comment?.trim() ? comment.trim() : null;
    const errors: Record<string, string[]> = {};
    if (!Number.isInteger(rating) || rating < 1 || rating > 5)
      errors.rating = ['The rating must be 1, 2, 3, 4 or 5.'];
    if (text !== null && [...text].length > FEEDBACK_COMMENT_MAX) {
      errors.comment = [`The comment must not be greater than ${FEEDBACK_COMMENT_MAX} characters.`];
    }
    if (Object.keys(errors).length > 0) throw new ValidationError(errors);
    return this.em.transactional(async (tx) => {
      const { ticket, venueId } = await this.locate(tx, token);
      if (ticket.status !== 'collected') {
        throw new ValidationError({
          status: [`Feedback opens once the order is collected; it is ${ticket.status}.`],
        });
      }
      const [row] = await tx.execute<{ created_at: string | Date }[]>(
        `insert into tickets.ticket_feedback (ticket_id, rating, comment) values (?, ?, ?)
         on conflict (ticket_id) do nothing returning created_at`,
        [ticket.id, rating, text],
      );
      if (row === undefined) throw new ConflictError('Feedback was already given for this ticket.');
      const feedback: FeedbackPayload = {
        rating,
        comment: text,
        created_at: new Date(row.created_at).toISOString(),
      };
      await recordEvent(tx, venueId, 'feedback.submitted', ticket, feedback);
      return feedback;
    });
  }

  /** The ticket and its venue, its row locked so the conditional writes above see one state. */
  private async locate(tx: EntityManager, token: string): Promise<Located> {
    if (!TOKEN_PATTERN.test(token)) throw new NotFoundError('Ticket not found.');
    const [row] = await tx.execute<Row[]>(
      `select t.*, b.venue_id as located_venue_id, v.sms_enabled as located_sms_enabled
         from tickets.tickets t
         join tickets.branches b on b.id = t.branch_id
         join tickets.venues v on v.id = b.venue_id
        where t.token = ? for update of t`,
      [token],
    );
    if (row === undefined) throw new NotFoundError('Ticket not found.');
    const { located_venue_id: venueId, located_sms_enabled: smsEnabled, ...ticketRow } = row;
    return { ticket: tx.map(Ticket, ticketRow), venueId: Number(venueId), smsEnabled: smsEnabled === true };
  }
}
