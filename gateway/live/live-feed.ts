import type { Logger } from '../../common/logger';
import { RedisSubscription, type Redis, type SubscriptionHandlers } from '../../common/redis';
import { accessChannel } from '../../contracts/tickets/access-change';
import { liveEventsChannel, type LiveEvent } from '../../contracts/tickets/live-event';
import type { LiveAccess } from './live-access';
import type { LiveHub } from './live-hub';

/** WebSocket "Try Again Later": the live feed is away for now; clients retry, then refetch. */
export const FEED_CLOSE = {
  unavailable: { code: 1013, reason: 'Live updates are unavailable; reconnect shortly' },
} as const;

/** A socket as the feed closes it. */
interface ClosableSocket {
  close(code: number, reason: string): void;
}

/** Where the feed's messages go, and the sockets it closes while it is lost. */
export interface LiveFeedReceivers {
  hub: Pick<LiveHub, 'dispatch' | 'subscribers'>;
  access: Pick<LiveAccess, 'announce'>;
  /** Every open socket of the live server, read when the feed is lost. */
  sockets: Iterable<ClosableSocket>;
  /** Told of each live event heard, before the hub is: a ticket's data changed. */
  ticketsChanged?: () => void;
  logger: Logger;
}

/**
 * What the one subscription hears, by channel: access announcements go to the access registry,
 * live events to the hub. Both channels share the subscription because Redis delivers one
 * subscription's messages in the order they were published, so an event caused after a revocation
 * answered is read after the announcement that holds its sockets.
 *
 * While the subscription is lost, events published meanwhile never reach this process, and a
 * subscriber would wait for them in vain. So every socket is closed with 1013 (try again later),
 * which graphql-ws clients and the ticket page retry; new sockets get the same until the
 * subscription is whole again (`LiveFeed.refuses`), and a client that connects then refetches what
 * it missed.
 */
export function liveFeedHandlers(redisPrefix: string, receivers: LiveFeedReceivers): SubscriptionHandlers {
  const { hub, access, sockets, ticketsChanged, logger } = receivers;
  const accessChanges = accessChannel(redisPrefix);
  return {
    message: (channel, message) => {
      if (channel === accessChanges) {
        access.announce(message);
        return;
      }
      ticketsChanged?.();
      // Every create and move of every branch comes here; with no subscriber on this process there
      // is nobody to deliver it to, and parsing it was the cost (5% of the gateway's busy time in a
      // profile of creates, where a POS-facing gateway follows nothing).
      if (hub.subscribers === 0) return;
      let event: LiveEvent;
      try {
        event = JSON.parse(message) as LiveEvent;
      } catch (error) {
        logger.warn({ err: error }, 'unreadable live event');
        return;
      }
      hub.dispatch(event);
    },
    lost: () => {
      logger.warn(
        { subscribers: hub.subscribers },
        'live events subscription lost; closing subscriber sockets so they reconnect and refetch',
      );
      for (const socket of sockets) socket.close(FEED_CLOSE.unavailable.code, FEED_CLOSE.unavailable.reason);
    },
    restored: () => logger.info('live events subscription restored; accepting subscribers again'),
  };
}

/**
 * How long live events stay followed after the last subscriber leaves: a page reloading or a board
 * reconnecting is back within it, and joins without waiting for Redis.
 */
export const EVENTS_GRACE_MS = 30_000;

/**
 * The gateway process's one Redis subscription to the tickets relay's live events and to access
 * announcements: a subscriber on any replica sees an event caused through any other, since the
 * fan-out starts here and continues in the hub.
 *
 * Announcements are heard for the life of the process (the shared fetches and the sessions' cache
 * need them too); live events only while a subscriber may want them (`follow` before it joins the
 * hub, until `EVENTS_GRACE_MS` after the hub is empty). Every create and move of every branch is
 * published there, and reading each off the socket (ioredis's parser and reader) was about 7% of the
 * gateway's busy time in a profile of creates at one connection, where nobody followed anything.
 */
export class LiveFeed {
  private following?: Promise<void>;
  private letGo?: NodeJS.Timeout;

  private constructor(
    private readonly subscription: RedisSubscription,
    private readonly events: string,
    private readonly hub: Pick<LiveHub, 'subscribers'>,
    private readonly graceMs: number,
  ) {}

  static async open(
    redis: Redis,
    redisPrefix: string,
    receivers: LiveFeedReceivers,
    graceMs = EVENTS_GRACE_MS,
  ): Promise<LiveFeed> {
    const subscription = await RedisSubscription.open(
      redis,
      'gateway:live-events',
      [accessChannel(redisPrefix)],
      liveFeedHandlers(redisPrefix, receivers),
    );
    return new LiveFeed(subscription, liveEventsChannel(redisPrefix), receivers.hub, graceMs);
  }

  /**
   * Resolves once every live event published from now on reaches this process: what a subscription
   * waits for before it joins the hub, so it misses nothing published after it joined.
   */
  follow(): Promise<void> {
    clearTimeout(this.letGo);
    this.letGo = undefined;
    if (this.following === undefined) {
      const following = this.subscription.follow(this.events);
      this.following = following;
      // Refused (Redis away), the next subscription asks again.
      following.catch(() => {
        if (this.following === following) this.following = undefined;
      });
    }
    return this.following;
  }

  /** The hub has no subscriber left: live events are let go unless one joins within the grace. */
  idle(): void {
    if (this.following === undefined || this.letGo !== undefined) return;
    this.letGo = setTimeout(() => {
      this.letGo = undefined;
      // A follow since would have cleared this timer; a subscriber still here keeps them.
      if (this.hub.subscribers > 0) return;
      this.following = undefined;
      this.subscription.unfollow(this.events);
    }, this.graceMs);
    this.letGo.unref();
  }

  /** Whether live events reach this process now (for tests and health). */
  get followsEvents(): boolean {
    return this.following !== undefined;
  }

  /** Whether events published now reach this process. */
  get isLive(): boolean {
    return this.subscription.isLive;
  }

  /** Closes a socket that opens while the feed is lost with 1013, and says so. */
  refuses(socket: ClosableSocket): boolean {
    if (this.subscription.isLive) return false;
    socket.close(FEED_CLOSE.unavailable.code, FEED_CLOSE.unavailable.reason);
    return true;
  }

  close(): Promise<void> {
    clearTimeout(this.letGo);
    return this.subscription.close();
  }
}
