import type { EntityManager } from '../../../common/database';
import { ConflictError, NotFoundError, ValidationError, type FieldMessages } from '../../../common/errors';
import type { FeedbackPayload } from './ticket-events';
import { checkWebhookUrlForm, UnsafeWebhookUrlError } from '../../../common/outbound-url';
import { normalizeIraqiMobile } from '../../../contracts/tickets/iraqi-mobile';
import type { Ticket } from './ticket.entity';
import { TicketRepository, type LockedTicket } from './ticket.repository';
import { TOKEN } from '../../../common/patterns';
import { say } from '../../../common/messages';

/** At most this many characters of comment come with a rating. */
export const FEEDBACK_COMMENT_MAX = 500;

const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** Browsers (phone, watch, a second tab) that may be notified about one ticket. */
export const PUSH_SUBSCRIPTIONS_MAX = 5;

/**
 * What the customer does on the ticket's page, addressed by the ticket's token (the credential the
 * QR code carries): open it, allow alerts, ask for a text, rate the order. Each is one conditional
 * write, so repeating it (a reload, a double tap, two tabs) changes nothing and emits nothing twice.
 */
export class TicketCustomerService {
  private readonly tickets: TicketRepository;

  constructor(em: EntityManager) {
    this.tickets = new TicketRepository(em);
  }

  /** The first open sets linked_at and phone_linked and emits ticket.linked; later opens change nothing. */
  async link(token: string): Promise<Ticket> {
    return this.tickets.transaction(async (tx) => {
      const { ticket, venueId } = await this.locate(tx.tickets, token);
      const linked = await tx.tickets.markLinked(ticket.id);
      if (linked === null) return ticket;
      await tx.outbox.recordEvent(venueId, 'ticket.linked', linked);
      return linked;
    });
  }

  /** The customer tapped "enable alerts": the page may now chime, vibrate and keep the screen on. */
  async enableAlerts(token: string): Promise<Ticket> {
    return this.tickets.transaction(async (tx) => {
      const { ticket } = await this.locate(tx.tickets, token);
      return (await tx.tickets.enableAlerts(ticket.id)) ?? ticket;
    });
  }

  /**
   * The customer's own number for the one text on ready. Only while the order is waiting (the
   * moment it is ready the text has been decided) and only at a venue that sends texts.
   */
  async optInSms(token: string, phone: string): Promise<Ticket> {
    const e164 = normalizeIraqiMobile(phone);
    if (e164 === null) throw new ValidationError({ phone: [say('field.iraqi_mobile', { field: 'phone' })] });
    return this.tickets.transaction(async (tx) => {
      const { ticket, smsEnabled } = await this.locate(tx.tickets, token);
      if (!smsEnabled) throw new ValidationError({ phone: [say('ticket.sms_off')] });
      if (ticket.status !== 'waiting') {
        throw new ValidationError({
          phone: [say('ticket.sms_too_late', { status: ticket.status })],
        });
      }
      const optedIn = await tx.tickets.optInSms(ticket.id, e164);
      if (optedIn === null) throw new ValidationError({ phone: [say('ticket.no_longer_waiting')] });
      return optedIn;
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
    const errors: FieldMessages = {};
    try {
      checkWebhookUrlForm(subscription.endpoint, allowInsecure, 'endpoint');
    } catch (error) {
      if (!(error instanceof UnsafeWebhookUrlError)) throw error;
      errors.endpoint = [error.said];
    }
    if (Buffer.from(subscription.p256dh, 'base64url').length !== 65 || !BASE64URL.test(subscription.p256dh)) {
      errors.p256dh = [say('push.p256dh')];
    }
    if (Buffer.from(subscription.auth, 'base64url').length !== 16 || !BASE64URL.test(subscription.auth)) {
      errors.auth = [say('push.auth')];
    }
    if (Object.keys(errors).length > 0) throw new ValidationError(errors);
    await this.tickets.transaction(async (tx) => {
      const { ticket } = await this.locate(tx.tickets, token);
      if (ticket.status === 'collected' || ticket.status === 'cancelled') {
        throw new ValidationError({
          status: [say('push.too_late', { status: ticket.status })],
        });
      }
      const others = await tx.tickets.countOtherPushSubscriptions(ticket.id, subscription.endpoint);
      if (others >= PUSH_SUBSCRIPTIONS_MAX) {
        throw new ValidationError({
          endpoint: [say('push.too_many', { max: PUSH_SUBSCRIPTIONS_MAX })],
        });
      }
      await tx.tickets.savePushSubscription(ticket.id, subscription);
    });
  }

  /** One rating per ticket, once it is collected; emits feedback.submitted. */
  async submitFeedback(token: string, rating: number, comment: string | null): Promise<FeedbackPayload> {
    const text = comment?.trim() ? comment.trim() : null;
    const errors: FieldMessages = {};
    if (!Number.isInteger(rating) || rating < 1 || rating > 5) errors.rating = [say('feedback.rating')];
    if (text !== null && [...text].length > FEEDBACK_COMMENT_MAX) {
      errors.comment = [say('feedback.comment_too_long', { max: FEEDBACK_COMMENT_MAX })];
    }
    if (Object.keys(errors).length > 0) throw new ValidationError(errors);
    return this.tickets.transaction(async (tx) => {
      const { ticket, venueId } = await this.locate(tx.tickets, token);
      if (ticket.status !== 'collected') {
        throw new ValidationError({
          status: [say('feedback.not_collected', { status: ticket.status })],
        });
      }
      const createdAt = await tx.tickets.insertFeedback(ticket.id, rating, text);
      if (createdAt === null) throw new ConflictError('Feedback was already given for this ticket.');
      const feedback: FeedbackPayload = {
        rating,
        comment: text,
        created_at: createdAt.toISOString(),
      };
      await tx.outbox.recordEvent(venueId, 'feedback.submitted', ticket, feedback);
      return feedback;
    });
  }

  /** The ticket and its venue, its row locked so the conditional writes above see one state. */
  private async locate(tickets: TicketRepository, token: string): Promise<LockedTicket> {
    if (!TOKEN.test(token)) throw new NotFoundError('Ticket not found.');
    const located = await tickets.lockByToken(token);
    if (located === null) throw new NotFoundError('Ticket not found.');
    return located;
  }
}
