import { Field, FieldResolver, Int, ObjectType, Resolver, Root } from 'type-graphql';
import { AssumedSize } from '../../../common/cost.graphql';
import type { EntityManager } from '../../../common/database';
import { ForbiddenError } from '../../../common/errors';
import { TicketType } from '../tickets';
import { ticketDeliveryLog, type TicketDeliveryEntry } from './ticket-deliveries';

/** What a ticket's log holds at most in practice: a chat or two's confirmation, ready and rings, one SMS, a few browsers. */
const ASSUMED_DELIVERIES = 20;

@ObjectType('TicketDelivery', {
  description: 'One message a ticket caused to its customer, on one channel, with its outcome.',
})
export class TicketDeliveryType {
  @Field(() => String, { description: '`whatsapp`, `sms` or `push`.' })
  channel!: string;

  @Field(() => String, {
    description: 'What it said: `ready`, `ring`, or (WhatsApp) `confirm`, the answer to the customer’s code.',
  })
  kind!: string;

  @Field(() => String, {
    description:
      'WhatsApp: `pending`, `sending`, `accepted`, `sent`, `delivered`, `read`, `failed` or `refused`; SMS: `pending`, `sending`, `sent`, `failed` or `skipped`; push: `pending`, `sending`, `sent` or `failed`.',
  })
  status!: string;

  @Field(() => Int, { description: 'Attempts made so far.' })
  attempts!: number;

  @Field(() => Boolean, {
    description: 'WhatsApp: sent as the approved template, the customer’s 24-hour window having closed.',
  })
  template!: boolean;

  @Field(() => String, { nullable: true, description: 'The last error: the provider’s or Meta’s answer.' })
  error!: string | null;

  @Field(() => Date, { description: 'When it was written.' })
  createdAt!: Date;

  @Field(() => Date, { description: 'When its status last changed.' })
  updatedAt!: Date;
}

const toType = (entry: TicketDeliveryEntry): TicketDeliveryType => ({
  channel: entry.channel,
  kind: entry.kind,
  status: entry.status,
  attempts: entry.attempts,
  template: entry.template,
  error: entry.error,
  createdAt: new Date(entry.created_at),
  updatedAt: new Date(entry.updated_at),
});

/** A ticket's delivery log on the graph, for whoever reads the ticket with a key or as a member. */
@Resolver(() => TicketType)
export class TicketDeliveriesResolver {
  constructor(private readonly em: EntityManager) {}

  @AssumedSize(ASSUMED_DELIVERIES)
  @FieldResolver(() => [TicketDeliveryType], {
    description:
      'Every message the ticket caused to its customer, oldest first: WhatsApp (each alert and answer, with Meta’s statuses), its one SMS, Web Push. Not through the ticket’s token.',
  })
  async deliveries(@Root() ticket: TicketType): Promise<TicketDeliveryType[]> {
    if (ticket.readByToken === true) {
      throw new ForbiddenError(
        'The ticket token does not reveal deliveries; it needs a key of the ticket’s branch.',
      );
    }
    return (await ticketDeliveryLog(this.em, Number(ticket.id))).map(toType);
  }
}
