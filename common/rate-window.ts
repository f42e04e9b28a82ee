import type { Redis } from './redis';

interface PendingCount {
  key: string;
  windowSeconds: number;
  timeoutMs: number;
  resolve: (count: number) => void;
  reject: (error: unknown) => void;
}

/**
 * The counts asked for during one turn of the event loop, sent to Redis together. Each command
 * written on its own costs a socket write and wakes Redis once per request; on cores shared with
 * the rest of the platform that was most of what counting cost. A turn under load holds several
 * requests, so one write carries all their counts, and no request waits longer than that turn.
 */
class WindowCounts {
  private pending: PendingCount[] = [];

  constructor(private readonly redis: Redis) {}

  count(key: string, windowSeconds: number, timeoutMs: number): Promise<number> {
    return new Promise((resolve, reject) => {
      if (this.pending.length === 0) setImmediate(() => this.flush());
      this.pending.push({ key, windowSeconds, timeoutMs, resolve, reject });
    });
  }

  private flush(): void {
    const batch = this.pending;
    this.pending = [];
    // Requests of one credential arrive together (a POS, a page's clients behind one key): one
    // INCRBY per key carries all of a turn's counts for it, and each request takes its own place
    // among them, so every count is still exact and distinct.
    const byKey = new Map<string, PendingCount[]>();
    for (const pending of batch) {
      const same = byKey.get(pending.key);
      if (same === undefined) byKey.set(pending.key, [pending]);
      else same.push(pending);
    }
    const pipeline = this.redis.pipeline();
    for (const [key, same] of byKey) {
      if (same.length === 1) pipeline.incr(key);
      else pipeline.incrby(key, same.length);
    }
    // One timer for the whole batch, not one per request: its counts fail together when Redis
    // has not answered in time, as each would alone.
    let settled = false;
    const timeoutMs = Math.min(...batch.map((pending) => pending.timeoutMs));
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      for (const { reject } of batch) reject(error);
    };
    const timer = setTimeout(() => fail(new Error(`no count within ${timeoutMs} ms`)), timeoutMs);
    pipeline.exec().then((results) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      let index = 0;
      for (const [key, same] of byKey) {
        const [error, total] = results?.[index++] ?? [new Error('Redis answered no count'), null];
        if (error !== null) {
          for (const { reject } of same) reject(error);
          continue;
        }
        const first = (total as number) - same.length + 1;
        // Whoever opens a window lets Redis forget it once it is over. Were this lost (Redis
        // gone between the two), the window's key would stay as a few bytes nothing counts in.
        if (first === 1) this.redis.expire(key, same[0]!.windowSeconds).catch(() => undefined);
        same.forEach(({ resolve }, place) => resolve(first + place));
      }
    }, fail);
  }
}

const countsOf = new WeakMap<Redis, WindowCounts>();

/**
 * Counts one more use of `name` in the current fixed window, in Redis so every replica shares
 * the count; answers the count so far and the seconds the window has left. The window is named by
 * its number, so its end is known here without asking Redis.
 */
export async function countInWindow(
  redis: Redis,
  name: string,
  windowSeconds: number,
  timeoutMs: number,
): Promise<{ count: number; ttl: number }> {
  let counts = countsOf.get(redis);
  if (counts === undefined) {
    counts = new WindowCounts(redis);
    countsOf.set(redis, counts);
  }
  const nowSeconds = Date.now() / 1000;
  const window = Math.floor(nowSeconds / windowSeconds);
  const count = await counts.count(`${name}:${window}`, windowSeconds, timeoutMs);
  return { count, ttl: Math.max(1, Math.ceil((window + 1) * windowSeconds - nowSeconds)) };
}
