import { Arg, Int, Mutation, Resolver } from 'type-graphql';
import { NotFoundError, ValidationError } from '../../common/errors';
import { TicketCustomerService } from './ticket-customer.service';
import { TicketService } from './ticket.service';
import { PublicTicketType, TicketFeedbackType, toPublicTicket, type PresentOptions } from './ticket.type';
import { say } from '../../common/messages';

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
  async linkTicket(@Arg('token', () => String) token: string): Promise<PublicTicketType> {
    await this.customers.link(token);
    return this.view(token);
  }

  @Mutation(() => PublicTicketType, { description: 'The customer allowed sound, vibration and wake lock.' })
  async enableTicketAlerts(@Arg('token', () => String) token: string): Promise<PublicTicketType> {
    await this.customers.enableAlerts(token);
    return this.view(token);
  }

  @Mutation(() => PublicTicketType, {
    description:
      'The customer’s Iraqi mobile number for the one text on ready; only while waiting, at a venue that sends texts.',
  })
  async optInTicketSms(
    @Arg('token', () => String) token: string,
    @Arg('phone', () => String) phone: string,
  ): Promise<PublicTicketType> {
    await this.customers.optInSms(token, phone);
    return this.view(token);
  }

  @Mutation(() => PublicTicketType, {
    description:
      'A browser’s Web Push subscription (from PushManager.subscribe with pushKey): ready and every ring are pushed to it.',
  })
  async subscribeTicketPush(
    @Arg('token', () => String) token: string,
    @Arg('endpoint', () => String) endpoint: string,
    @Arg('p256dh', () => String) p256dh: string,
    @Arg('auth', () => String) auth: string,
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
    @Arg('token', () => String) token: string,
    @Arg('rating', () => Int) rating: number,
    @Arg('comment', () => String, { nullable: true }) comment: string | null,
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
