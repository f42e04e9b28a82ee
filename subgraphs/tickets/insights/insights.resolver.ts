import { Arg, FieldResolver, Resolver, Root } from 'type-graphql';
import { Cost } from '../../../common/cost.graphql';
import { BranchType, VenueType } from '../venues';
import { InsightsService, type InsightRange } from './insights.service';
import { InsightBucketSizeValue, InsightsType } from './insights.type';

const FROM = 'The range’s start; the bucket holding it is the first.';
const TO = 'The range’s end, not included; the bucket holding the instant before it is the last.';
const BUCKET = 'Hourly or daily buckets, in the venue’s time zone.';
/**
 * What an insights field weighs in the gateway's estimate besides its buckets: its own reads (the
 * caller's role, the zone, the rollups' buckets, the seconds its percentiles fall in) took about
 * as long as 200 fields of a page of tickets (docs/API-DECISIONS.md, "Declared list sizes").
 */
export const INSIGHTS_COST = 200;

const DESCRIPTION = `Counts, prep and pickup times and ratings over a range, whole and by bucket. Owners and managers; the gateway weighs it ${INSIGHTS_COST} plus the buckets the range asks for (at most 1,000).`;

function rangeOf(from: Date, to: Date, bucket: InsightBucketSizeValue): InsightRange {
  return { from, to, bucket };
}

@Resolver(() => BranchType)
export class BranchInsightsResolver {
  constructor(private readonly service: InsightsService) {}

  @Cost(INSIGHTS_COST)
  @FieldResolver(() => InsightsType, { description: `The branch’s numbers. ${DESCRIPTION}` })
  insights(
    @Root() branch: BranchType,
    @Arg('from', () => Date, { description: FROM }) from: Date,
    @Arg('to', () => Date, { description: TO }) to: Date,
    @Arg('bucket', () => InsightBucketSizeValue, { description: BUCKET }) bucket: InsightBucketSizeValue,
  ): Promise<InsightsType> {
    return this.service.ofBranch(
      { id: Number(branch.id), venueId: branch.venueId },
      rangeOf(from, to, bucket),
    );
  }
}

@Resolver(() => VenueType)
export class VenueInsightsResolver {
  constructor(private readonly service: InsightsService) {}

  @Cost(INSIGHTS_COST)
  @FieldResolver(() => InsightsType, { description: `Every branch’s numbers together. ${DESCRIPTION}` })
  insights(
    @Root() venue: VenueType,
    @Arg('from', () => Date, { description: FROM }) from: Date,
    @Arg('to', () => Date, { description: TO }) to: Date,
    @Arg('bucket', () => InsightBucketSizeValue, { description: BUCKET }) bucket: InsightBucketSizeValue,
  ): Promise<InsightsType> {
    return this.service.ofVenue(Number(venue.id), rangeOf(from, to, bucket));
  }
}
