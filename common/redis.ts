import { Redis, type RedisOptions } from 'ioredis';
import { redactUrl, type RedisTarget } from './config';
import type { Logger } from './logger';
import { UnreachableError } from './postgres';

export { Redis };

export const START_REDIS_HINT =
  'Start it with `bash scripts/setup.sh` (or `redis-server --daemonize yes`), or point REDIS_URL (or REDIS_SENTINELS and REDIS_SENTINEL_MASTER) at a running server.';

/** Longest a process waits at start for Redis (through Sentinel: for a master the Sentinels name). */
const CONNECT_WAIT_MS = 10_000;

/**
 * The same pace for the master, the Sentinels and bee-queue's own connections: back within two
 * seconds of either returning, however long it was away.
 */
export const retryDelay = (attempt: number) => Math.min(attempt * 200, 2_000);

/** A target for messages and logs: the URL without its password, or the Sentinels and the group. */
export function describeRedisTarget(target: RedisTarget): string {
  if (target.kind === 'url') return redactUrl(target.url);
  const sentinels = target.sentinels.map(({ host, port }) => `${host}:${port}`).join(',');
  return `master "${target.masterName}" of the Sentinels ${sentinels}`;
}

/**
 * What ioredis needs to follow the master of a Sentinel group. It asks the Sentinels for the
 * master at every (re)connect and checks the server's role, so once the master dies it keeps
 * retrying until the Sentinels have promoted a replica, then lands on it.
 */
function sentinelOptions(target: Extract<RedisTarget, { kind: 'sentinel' }>): RedisOptions {
  return {
    sentinels: target.sentinels,
    name: target.masterName,
    role: 'master',
    ...(target.sentinelPassword === undefined ? {} : { sentinelPassword: target.sentinelPassword }),
    sentinelRetryStrategy: retryDelay,
    // Not ioredis' failoverDetector: in 5.11 its +switch-master, arriving while a reconnect is
    // asking the Sentinels, ends the client for good (status "end", never retried). A master the
    // Sentinels demote has its clients killed by them (CLIENT KILL TYPE normal); a write that still
    // reaches one is refused with READONLY, and reconnecting asks the Sentinels anew.
    reconnectOnError: (error) => error.message.startsWith('READONLY'),
  };
}

/**
 * A Redis client of a target, with the caller's options (a target alone says nothing of them);
 * `Client` is ioredis' class or one derived from it.
 */
export function createRedisClient(target: RedisTarget, options: RedisOptions, Client = Redis): Redis {
  return target.kind === 'url'
    ? new Client(target.url, options)
    : new Client({ ...sentinelOptions(target), ...options });
}

/**
 * Logs, once per failover, that the Sentinels' master moved: the address of the server each
 * (re)connection lands on, compared with the last one.
 */
function reportMasterChanges(redis: Redis, logger: Pick<Logger, 'warn'>): void {
  let master: string | undefined;
  redis.on('ready', () => {
    const now = `${redis.stream.remoteAddress}:${redis.stream.remotePort}`;
    if (master !== undefined && master !== now) {
      logger.warn({ from: master, to: now }, `Redis master changed from ${master} to ${now}`);
    }
    master = now;
  });
}

/**
 * Opens a Redis connection and waits until it answers. Commands fail fast while the server is
 * away (no offline queue), so a request never hangs on Redis and readiness reports it at once.
 * A `logger` hears of Sentinel failovers.
 */
export async function connectRedis(
  where: RedisTarget | string,
  connectionName: string,
  logger?: Pick<Logger, 'warn'>,
): Promise<Redis> {
  const target: RedisTarget = typeof where === 'string' ? { kind: 'url', url: where } : where;
  const redis = createRedisClient(target, {
    lazyConnect: true,
    connectionName,
    connectTimeout: 3_000,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    retryStrategy: retryDelay,
  });
  // Reconnection errors are reported by readiness checks; without a listener ioredis prints them.
  redis.on('error', () => undefined);
  if (target.kind === 'sentinel' && logger !== undefined) reportMasterChanges(redis, logger);
  let timer: NodeJS.Timeout | undefined;
  try {
    // Through Sentinel, connect() keeps asking while no Sentinel answers; a start must not wait forever.
    await Promise.race([
      redis.connect().then(() => redis.ping()),
      new Promise<never>((_resolve, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no answer within ${CONNECT_WAIT_MS} ms`)),
          CONNECT_WAIT_MS,
        );
      }),
    ]);
  } catch (error) {
    redis.disconnect();
    throw new UnreachableError('Redis', describeRedisTarget(target), error, START_REDIS_HINT);
  } finally {
    clearTimeout(timer);
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

  private constructor(
    private readonly subscriber: Redis,
    /** The channels subscribed to now, and after every reconnection. */
    private readonly channels: Set<string>,
  ) {}

  static async open(
    redis: Redis,
    connectionName: string,
    channels: string[],
    handlers: SubscriptionHandlers,
  ): Promise<RedisSubscription> {
    const subscriber = redis.duplicate({ connectionName });
    const subscription = new RedisSubscription(subscriber, new Set(channels));
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
      subscriber.subscribe(...subscription.channels).then(
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

  /**
   * Hears `channel` too, from now on and after every reconnection; resolves once Redis has
   * acknowledged it, from when every message published on it arrives.
   */
  async follow(channel: string): Promise<void> {
    this.channels.add(channel);
    await this.subscriber.subscribe(channel);
  }

  /** Stops hearing `channel`; a message already on its way may still arrive. */
  unfollow(channel: string): void {
    this.channels.delete(channel);
    // Lost with the connection, it is not resubscribed: the set no longer names it.
    this.subscriber.unsubscribe(channel).catch(() => undefined);
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
