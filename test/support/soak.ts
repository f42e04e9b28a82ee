/**
 * `npm run soak` (SOAK=1) runs what `npm test` shortens at full length: every trial of a loop of
 * independent trials, and faults one at a time rather than side by side. `npm test` runs enough of
 * each to exercise every path and stay within minutes; a race that shows once in hundreds of trials
 * is what the soak run is for.
 */
export const SOAKING = process.env.SOAK === '1';

/** How many trials a loop runs: `test` under `npm test`, `soak` under `npm run soak`. */
export function trials({ test, soak }: { test: number; soak: number }): number {
  return SOAKING ? soak : test;
}
