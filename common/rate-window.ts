import { createHash } from 'node:crypto';
import type { Redis } from './redis';

// One round trip: count this request in the current window and tell how long the window has left.
const COUNT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('TTL', KEYS[1])
if ttl < 0 then redis.call('EXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {count, ttl}`;

/** Redis keeps scripts by their SHA-1; sending it instead of the script spares both sides work. */
const COUNT_SCRIPT_SHA = createHash('sha1').update(COUNT_SCRIPT).digest('hex');

/**
 * Counts one more use of `name` in the current fixed window, in Redis so every replica shares
 * the count; answers the count so far and the seconds the window has left.
 */
export async function countInWindow(
  redis: Redis,
  name: string,
  windowSeconds: number,
): Promise<{ count: number; ttl: number }> {
  const key = `${name}:${Math.floor(Date.now() / 1000 / windowSeconds)}`;
  let answer: unknown;
  try {
    answer = await redis.evalsha(COUNT_SCRIPT_SHA, 1, key, windowSeconds);
  } catch (error) {
    // A Redis that restarted (or never ran it) has no script yet: EVAL loads it for the next time.
    if (!String((error as Error).message).startsWith('NOSCRIPT')) throw error;
    answer = await redis.eval(COUNT_SCRIPT, 1, key, windowSeconds);
  }
  const [count, ttl] = answer as [number, number];
  return { count, ttl };
}
