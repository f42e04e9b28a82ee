/**
 * The customer's estimate (`PublicTicket.estimatedReadyAt`), from nothing but the branch's own
 * recent tickets; the method and its measured error are in docs/API-DECISIONS.md ("The customer's
 * estimate").
 */

/** How far back a branch's ready tickets count, and how many of the latest. */
export const ESTIMATE_WINDOW_MS = 2 * 3_600_000;
export const ESTIMATE_SAMPLE = 20;
/**
 * Ready tickets are looked for among those created this recently, so the read is a short range of
 * the branch's creation index; a prep longer than this is no guide to the next order's.
 */
export const ESTIMATE_CREATED_WITHIN_MS = 12 * 3_600_000;
/** Fewer ready tickets than this in the window and there is no estimate, never a made-up one. */
export const ESTIMATE_MIN_READY = 5;

/** A ticket that became ready, by its times in milliseconds. */
export interface ReadySample {
  createdAt: number;
  readyAt: number;
}

export interface EstimateInput {
  /** The instant the estimate is made for. */
  now: number;
  /** When the waiting ticket was created. */
  createdAt: number;
  /**
   * The branch's latest tickets to become ready within ESTIMATE_WINDOW_MS before now, newest first,
   * at most ESTIMATE_SAMPLE.
   */
  recent: readonly ReadySample[];
  /** The branch's tickets still waiting that were created before this one. */
  ahead: number;
}

/** The median by percentile_cont: the mean of the two middle values of an even count. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/**
 * When the ticket will likely be ready, or null without enough recent tickets.
 *
 * Two bounds, the later wins. A ticket takes at least the branch's usual prep: created plus the
 * median prep (created → ready) of the sample. And the tickets still waiting ahead of it leave
 * the kitchen at its recent pace first: one turn each from now, a turn being the time per ticket
 * the sample shows, M·g / (M + g) for median prep M and mean gap g between its ready times. That
 * turn is what Little's law gives: the kitchen holds about M / g tickets at once while keeping
 * pace, so behind the usual queue a ticket waits the usual prep, and behind a longer one it waits
 * in proportion to the queue. Once it is late and nothing is ahead, the estimate is now.
 */
export function estimateReadyAt(input: EstimateInput): number | null {
  const { recent } = input;
  if (recent.length < ESTIMATE_MIN_READY) return null;
  const prep = median(recent.map((ticket) => ticket.readyAt - ticket.createdAt));
  let newest = -Infinity;
  let oldest = Infinity;
  for (const ticket of recent) {
    newest = Math.max(newest, ticket.readyAt);
    oldest = Math.min(oldest, ticket.readyAt);
  }
  const gap = (newest - oldest) / (recent.length - 1);
  const turn = prep + gap > 0 ? (prep * gap) / (prep + gap) : 0;
  return Math.max(input.createdAt + prep, input.now + input.ahead * turn);
}
