import { Redis } from 'ioredis';
import { UnreachableError } from './postgres';

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

/** What a subscriber hears: each message, and when its subscription is lost and whole again. */
export interface SubscriptionHandlers {
  message(channel: string, message: string): void;
  /** The connection dropped: messages published from now until `restored` never arrive. */
  lost(): void;
  /** Subscribed again after a loss; what was published meanwhile is gone. */
  restored(): void;
}

/**
 * A Redis pub/sub subscription on a connection of its own (a subscribed connection can do nothing
 * else) that says when it is lost and when it is whole again. Pub/sub keeps nothing for an absent
 * subscriber, so whoever relies on it must know about the gap; ioredis alone reconnects and
 * resubscribes silently.
 */
export class RedisSubscription {
  private live = false;
  private closing = false;

  private constructor(private readonly subscriber: Redis) {}

  static async open(
    redis: Redis,
    connectionName: string,
    channels: string[],
    handlers: SubscriptionHandlers,
  ): Promise<RedisSubscription> {
    const subscriber = redis.duplicate({ connectionName });
    const subscription = new RedisSubscription(subscriber);
    // Reconnection errors are reported by readiness checks; without a listener ioredis prints them.
    subscriber.on('error', () => undefined);
    subscriber.on('message', (channel: string, message: string) => handlers.message(channel, message));
    subscriber.on('close', () => {
      if (!subscription.live || subscription.closing) return;
      subscription.live = false;
      handlers.lost();
    });
    try {
      await subscriber.connect();
      await subscriber.subscribe(...channels);
    } catch (error) {
      subscriber.disconnect();
      throw error;
    }
    subscription.live = true;
    // Listened for only now: the first connection is not a return.
    subscriber.on('ready', () => {
      if (subscription.live || subscription.closing) return;
      // Whole again only once Redis has acknowledged the subscription, not when the socket is back.
      subscriber.subscribe(...channels).then(
        () => {
          if (subscription.live || subscription.closing || subscriber.status !== 'ready') return;
          subscription.live = true;
          handlers.restored();
        },
        // Lost again before the acknowledgement; the next 'ready' tries anew.
        () => undefined,
      );
    });
    return subscription;
  }

  /** Whether messages published now reach this subscriber. */
  get isLive(): boolean {
    return this.live;
  }

  /** Resolves once the connection is closed, so nothing of it outlives its owner's stop. */
  async close(): Promise<void> {
    this.closing = true;
    // Only a socket that is open or opening has anything to close (between reconnect attempts
    // there is none, and no 'end' would come); ioredis destroys one that lingers after 2 s.
    const open = ['connecting', 'connect', 'ready'].includes(this.subscriber.status);
    const ended = new Promise<void>((resolve) => {
      if (open) this.subscriber.once('end', () => resolve());
      else resolve();
    });
    this.subscriber.disconnect();
    await ended;
  }
}
