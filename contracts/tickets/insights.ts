/**
 * What the tickets subgraph and the gateway's cost estimate both know of venue insights
 * (`Branch.insights`, `Venue.insights`): how long a bucket is at most, and how many one request
 * may ask for. The gateway weighs an insights field's `buckets` by the count its range asks for.
 */
export const INSIGHT_BUCKET_SIZES = ['HOUR', 'DAY'] as const;
export type InsightBucketSizeName = (typeof INSIGHT_BUCKET_SIZES)[number];

/** A bucket's usual length. */
export const INSIGHT_BUCKET_MS: Record<InsightBucketSizeName, number> = {
  HOUR: 3_600_000,
  DAY: 86_400_000,
};

/** The most buckets one insights field may answer: 41 days by the hour, 2.7 years by the day. */
export const MAX_INSIGHT_BUCKETS = 1_000;

/** The fields whose `buckets` list holds as many buckets as their `from`, `to` and `bucket` say. */
export const INSIGHT_FIELDS = ['Branch.insights', 'Venue.insights'] as const;

/**
 * The buckets a range asks for: those its length spans, and one more for a range that does not
 * start on a bucket's start. A clock change can add one (a day of 23 hours); the limit is a
 * bound on the work, not an exact count.
 */
export function insightBucketsAsked(from: Date, to: Date, size: InsightBucketSizeName): number {
  const span = to.getTime() - from.getTime();
  if (!(span > 0)) return 0;
  return Math.ceil(span / INSIGHT_BUCKET_MS[size]) + 1;
}
