import type { Redis } from './redis';

// One round trip: count this request in the current window and tell how long the window has left.
const COUNT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('TTL', KEYS[1])
if ttl < 0 then redis.call('EXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {count, ttl}`;

/**
 * Counts one more use of `name` in the current fixed window, in Redis so every replica shares
 * the count; answers the count so far and the seconds the window has left.
 */
export async function countInWindow(
  redis: Redis,
  name: string,
  windowSeconds: number,
): Promise<{ count: number; ttl: number }> {
  const window = Math.floor(Date.now() / 1000 / windowSeconds);
  const [count, ttl] = (await redis.eval(COUNT_SCRIPT, 1, `${name}:${window}`, windowSeconds)) as [
    number,
    number,
  ];
  return { count, ttl };
}
