import { Field, ObjectType } from 'type-graphql';
import { AssumedSize } from '../../../common/cost.graphql';
import { NUMBER_LEASE_MAX } from './number-lease.service';

@ObjectType('TicketNumberLease', {
  description:
    'Upcoming numbers of the branch’s own sequence, the caller’s to give to tickets it creates (a board offline): no automatic number and no other lease is ever one of them.',
})
export class TicketNumberLeaseType {
  @AssumedSize(NUMBER_LEASE_MAX)
  @Field(() => [String], {
    description:
      'The numbers, in order: createTicket with one of them as number creates that ticket with it. Numbers an open ticket held were skipped.',
  })
  numbers!: string[];

  @Field(() => String, { description: 'The venue’s day (its timezone) the numbers belong to, YYYY-MM-DD.' })
  day!: string;

  @Field(() => Date, {
    description:
      'The end of that day in the venue’s timezone: the counter starts again at 1 then, so the numbers are not used after it.',
  })
  validUntil!: Date;

  @Field(() => String, {
    nullable: true,
    description:
      'The calling board device’s numberPrefix, for numbers past the lease; null for any other caller.',
  })
  prefix!: string | null;
}
