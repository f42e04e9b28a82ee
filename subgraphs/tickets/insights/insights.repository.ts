import type { EntityManager } from '../../../common/database';
import { OVERFLOW_MINUTES, OVERFLOW_SLOT, type SlotValues } from './percentiles';

export type BucketSize = 'hour' | 'day';
export type Measure = 'prep' | 'pickup';

/** The counts of one bucket, summed over the branches asked for. */
export interface BucketCounts {
  start: Date;
  /** The start as Postgres wrote it, to name the bucket back to it exactly. */
  startText: string;
  created: number;
  ready: number;
  collected: number;
  cancelled: number;
  linked: number;
  rings: number;
  smsSent: number;
  feedbackCount: number;
  feedbackSum: number;
  /** Tickets by whole minute of their prep (created → ready), the last slot 120 minutes or more. */
  prepMinutes: number[];
  pickupMinutes: number[];
  /**
   * The bucket's percentiles as the triggers keep them, when one branch's row is the whole bucket;
   * undefined when several branches' distributions make it up (their percentiles do not add).
   */
  kept?: { prepP50: number | null; prepP90: number | null; pickupP50: number | null };
  /** Rows of branches found for the bucket. */
  rows: number;
  /** The local day an hour bucket is in (a day bucket's own start), as Postgres wrote it. */
  day: Pick<BucketCounts, 'start' | 'startText'>;
}

/** One slot of one bucket's distribution whose seconds a percentile needs. */
export interface SlotRef {
  bucket: Pick<BucketCounts, 'start' | 'startText'>;
  size: BucketSize;
  measure: Measure;
  slot: number;
}

interface BucketRow {
  start_at: string;
  start_ms: number;
  day_at: string;
  day_ms: number;
  branch_id: string | null;
  prep_p50: number | null;
  prep_p90: number | null;
  pickup_p50: number | null;
  created: number | null;
  ready: number | null;
  collected: number | null;
  cancelled: number | null;
  linked: number | null;
  rings: number | null;
  sms_sent: number | null;
  feedback_count: number | null;
  feedback_sum: number | null;
  prep_minutes: (number | null)[] | null;
  pickup_minutes: (number | null)[] | null;
}

/** How far apart to sample a range for its bucket starts: less than the shortest bucket. */
const SAMPLE_STEP: Record<BucketSize, string> = { hour: '15 minutes', day: '1 hour' };

/**
 * A Postgres array literal: the query builder would spread a JavaScript array into a list of
 * parameters. Every value here is a number, an ISO instant or a measure's name.
 */
function pgArray(values: readonly (number | string)[]): string {
  return `{${values.map((v) => (typeof v === 'number' ? String(v) : `"${v}"`)).join(',')}}`;
}

/** One number per (bucket, size, measure, slot): a slot is at most OVERFLOW_SLOT (< 256). */
export function slotKey(start: Date, size: BucketSize, measure: Measure, slot: number): number {
  return start.getTime() * 1024 + (size === 'hour' ? 0 : 512) + (measure === 'prep' ? 0 : 256) + slot;
}

/** A bucket in which nothing happened, yet. */
export function emptyBucket(
  named: Pick<BucketCounts, 'start' | 'startText'>,
  day: BucketCounts['day'],
): BucketCounts {
  return {
    ...named,
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
    rows: 0,
    day,
  };
}

function addInto(into: (number | null)[], counts: (number | null)[] | null): number[] {
  const sum = into.map((c) => c ?? 0);
  for (let i = 0; i < (counts?.length ?? 0); i += 1) sum[i] = (sum[i] ?? 0) + (counts![i] ?? 0);
  return sum;
}

/** The rollups the tickets' triggers keep, read for a range. */
export class InsightsRepository {
  constructor(private readonly em: EntityManager) {}

  /**
   * Every bucket of `size` that overlaps [from, to) in `zone`, oldest first, with its counts summed
   * over `branchIds`; a bucket nothing happened in reads as zeros. The starts come from the same
   * function the triggers name buckets with, so the two can never disagree about an hour.
   */
  async buckets(
    branchIds: readonly number[],
    size: BucketSize,
    zone: string,
    from: Date,
    to: Date,
  ): Promise<BucketCounts[]> {
    const rows = await this.em.execute<BucketRow[]>(
      `with starts as (
         select distinct tickets.insight_start(?, g, ?) as start_at
           from generate_series(?::timestamptz, ?::timestamptz - interval '1 microsecond', ?::interval) g
         union
         select tickets.insight_start(?, ?::timestamptz - interval '1 microsecond', ?)
       )
       select s.start_at::text as start_at, extract(epoch from s.start_at)::float8 * 1000 as start_ms,
              d.day_at::text as day_at, extract(epoch from d.day_at)::float8 * 1000 as day_ms,
              b.branch_id, b.created, b.ready, b.collected, b.cancelled, b.linked, b.rings, b.sms_sent,
              b.feedback_count, b.feedback_sum, b.prep_p50, b.prep_p90, b.pickup_p50,
              -- As JSON: parsed natively, where the driver parses an integer[] character by character.
              array_to_json(b.prep_minutes) as prep_minutes, array_to_json(b.pickup_minutes) as pickup_minutes
         from starts s
         cross join lateral (select tickets.insight_start('day', s.start_at, ?) as day_at) d
         left join tickets.insight_buckets b
           on b.branch_id = any(?::bigint[]) and b.size = ? and b.start_at = s.start_at
        order by s.start_at`,
      [size, zone, from, to, SAMPLE_STEP[size], size, to, zone, zone, pgArray(branchIds), size],
    );
    const buckets: BucketCounts[] = [];
    for (const row of rows) {
      let bucket = buckets.at(-1);
      if (bucket === undefined || bucket.startText !== row.start_at) {
        bucket = emptyBucket(
          { start: new Date(row.start_ms), startText: row.start_at },
          { start: new Date(row.day_ms), startText: row.day_at },
        );
        buckets.push(bucket);
      }
      if (row.branch_id !== null) {
        bucket.rows += 1;
        bucket.kept =
          bucket.rows === 1
            ? { prepP50: row.prep_p50, prepP90: row.prep_p90, pickupP50: row.pickup_p50 }
            : undefined;
      }
      bucket.created += row.created ?? 0;
      bucket.ready += row.ready ?? 0;
      bucket.collected += row.collected ?? 0;
      bucket.cancelled += row.cancelled ?? 0;
      bucket.linked += row.linked ?? 0;
      bucket.rings += row.rings ?? 0;
      bucket.smsSent += row.sms_sent ?? 0;
      bucket.feedbackCount += row.feedback_count ?? 0;
      bucket.feedbackSum += row.feedback_sum ?? 0;
      bucket.prepMinutes = addInto(bucket.prepMinutes, row.prep_minutes);
      bucket.pickupMinutes = addInto(bucket.pickupMinutes, row.pickup_minutes);
    }
    return buckets;
  }

  /**
   * The seconds of the slots asked for, summed over `branchIds`, by `slotKey`: each slot's
   * durations in seconds, sorted, with their counts.
   */
  async slotValues(
    branchIds: readonly number[],
    slots: readonly SlotRef[],
  ): Promise<Map<number, SlotValues>> {
    const found = new Map<number, [number, number][]>();
    if (slots.length === 0) return found;
    const minuteSlots = slots.filter((s) => s.slot !== OVERFLOW_SLOT);
    const overflow = slots.filter((s) => s.slot === OVERFLOW_SLOT);
    const rows = await this.em.execute<
      { start_ms: number; size: BucketSize; measure: Measure; minute: number; seconds: number[] }[]
    >(
      `select extract(epoch from d.start_at)::float8 * 1000 as start_ms, d.size, d.measure, d.minute,
              array_to_json(d.seconds) as seconds
         from unnest(?::timestamptz[], ?::text[], ?::text[], ?::integer[]) as c(start_at, size, measure, minute)
         join tickets.insight_durations d
           on d.branch_id = any(?::bigint[]) and d.size = c.size and d.start_at = c.start_at
          and d.measure = c.measure and d.minute = c.minute
       union all
       select extract(epoch from d.start_at)::float8 * 1000, d.size, d.measure, d.minute, array_to_json(d.seconds)
         from unnest(?::timestamptz[], ?::text[], ?::text[]) as c(start_at, size, measure)
         join tickets.insight_durations d
           on d.branch_id = any(?::bigint[]) and d.size = c.size and d.start_at = c.start_at
          and d.measure = c.measure and d.minute >= ?`,
      [
        pgArray(minuteSlots.map((s) => s.bucket.startText)),
        pgArray(minuteSlots.map((s) => s.size)),
        pgArray(minuteSlots.map((s) => s.measure)),
        pgArray(minuteSlots.map((s) => s.slot)),
        pgArray(branchIds),
        pgArray(overflow.map((s) => s.bucket.startText)),
        pgArray(overflow.map((s) => s.size)),
        pgArray(overflow.map((s) => s.measure)),
        pgArray(branchIds),
        OVERFLOW_MINUTES,
      ],
    );
    // A slot holds one row per branch, and in the last slot one per minute: sorted once filled.
    const unsorted = new Set<number>();
    for (const row of rows) {
      const key = slotKey(new Date(row.start_ms), row.size, row.measure, Math.min(row.minute, OVERFLOW_SLOT));
      let values = found.get(key);
      if (values === undefined) found.set(key, (values = []));
      else unsorted.add(key);
      const base = row.minute * 60;
      const { seconds } = row;
      for (let second = 0; second < seconds.length; second += 1) {
        const count = seconds[second]!;
        if (count !== 0) values.push([base + second, count]);
      }
    }
    for (const key of unsorted) found.get(key)!.sort((a, b) => a[0] - b[0]);
    return found;
  }

  /** The branch's venue's time zone and id, or null for no such branch. */
  async branchZone(branchId: number): Promise<{ venueId: number; zone: string } | null> {
    const [row] = await this.em.execute<{ venue_id: string; timezone: string }[]>(
      `select b.venue_id, v.timezone from tickets.branches b join tickets.venues v on v.id = b.venue_id
        where b.id = ?`,
      [branchId],
    );
    return row === undefined ? null : { venueId: Number(row.venue_id), zone: row.timezone };
  }

  /** The venue's branch ids and time zone. */
  async venueBranches(venueId: number): Promise<{ branchIds: number[]; zone: string } | null> {
    const rows = await this.em.execute<{ id: string | null; timezone: string }[]>(
      `select b.id, v.timezone from tickets.venues v left join tickets.branches b on b.venue_id = v.id
        where v.id = ?`,
      [venueId],
    );
    if (rows.length === 0) return null;
    return {
      zone: rows[0]!.timezone,
      branchIds: rows.filter((r) => r.id !== null).map((r) => Number(r.id)),
    };
  }
}
