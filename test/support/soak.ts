/**
 * `npm run soak` (SOAK=1): the loops of independent trials run their full count. `npm test` runs a
 * share of each, enough to exercise every path, so the whole command stays within minutes; a race
 * that shows once in hundreds of trials is what the soak run is for.
 */
export const SOAKING = process.env.SOAK === '1';

/** How many trials a loop runs: `test` under `npm test`, `soak` under `npm run soak`. */
export function trials({ test, soak }: { test: number; soak: number }): number {
  return SOAKING ? soak : test;
}
