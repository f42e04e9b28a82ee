import { Field, Float, Int, ObjectType, registerEnumType } from 'type-graphql';
import { Cost } from '../../../common/cost.graphql';

/**
 * A bucket's numbers are read together from one rollup row: the bucket weighs 1 in the gateway's
 * cost estimate (its `start`), whichever of them it selects.
 */
const InBucket = () => Cost(0);

export enum InsightBucketSizeValue {
  HOUR = 'HOUR',
  DAY = 'DAY',
}

registerEnumType(InsightBucketSizeValue, {
  name: 'InsightBucketSize',
  description: 'How long each bucket of insights is, in the venue’s time zone.',
  valuesConfig: {
    HOUR: { description: 'From one whole hour of the venue’s clock to the next.' },
    DAY: { description: 'From one local midnight to the next (23 or 25 hours when the clocks change).' },
  },
});

@ObjectType('InsightBucket', {
  description:
    'What happened to a venue’s tickets in one bucket of time: each ticket counts in the bucket of the event measured (created in its creation bucket, ready in its ready bucket).',
})
export class InsightBucketType {
  @Field(() => Date, {
    description: 'When the bucket starts: on the hour or at midnight of the venue’s time zone.',
  })
  start!: Date;

  @InBucket()
  @Field(() => Int, { description: 'Tickets created.' })
  created!: number;

  @InBucket()
  @Field(() => Int, { description: 'Tickets marked ready.' })
  ready!: number;

  @InBucket()
  @Field(() => Int, { description: 'Tickets collected.' })
  collected!: number;

  @InBucket()
  @Field(() => Int, { description: 'Tickets cancelled.' })
  cancelled!: number;

  @InBucket()
  @Field(() => Float, {
    nullable: true,
    description:
      'Median seconds from created to ready of the tickets that became ready here (percentile_cont over whole seconds); null when none did.',
  })
  prepP50Seconds!: number | null;

  @InBucket()
  @Field(() => Float, {
    nullable: true,
    description: '90th percentile of the same (percentile_cont); null when no ticket became ready.',
  })
  prepP90Seconds!: number | null;

  @InBucket()
  @Field(() => Float, {
    nullable: true,
    description:
      'Median seconds from ready to collected of the tickets collected here after being ready; null when none was.',
  })
  pickupP50Seconds!: number | null;

  @InBucket()
  @Field(() => Int, { description: 'Tickets whose customer opened their page.' })
  linked!: number;

  @InBucket()
  @Field(() => Int, { description: 'Times a ready ticket rang its customer.' })
  rings!: number;

  @InBucket()
  @Field(() => Int, { description: 'SMS messages sent on ready.' })
  smsSent!: number;

  @InBucket()
  @Field(() => Int, { description: 'Ratings customers gave.' })
  feedbackCount!: number;

  @InBucket()
  @Field(() => Float, { nullable: true, description: 'Their average, 1 to 5; null without ratings.' })
  feedbackAverage!: number | null;
}

@ObjectType('Insights', { description: 'A venue’s or branch’s numbers over a range, whole and by bucket.' })
export class InsightsType {
  @Field(() => InsightBucketType, {
    description: 'The whole range as one bucket; its start is the first bucket’s.',
  })
  totals!: InsightBucketType;

  @Field(() => [InsightBucketType], {
    description: 'Every bucket that overlaps the range, oldest first, empty ones included.',
  })
  buckets!: InsightBucketType[];
}
