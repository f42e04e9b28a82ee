import { ValidationError } from '../../../common/errors';
import { say } from '../../../common/messages';
import { checkRangeOrder } from '../../../common/input.rules';
import {
  insightBucketsAsked,
  MAX_INSIGHT_BUCKETS,
  type InsightBucketSizeName,
} from '../../../contracts/tickets/insights';
import type { VenueRoles } from '../venues';
import {
  emptyBucket,
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
  checkRangeOrder(from, to);
  const asked = insightBucketsAsked(from, to, bucket);
  if (asked > MAX_INSIGHT_BUCKETS) {
    throw new ValidationError({
      to: [say('insights.too_many_buckets', { asked, max: MAX_INSIGHT_BUCKETS })],
    });
  }
}

/** The buckets summed, named after the first (the range's start when there is none). */
function totalsOf(buckets: readonly BucketCounts[], from: Date): BucketCounts {
  const named = { start: buckets[0]?.start ?? from, startText: buckets[0]?.startText ?? '' };
  const totals = emptyBucket(named, named);
  for (const b of buckets) {
    totals.created += b.created;
    totals.ready += b.ready;
    totals.collected += b.collected;
    totals.cancelled += b.cancelled;
    totals.linked += b.linked;
    totals.rings += b.rings;
    totals.smsSent += b.smsSent;
    totals.feedbackCount += b.feedbackCount;
    totals.feedbackSum += b.feedbackSum;
    addCounts(totals.prepMinutes, b.prepMinutes);
    addCounts(totals.pickupMinutes, b.pickupMinutes);
  }
  return totals;
}

/** A stored row the totals' seconds are read from, and the buckets of the range it covers. */
interface TotalsSource {
  bucket: Pick<BucketCounts, 'start' | 'startText'>;
  size: BucketSize;
  of: BucketCounts[];
}

/**
 * Where the totals' seconds are read: for an hourly range, the rollup of each local day it holds
 * whole (a day's row is its hours' sum), and the hours of the days at its two ends.
 */
function totalsSources(buckets: readonly BucketCounts[], size: BucketSize): TotalsSource[] {
  const sources: TotalsSource[] = [];
  if (size !== 'hour' || buckets.length === 0) {
    for (const bucket of buckets) sources.push({ bucket, size, of: [bucket] });
    return sources;
  }
  const first = buckets[0]!;
  const last = buckets.at(-1)!;
  const byDay = new Map<string, BucketCounts[]>();
  for (const bucket of buckets) {
    const hours = byDay.get(bucket.day.startText);
    if (hours === undefined) byDay.set(bucket.day.startText, [bucket]);
    else hours.push(bucket);
  }
  for (const hours of byDay.values()) {
    const day = hours[0]!.day;
    const whole =
      day.startText !== last.day.startText &&
      (day.startText !== first.day.startText || first.start.getTime() === day.start.getTime());
    if (whole) sources.push({ bucket: day, size: 'day', of: hours });
    else for (const hour of hours) sources.push({ bucket: hour, size: 'hour', of: [hour] });
  }
  return sources;
}

/**
 * The seconds of only the minutes a percentile falls in: a bucket's own unless the triggers keep
 * its percentiles (one branch's row), and the totals' minute wherever it has tickets.
 */
function wantedSlots(
  buckets: readonly BucketCounts[],
  size: BucketSize,
  totals: BucketCounts,
  sources: readonly TotalsSource[],
): SlotRef[] {
  const wanted = new Map<number, SlotRef>();
  const want = (ref: SlotRef) => wanted.set(slotKey(ref.bucket.start, ref.size, ref.measure, ref.slot), ref);
  for (const { measure, p } of PERCENTILES) {
    for (const bucket of buckets) {
      if (bucket.kept !== undefined) continue;
      for (const slot of slotsNeeded(p, minutesOf(bucket, measure))) want({ bucket, size, measure, slot });
    }
    for (const slot of slotsNeeded(p, minutesOf(totals, measure))) {
      for (const source of sources) {
        if (source.of.some((b) => (minutesOf(b, measure)[slot] ?? 0) > 0)) {
          want({ bucket: source.bucket, size: source.size, measure, slot });
        }
      }
    }
  }
  return [...wanted.values()];
}

/** The seconds stored for one minute (or the overflow) of one row. */
type ValuesOf = (start: Date, of: BucketSize, measure: Measure, slot: number) => SlotValues;

/**
 * The totals' seconds of a minute, summed over their sources once and kept: one minute's counted
 * by second, already in order; the overflow's summed by value and sorted.
 */
function totalsValues(
  sources: readonly TotalsSource[],
  valuesOf: ValuesOf,
): (measure: Measure, slot: number) => SlotValues {
  const merged = new Map<number, SlotValues>();
  const sumOf = (measure: Measure, slot: number): SlotValues => {
    if (slot !== OVERFLOW_SLOT) {
      const bySecond = new Array<number>(60).fill(0);
      for (const source of sources) {
        for (const [seconds, count] of valuesOf(source.bucket.start, source.size, measure, slot)) {
          bySecond[seconds - slot * 60]! += count;
        }
      }
      const counted: [number, number][] = [];
      for (let second = 0; second < 60; second += 1) {
        if (bySecond[second]! > 0) counted.push([slot * 60 + second, bySecond[second]!]);
      }
      return counted;
    }
    const sum = new Map<number, number>();
    for (const source of sources) {
      for (const [seconds, count] of valuesOf(source.bucket.start, source.size, measure, slot)) {
        sum.set(seconds, (sum.get(seconds) ?? 0) + count);
      }
    }
    return [...sum].sort((a, b) => a[0] - b[0]);
  };
  return (measure, slot) => {
    const key = measure === 'prep' ? slot : 256 + slot;
    let found = merged.get(key);
    if (found === undefined) {
      found = sumOf(measure, slot);
      merged.set(key, found);
    }
    return found;
  };
}

/** A bucket as the graph answers it, its percentiles from `percentileOf`. */
function shape(
  bucket: BucketCounts,
  percentileOf: (measure: Measure, p: number) => number | null,
): InsightBucketType {
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
  for (const { measure, p, field } of PERCENTILES)
    (shaped[field] as number | null) = percentileOf(measure, p);
  return shaped;
}

/** A bucket's percentile: kept by the triggers (one branch's row), or from its own seconds. */
function bucketPercentile(
  bucket: BucketCounts,
  measure: Measure,
  p: number,
  secondsOf: (slot: number) => SlotValues,
): number | null {
  const kept = bucket.kept;
  if (kept !== undefined) {
    if (measure === 'pickup') return kept.pickupP50;
    return p === 0.5 ? kept.prepP50 : kept.prepP90;
  }
  return percentile(p, minutesOf(bucket, measure), secondsOf);
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
    const totals = totalsOf(buckets, range.from);
    const sources = totalsSources(buckets, size);
    const values = await this.repository.slotValues(branchIds, wantedSlots(buckets, size, totals, sources));
    const valuesOf: ValuesOf = (start, of, measure, slot) =>
      values.get(slotKey(start, of, measure, slot)) ?? [];
    const totalsSeconds = totalsValues(sources, valuesOf);
    return {
      totals: shape(totals, (measure, p) =>
        percentile(p, minutesOf(totals, measure), (slot) => totalsSeconds(measure, slot)),
      ),
      buckets: buckets.map((bucket) =>
        shape(bucket, (measure, p) =>
          bucketPercentile(bucket, measure, p, (slot) => valuesOf(bucket.start, size, measure, slot)),
        ),
      ),
    };
  }
}
