import type { RateDecision } from '../../common/rate-budget';
import type { RunAheadTicket } from '../context';

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

/**
 * Which queries may be sent to their subgraphs while their count is still on its way to Redis
 * (docs/API-DECISIONS.md, "Counted once"). The count still decides: a query it refuses gets the
 * same 429 and none of what was fetched. What running ahead risks is only subgraph work for an
 * answer that is then dropped, so it is allowed only where the credential's last count in this
 * process left room, for at most MAX_AHEAD_PER_CREDENTIAL at once: once a count refuses, nothing
 * of that credential runs ahead until a count shows room again. A credential not counted lately,
 * or counted while Redis was away, waits for its count.
 *
 * It is for one request at a time, where the count's round trip is the client's wait. A query
 * arriving while another count of its credential is on its way waits too: under load, requests
 * whose counts come back together send their identical fetches together, and the gateway shares
 * those (gateway/fetch/inflight-fetches.ts); one sent ahead of them would be one fetch more.
 */
export class RunAhead {
  private readonly rooms = new Map<string, Room>();
  /** Counts of each credential on their way to Redis. */
  private readonly unsettled = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  /** A count of the credential has started: call what it returns with its decisions once settled. */
  counting(credential: string): (decisions: readonly RateDecision[]) => void {
    this.unsettled.set(credential, (this.unsettled.get(credential) ?? 0) + 1);
    return (decisions) => {
      const left = (this.unsettled.get(credential) ?? 1) - 1;
      if (left > 0) this.unsettled.set(credential, left);
      else this.unsettled.delete(credential);
      this.learn(credential, decisions);
    };
  }

  /** A ticket to run ahead, or undefined when the query must wait for its count. */
  take(credential: string): RunAheadTicket | undefined {
    // Its own count may be on its way, no other.
    if ((this.unsettled.get(credential) ?? 0) > 1) return undefined;
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
  private learn(credential: string, decisions: readonly RateDecision[]): void {
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
