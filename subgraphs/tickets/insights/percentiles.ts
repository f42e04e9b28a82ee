/**
 * Exact percentiles from the rollups' two levels of counts (migrations/tickets/
 * Migration20261127100000VenueInsights.ts): a bucket's tickets by whole minute of a duration, and
 * for each minute, by second. `percentile_cont` as Postgres defines it: the value at position
 * p × (n − 1) of the sorted values, interpolated between the two values around it. The values are
 * whole seconds rounded down, so a result is within 1 s of the same over the exact durations.
 */

/** Minutes at or past this share the rollup's last slot (`OVERFLOW_SLOT`). */
export const OVERFLOW_MINUTES = 120;
/** The slot index (0-based) of every duration of `OVERFLOW_MINUTES` or more. */
export const OVERFLOW_SLOT = OVERFLOW_MINUTES;

/** The durations (seconds) of one slot of a distribution, sorted, each with its count. */
export type SlotValues = readonly (readonly [seconds: number, count: number])[];

/** The ranks (0-based) `percentile_cont(p)` reads of n sorted values, and the weight of the upper. */
export function ranksOf(p: number, n: number): { lower: number; upper: number; weight: number } {
  const position = p * (n - 1);
  const lower = Math.floor(position);
  return { lower, upper: Math.ceil(position), weight: position - lower };
}

/** The slot (0-based) that holds the value of `rank`, and how many values come before it. */
export function slotOfRank(minutes: readonly number[], rank: number): { slot: number; before: number } {
  let before = 0;
  for (let slot = 0; slot < minutes.length; slot += 1) {
    const count = minutes[slot] ?? 0;
    if (rank < before + count) return { slot, before };
    before += count;
  }
  throw new Error(`rank ${rank} is past the ${before} values of the distribution`);
}

/** The value of the `rank`-th (0-based) value within a slot's sorted values. */
export function valueInSlot(values: SlotValues, rank: number): number {
  let before = 0;
  for (const [seconds, count] of values) {
    if (rank < before + count) return seconds;
    before += count;
  }
  throw new Error(`rank ${rank} is past the ${before} values of the slot`);
}

/** Adds one distribution's minute counts into another, slot by slot. */
export function addCounts(into: number[], counts: readonly (number | null)[]): number[] {
  for (let slot = 0; slot < counts.length; slot += 1) into[slot] = (into[slot] ?? 0) + (counts[slot] ?? 0);
  return into;
}

export function total(counts: readonly number[]): number {
  let sum = 0;
  for (const count of counts) sum += count;
  return sum;
}

/**
 * `percentile_cont(p)` of a distribution given by minute counts, reading a slot's values from
 * `valuesOf` (which the caller has fetched for exactly the slots `slotsNeeded` named); null when
 * the distribution is empty.
 */
export function percentile(
  p: number,
  minutes: readonly number[],
  valuesOf: (slot: number) => SlotValues,
): number | null {
  const n = total(minutes);
  if (n === 0) return null;
  const { lower, upper, weight } = ranksOf(p, n);
  const at = (rank: number) => {
    const { slot, before } = slotOfRank(minutes, rank);
    return valueInSlot(valuesOf(slot), rank - before);
  };
  const low = at(lower);
  return upper === lower ? low : low + weight * (at(upper) - low);
}

/** The slots whose values `percentile(p, minutes, …)` reads. */
export function slotsNeeded(p: number, minutes: readonly number[]): number[] {
  const n = total(minutes);
  if (n === 0) return [];
  const { lower, upper } = ranksOf(p, n);
  const slots = new Set([slotOfRank(minutes, lower).slot, slotOfRank(minutes, upper).slot]);
  return [...slots];
}
