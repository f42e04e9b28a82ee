import type { RateDecision } from '../common/rate-budget';

/** How many queries of one credential may run ahead of their counts at once in a process. */
export const MAX_AHEAD_PER_CREDENTIAL = 1;
/** Credentials remembered at once; past it the oldest is forgotten, and its next query waits. */
const MAX_REMEMBERED = 10_000;

/** What the last settled count of a credential left: how many more, and until when. */
interface Room {
  left: number;
  until: number;
  ahead: number;
}

/** Lets a query that ran ahead go: called once its own count has settled, whatever it said. */
export type RunAheadTicket = () => void;

/**
 * Which queries may be sent to their subgraphs while their count is still on its way to Redis
 * (docs/API-DECISIONS.md, "Counted once"). The count still decides: a query it refuses gets the
 * same 429 and none of what was fetched. What running ahead risks is only subgraph work for an
 * answer that is then dropped, so it is allowed only where the credential's last count in this
 * process left room for every query running ahead, and for at most MAX_AHEAD_PER_CREDENTIAL at
 * once: once a count refuses, nothing of that credential runs ahead until its window has reset.
 * A credential not counted lately, or counted while Redis was away, waits for its count.
 */
export class RunAhead {
  private readonly rooms = new Map<string, Room>();

  constructor(private readonly now: () => number = Date.now) {}

  /** A ticket to run ahead, or undefined when the query must wait for its count. */
  take(credential: string): RunAheadTicket | undefined {
    const room = this.rooms.get(credential);
    if (room === undefined || room.until <= this.now()) return undefined;
    if (room.ahead >= MAX_AHEAD_PER_CREDENTIAL || room.left <= room.ahead) return undefined;
    room.ahead += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      room.ahead -= 1;
    };
  }

  /** Learns what a settled count of the credential left. */
  learn(credential: string, decisions: readonly RateDecision[]): void {
    let left = Number.POSITIVE_INFINITY;
    let resetSeconds = Number.POSITIVE_INFINITY;
    for (const decision of decisions) {
      if (decision.remaining === undefined || decision.resetSeconds === undefined) {
        // Redis did not answer this count: what is left is unknown, so the next query waits.
        this.rooms.delete(credential);
        return;
      }
      left = Math.min(left, decision.allowed ? decision.remaining : 0);
      resetSeconds = Math.min(resetSeconds, decision.resetSeconds);
    }
    if (!Number.isFinite(left) || !Number.isFinite(resetSeconds)) {
      this.rooms.delete(credential);
      return;
    }
    const until = this.now() + resetSeconds * 1000;
    const room = this.rooms.get(credential);
    if (room !== undefined) {
      room.left = left;
      room.until = until;
      // Most recently counted last, so the oldest is the first forgotten.
      this.rooms.delete(credential);
      this.rooms.set(credential, room);
      return;
    }
    if (this.rooms.size >= MAX_REMEMBERED) {
      const oldest = this.rooms.keys().next();
      if (oldest.done !== true) this.rooms.delete(oldest.value);
    }
    this.rooms.set(credential, { left, until, ahead: 0 });
  }
}
