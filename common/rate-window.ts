import type { Redis } from './redis';

interface PendingCount {
  key: string;
  /** How much this count adds: one for a request, more for an operation of several root fields. */
  units: number;
  windowSeconds: number;
  timeoutMs: number;
  resolve: (count: number) => void;
  reject: (error: unknown) => void;
}

/** Counts written to Redis together, and the moment by which they fail open unanswered. */
interface Batch {
  pending: PendingCount[];
  deadline: number;
  timer?: NodeJS.Timeout;
  settled: boolean;
}

/**
 * The counts asked for while no batch is on its way to Redis, sent together. Each command written
 * on its own costs a socket write and wakes Redis once per request; on cores shared with the rest
 * of the platform that was most of what counting cost. An idle gateway sends a count on the next
 * turn, as before; under load, counts asked while one batch is out wait for its answer and go
 * together in the next (as a database commits a group), so writes to Redis follow its round trips
 * rather than the requests, and no count waits more than one round trip longer. Each count still
 * fails open within its own allowance: a waiting batch's clock runs from its first count, and a
 * batch out past its allowance no longer holds the next one back.
 */
class WindowCounts {
  private waiting?: Batch;
  private out?: Batch;

  constructor(private readonly redis: Redis) {}

  count(key: string, units: number, windowSeconds: number, timeoutMs: number): Promise<number> {
    return new Promise((resolve, reject) => {
      const pending = { key, units, windowSeconds, timeoutMs, resolve, reject };
      const deadline = Date.now() + timeoutMs;
      let batch = this.waiting;
      if (batch === undefined) {
        batch = this.waiting = { pending: [pending], deadline, settled: false };
        if (this.out === undefined) setImmediate(() => this.flush());
      } else {
        batch.pending.push(pending);
        if (deadline >= batch.deadline) return;
        clearTimeout(batch.timer);
        batch.deadline = deadline;
      }
      // One timer per batch, not one per request: its counts fail together, as each would alone.
      const failing = batch;
      failing.timer = setTimeout(() => {
        const giveUp = () => {
          this.settle(failing, new Error(`no count within ${timeoutMs} ms`));
          this.release(failing);
        };
        if (this.waiting === failing) {
          // Never sent: no answer can be on its way.
          this.waiting = undefined;
          giveUp();
          return;
        }
        // A process kept off the CPU past the allowance runs its due timers before it reads the
        // sockets, where Redis's answer may have been waiting all along: it is read in this turn's
        // poll phase, ahead of setImmediate, and only a count still unanswered then fails open.
        setImmediate(giveUp);
      }, timeoutMs);
    });
  }

  private settle(batch: Batch, error: unknown): void {
    if (batch.settled) return;
    batch.settled = true;
    clearTimeout(batch.timer);
    for (const { reject } of batch.pending) reject(error);
  }

  /** `batch` is answered or given up on: the batch waiting behind it goes out. */
  private release(batch: Batch): void {
    if (this.out !== batch) return;
    this.out = undefined;
    this.flush();
  }

  private flush(): void {
    const batch = this.waiting;
    if (batch === undefined || this.out !== undefined) return;
    this.waiting = undefined;
    this.out = batch;
    // Requests of one credential arrive together (a POS, a page's clients behind one key): one
    // INCRBY per key carries all of a batch's counts for it, and each request takes its own place
    // among them, so every count is still exact and distinct.
    const byKey = new Map<string, PendingCount[]>();
    for (const pending of batch.pending) {
      const same = byKey.get(pending.key);
      if (same === undefined) byKey.set(pending.key, [pending]);
      else same.push(pending);
    }
    this.send(byKey).then(
      (results) => {
        if (!batch.settled) {
          batch.settled = true;
          clearTimeout(batch.timer);
          let index = 0;
          for (const [key, same] of byKey) {
            const [error, total] = results?.[index++] ?? [new Error('Redis answered no count'), null];
            if (error !== null) {
              for (const { reject } of same) reject(error);
              continue;
            }
            let before = (total as number) - unitsOf(same);
            // Whoever opens a window lets Redis forget it once it is over. Were this lost (Redis
            // gone between the two), the window's key would stay as a few bytes nothing counts in.
            if (before === 0) this.redis.expire(key, same[0]!.windowSeconds).catch(() => undefined);
            for (const { units, resolve } of same) resolve((before += units));
          }
        }
        this.release(batch);
      },
      (error: unknown) => {
        this.settle(batch, error);
        this.release(batch);
      },
    );
  }

  /**
   * One `INCRBY` per key, answered in `byKey`'s order as a pipeline's results are. A batch of one
   * key (every batch of an idle gateway or a single POS) is sent as its one command: ioredis builds
   * a Pipeline object per `pipeline()`, copying the client's commands onto it, which was a tenth of
   * counting's CPU at one request a turn.
   */
  private send(byKey: Map<string, PendingCount[]>): Promise<[Error | null, unknown][] | null> {
    if (byKey.size === 1) {
      const [key, same] = byKey.entries().next().value as [string, PendingCount[]];
      const units = unitsOf(same);
      const sent = units === 1 ? this.redis.incr(key) : this.redis.incrby(key, units);
      // Its failure fails the batch, which is all this key's counts, as the key's error would.
      return sent.then((total): [Error | null, unknown][] => [[null, total]]);
    }
    const pipeline = this.redis.pipeline();
    for (const [key, same] of byKey) {
      const units = unitsOf(same);
      if (units === 1) pipeline.incr(key);
      else pipeline.incrby(key, units);
    }
    return pipeline.exec();
  }
}

function unitsOf(counts: readonly PendingCount[]): number {
  let units = 0;
  for (const count of counts) units += count.units;
  return units;
}

const countsOf = new WeakMap<Redis, WindowCounts>();

/**
 * Counts `units` more uses of `name` in the current fixed window, in Redis so every replica shares
 * the count; answers the count so far and the seconds the window has left. The window is named by
 * its number, so its end is known here without asking Redis.
 */
export async function countInWindow(
  redis: Redis,
  name: string,
  windowSeconds: number,
  timeoutMs: number,
  units = 1,
): Promise<{ count: number; ttl: number; window: number }> {
  let counts = countsOf.get(redis);
  if (counts === undefined) {
    counts = new WindowCounts(redis);
    countsOf.set(redis, counts);
  }
  const nowSeconds = Date.now() / 1000;
  const window = Math.floor(nowSeconds / windowSeconds);
  const count = await counts.count(`${name}:${window}`, units, windowSeconds, timeoutMs);
  return { count, ttl: Math.max(1, Math.ceil((window + 1) * windowSeconds - nowSeconds)), window };
}
