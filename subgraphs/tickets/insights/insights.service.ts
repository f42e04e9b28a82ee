import { ValidationError } from '../../../common/errors';
import { say } from '../../../common/messages';
import {
  insightBucketsAsked,
  MAX_INSIGHT_BUCKETS,
  type InsightBucketSizeName,
} from '../../../contracts/tickets/insights';
import type { VenueRoles } from '../venues';
import {
  type InsightsRepository,
  slotKey,
  type BucketCounts,
  type BucketSize,
  type Measure,
  type SlotRef,
} from './insights.repository';
import { addCounts, OVERFLOW_SLOT, percentile, slotsNeeded, type SlotValues } from './percentiles';
import type { InsightBucketType, InsightsType } from './insights.type';

/** The range an insights field is asked for. */
export interface InsightRange {
  from: Date;
  to: Date;
  bucket: InsightBucketSizeName;
}

/** The percentiles each bucket answers, of which duration. */
const PERCENTILES: readonly { measure: Measure; p: number; field: keyof InsightBucketType }[] = [
  { measure: 'prep', p: 0.5, field: 'prepP50Seconds' },
  { measure: 'prep', p: 0.9, field: 'prepP90Seconds' },
  { measure: 'pickup', p: 0.5, field: 'pickupP50Seconds' },
];

function minutesOf(bucket: BucketCounts, measure: Measure): number[] {
  return measure === 'prep' ? bucket.prepMinutes : bucket.pickupMinutes;
}

/** A range the rollups can answer within the platform's bound, or the error naming what is wrong. */
export function checkRange({ from, to, bucket }: InsightRange): void {
  if (!(to.getTime() > from.getTime())) throw new ValidationError({ to: [say('insights.range_order')] });
  const asked = insightBucketsAsked(from, to, bucket);
  if (asked > MAX_INSIGHT_BUCKETS) {
    throw new ValidationError({
      to: [say('insights.too_many_buckets', { asked, max: MAX_INSIGHT_BUCKETS })],
    });
  }
}

/**
 * Owners' and managers' numbers of a branch or a whole venue, from the rollups the tickets'
 * triggers keep: counts summed, percentiles exact (percentiles.ts).
 */
export class InsightsService {
  constructor(
    private readonly repository: InsightsRepository,
    private readonly roles: VenueRoles,
  ) {}

  async ofBranch(branch: { id: number; venueId: number }, range: InsightRange): Promise<InsightsType> {
    await this.roles.require(branch.venueId, 'manage');
    checkRange(range);
    const found = await this.repository.branchZone(branch.id);
    if (found === null) throw new Error(`branch ${branch.id} has no venue`);
    return this.insights([branch.id], found.zone, range);
  }

  async ofVenue(venueId: number, range: InsightRange): Promise<InsightsType> {
    await this.roles.require(venueId, 'manage');
    checkRange(range);
    const found = await this.repository.venueBranches(venueId);
    if (found === null) throw new Error(`venue ${venueId} vanished`);
    return this.insights(found.branchIds, found.zone, range);
  }

  private async insights(branchIds: number[], zone: string, range: InsightRange): Promise<InsightsType> {
    const size: BucketSize = range.bucket === 'HOUR' ? 'hour' : 'day';
    const buckets = await this.repository.buckets(branchIds, size, zone, range.from, range.to);
    const totals = buckets.reduce<BucketCounts>(
      (sum, b) => ({
        start: sum.start,
        startText: sum.startText,
        created: sum.created + b.created,
        ready: sum.ready + b.ready,
        collected: sum.collected + b.collected,
        cancelled: sum.cancelled + b.cancelled,
        linked: sum.linked + b.linked,
        rings: sum.rings + b.rings,
        smsSent: sum.smsSent + b.smsSent,
        feedbackCount: sum.feedbackCount + b.feedbackCount,
        feedbackSum: sum.feedbackSum + b.feedbackSum,
        prepMinutes: addCounts(sum.prepMinutes, b.prepMinutes),
        pickupMinutes: addCounts(sum.pickupMinutes, b.pickupMinutes),
      }),
      {
        start: buckets[0]?.start ?? range.from,
        startText: buckets[0]?.startText ?? range.from.toISOString(),
        created: 0,
        ready: 0,
        collected: 0,
        cancelled: 0,
        linked: 0,
        rings: 0,
        smsSent: 0,
        feedbackCount: 0,
        feedbackSum: 0,
        prepMinutes: [],
        pickupMinutes: [],
      },
    );

    // The seconds of only the minutes a percentile falls in: each bucket's own, and for the
    // totals, that minute in every bucket that has tickets in it.
    const wanted = new Map<number, SlotRef>();
    const want = (ref: SlotRef) => wanted.set(slotKey(ref.bucket.start, ref.measure, ref.slot), ref);
    for (const { measure, p } of PERCENTILES) {
      for (const bucket of buckets) {
        for (const slot of slotsNeeded(p, minutesOf(bucket, measure))) want({ bucket, measure, slot });
      }
      for (const slot of slotsNeeded(p, minutesOf(totals, measure))) {
        for (const bucket of buckets) {
          if ((minutesOf(bucket, measure)[slot] ?? 0) > 0) want({ bucket, measure, slot });
        }
      }
    }
    const values = await this.repository.slotValues(branchIds, size, [...wanted.values()]);
    const valuesOf = (start: Date, measure: Measure, slot: number): SlotValues =>
      values.get(slotKey(start, measure, slot)) ?? [];

    const shape = (bucket: BucketCounts, slotValues: (measure: Measure, slot: number) => SlotValues) => {
      const shaped: InsightBucketType = {
        start: bucket.start,
        created: bucket.created,
        ready: bucket.ready,
        collected: bucket.collected,
        cancelled: bucket.cancelled,
        linked: bucket.linked,
        rings: bucket.rings,
        smsSent: bucket.smsSent,
        feedbackCount: bucket.feedbackCount,
        feedbackAverage: bucket.feedbackCount === 0 ? null : bucket.feedbackSum / bucket.feedbackCount,
        prepP50Seconds: null,
        prepP90Seconds: null,
        pickupP50Seconds: null,
      };
      for (const { measure, p, field } of PERCENTILES) {
        (shaped[field] as number | null) = percentile(p, minutesOf(bucket, measure), (slot) =>
          slotValues(measure, slot),
        );
      }
      return shaped;
    };

    const merged = new Map<number, SlotValues>();
    const totalsValues = (measure: Measure, slot: number): SlotValues => {
      const key = measure === 'prep' ? slot : 256 + slot;
      let found = merged.get(key);
      if (found !== undefined) return found;
      if (slot !== OVERFLOW_SLOT) {
        // One minute's seconds: counted by second, already in order.
        const bySecond = new Array<number>(60).fill(0);
        for (const bucket of buckets) {
          for (const [seconds, count] of valuesOf(bucket.start, measure, slot))
            bySecond[seconds - slot * 60]! += count;
        }
        const values: [number, number][] = [];
        for (let second = 0; second < 60; second += 1) {
          if (bySecond[second]! > 0) values.push([slot * 60 + second, bySecond[second]!]);
        }
        found = values;
      } else {
        const sum = new Map<number, number>();
        for (const bucket of buckets) {
          for (const [seconds, count] of valuesOf(bucket.start, measure, slot)) {
            sum.set(seconds, (sum.get(seconds) ?? 0) + count);
          }
        }
        found = [...sum].sort((a, b) => a[0] - b[0]);
      }
      merged.set(key, found);
      return found;
    };
    return {
      totals: shape(totals, totalsValues),
      buckets: buckets.map((bucket) =>
        shape(bucket, (measure, slot) => valuesOf(bucket.start, measure, slot)),
      ),
    };
  }
}
