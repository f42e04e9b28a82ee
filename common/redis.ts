import { Redis } from 'ioredis';
import { UnreachableError } from './database';

export type { Redis };

export const START_REDIS_HINT =
  'Start it with `bash scripts/setup.sh` (or `redis-server --daemonize yes`), or point REDIS_URL at a running server.';

/**
 * Opens a Redis connection and waits until it answers. Commands fail fast while the server is
 * away (no offline queue), so a request never hangs on Redis and readiness reports it at once.
 */
export async function connectRedis(url: string, connectionName: string): Promise<Redis> {
  const redis = new Redis(url, {
    lazyConnect: true,
    connectionName,
    connectTimeout: 3_000,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  });
  // Reconnection errors are reported by readiness checks; without a listener ioredis prints them.
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    redis.disconnect();
    throw new UnreachableError('Redis', url, error, START_REDIS_HINT);
  }
  return redis;
}
