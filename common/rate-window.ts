import type { Redis } from './redis';

interface PendingCount {
  key: string;
  windowSeconds: number;
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

  count(key: string, windowSeconds: number): Promise<number> {
    return new Promise((resolve, reject) => {
      if (this.pending.length === 0) setImmediate(() => this.flush());
      this.pending.push({ key, windowSeconds, resolve, reject });
    });
  }

  private flush(): void {
    const batch = this.pending;
    this.pending = [];
    const pipeline = this.redis.pipeline();
    for (const { key } of batch) pipeline.incr(key);
    pipeline.exec().then(
      (results) => {
        batch.forEach(({ key, windowSeconds, resolve, reject }, index) => {
          const [error, count] = results?.[index] ?? [new Error('Redis answered no count'), null];
          if (error !== null) {
            reject(error);
            return;
          }
          // Whoever opens a window lets Redis forget it once it is over. Were this lost (Redis
          // gone between the two), the window's key would stay as a few bytes nothing counts in.
          if (count === 1) this.redis.expire(key, windowSeconds).catch(() => undefined);
          resolve(count as number);
        });
      },
      (error: unknown) => batch.forEach(({ reject }) => reject(error)),
    );
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
): Promise<{ count: number; ttl: number }> {
  let counts = countsOf.get(redis);
  if (counts === undefined) {
    counts = new WindowCounts(redis);
    countsOf.set(redis, counts);
  }
  const nowSeconds = Date.now() / 1000;
  const window = Math.floor(nowSeconds / windowSeconds);
  const count = await counts.count(`${name}:${window}`, windowSeconds);
  return { count, ttl: Math.max(1, Math.ceil((window + 1) * windowSeconds - nowSeconds)) };
}
