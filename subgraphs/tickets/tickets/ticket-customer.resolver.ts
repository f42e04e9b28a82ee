import { Arg, Int, Mutation, Resolver } from 'type-graphql';
import { NotFoundError, ValidationError } from '../../../common/errors';
import { FEEDBACK_COMMENT_MAX, TicketCustomerService } from './ticket-customer.service';
import { TicketService } from './ticket.service';
import { PublicTicketType, TicketFeedbackType, toPublicTicket, type PresentOptions } from './ticket.type';
import { say } from '../../../common/messages';

/** Every operation here names its ticket by the token the customer's page was opened with. */
const TOKEN_ARG = { description: 'The ticket’s 32-character token, from publicUrl.' };

/** The ticket page's own writes. Each needs no key: the ticket's token, from its QR code, is the credential. */
@Resolver()
export class TicketCustomerResolver {
  constructor(
    private readonly customers: TicketCustomerService,
    private readonly tickets: TicketService,
    private readonly present: PresentOptions,
    private readonly push: { publicKey: string } | null,
    private readonly allowInsecureEndpoints: boolean,
  ) {}

  @Mutation(() => PublicTicketType, {
    description:
      'The customer opened the ticket’s page. The first time sets linkedAt and phoneLinked and emits ticket.linked; later calls change nothing.',
  })
  async linkTicket(@Arg('token', () => String, TOKEN_ARG) token: string): Promise<PublicTicketType> {
    await this.customers.link(token);
    return this.view(token);
  }

  @Mutation(() => PublicTicketType, { description: 'The customer allowed sound, vibration and wake lock.' })
  async enableTicketAlerts(@Arg('token', () => String, TOKEN_ARG) token: string): Promise<PublicTicketType> {
    await this.customers.enableAlerts(token);
    return this.view(token);
  }

  @Mutation(() => PublicTicketType, {
    description:
      'The customer’s Iraqi mobile number for the one text on ready; only while waiting, at a venue that sends texts.',
  })
  async optInTicketSms(
    @Arg('token', () => String, TOKEN_ARG) token: string,
    @Arg('phone', () => String, {
      description:
        'An Iraqi mobile number: 07XXXXXXXXX, +9647…, 009647… or 9647…; spaces and dashes allowed.',
    })
    phone: string,
  ): Promise<PublicTicketType> {
    await this.customers.optInSms(token, phone);
    return this.view(token);
  }

  @Mutation(() => PublicTicketType, {
    description:
      'A browser’s Web Push subscription (from PushManager.subscribe with pushKey): ready and every ring are pushed to it.',
  })
  async subscribeTicketPush(
    @Arg('token', () => String, TOKEN_ARG) token: string,
    @Arg('endpoint', () => String, {
      description:
        'The push service’s https URL from the subscription, at most 2048 characters; pushes go to public addresses only.',
    })
    endpoint: string,
    @Arg('p256dh', () => String, { description: 'The subscription’s p256dh key: 65 bytes, base64url.' })
    p256dh: string,
    @Arg('auth', () => String, { description: 'The subscription’s auth secret: 16 bytes, base64url.' })
    auth: string,
  ): Promise<PublicTicketType> {
    if (this.push === null) {
      throw new ValidationError({ endpoint: [say('push.off')] });
    }
    await this.customers.subscribePush(token, { endpoint, p256dh, auth }, this.allowInsecureEndpoints);
    return this.view(token);
  }

  @Mutation(() => TicketFeedbackType, {
    description:
      'One 1–5 rating (and a comment of at most 500 characters) per collected ticket; emits feedback.submitted.',
  })
  async submitTicketFeedback(
    @Arg('token', () => String, TOKEN_ARG) token: string,
    @Arg('rating', () => Int, { description: '1 to 5.' }) rating: number,
    @Arg('comment', () => String, {
      nullable: true,
      description: `At most ${FEEDBACK_COMMENT_MAX} characters, trimmed; empty means none.`,
    })
    comment: string | null,
  ): Promise<TicketFeedbackType> {
    const feedback = await this.customers.submitFeedback(token, rating, comment);
    return { rating: feedback.rating, comment: feedback.comment, createdAt: new Date(feedback.created_at) };
  }

  private async view(token: string): Promise<PublicTicketType> {
    const view = await this.tickets.byToken(token);
    if (view === null) throw new NotFoundError('Ticket not found.');
    return toPublicTicket(view, this.present.language, this.push?.publicKey ?? null);
  }
}
