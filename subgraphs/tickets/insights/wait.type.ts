import { Field, Float, Int, ObjectType } from 'type-graphql';

@ObjectType('BranchWait', {
  description:
    'How long the branch’s customers wait now, as the staff board shows it; read again after each ticket change.',
})
export class BranchWaitType {
  @Field(() => Int, { description: 'Tickets waiting now.' })
  waiting!: number;

  @Field(() => Date, {
    nullable: true,
    description:
      'When the oldest waiting ticket was created; null when none waits. Its age is now minus this.',
  })
  oldestWaitingSince!: Date | null;

  @Field(() => Float, {
    nullable: true,
    description:
      'The median of created → ready (percentile_cont) over the tickets that became ready in the last hour; null when none did.',
  })
  medianWaitSeconds!: number | null;

  @Field(() => Int, { description: 'Tickets that became ready in the last hour.' })
  readyLastHour!: number;

  @Field(() => Int, {
    description: 'The venue’s waitAlertMinutes: the age past which a wait is highlighted.',
  })
  alertMinutes!: number;

  @Field(() => Boolean, {
    description: 'The oldest waiting ticket is alertMinutes old or older, or the median wait is that long.',
  })
  alert!: boolean;
}
