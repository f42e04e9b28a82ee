import { createLogger } from '../../common/logger';
import { connectRedis, type Redis } from '../../common/redis';
import { accessChannel } from '../../contracts/tickets/access-change';
import { liveEventsChannel, type LiveEvent } from '../../contracts/tickets/live-event';
import { startOwnRedis, type OwnServer } from '../../test/support/own-servers';
import { waitUntil } from '../../test/support/wait';
import { LiveFeed, type LiveFeedReceivers } from './live-feed';

const PREFIX = 'spec:';

/** A socket of the live server as the feed closes it. */
class FakeSocket {
  closedWith?: number;

  close(code: number): void {
    this.closedWith ??= code;
  }
}

describe('LiveFeed on a Redis of the test’s own', () => {
  let server: OwnServer;
  let redis: Redis;
  let feed: LiveFeed | undefined;
  const got: string[] = [];
  const sockets = new Set<FakeSocket>();
  const receivers: LiveFeedReceivers = {
    hub: { dispatch: (event: LiveEvent) => got.push(`hub ${event.id}`), subscribers: 1 },
    access: { announce: (message: string) => got.push(`access ${message}`) },
    sockets,
    logger: createLogger({ service: 'test', level: 'silent' }),
  };
  const publishEvent = (id: string) => redis.publish(liveEventsChannel(PREFIX), JSON.stringify({ id }));

  beforeAll(async () => {
    server = await startOwnRedis();
    redis = await connectRedis(server.url, 'live-feed-spec');
  });

  afterEach(async () => {
    await feed?.close();
    feed = undefined;
    got.length = 0;
    sockets.clear();
  });

  afterAll(async () => {
    redis?.disconnect();
    await server?.destroy();
  });

  it('hands what is published on both channels to the hub and access in the order it was published, until closed', async () => {
    feed = await LiveFeed.open(redis, PREFIX, receivers);
    expect(feed.isLive).toBe(true);
    await feed.follow();
    await publishEvent('e1');
    await redis.publish(accessChannel(PREFIX), '{"keyId":1,"venueId":7}');
    await publishEvent('e2');
    await redis.publish('other:tickets:events', JSON.stringify({ id: 'elsewhere' }));
    await waitUntil(() => got.length >= 3, 5_000, 'the three messages');
    expect(got).toEqual(['hub e1', 'access {"keyId":1,"venueId":7}', 'hub e2']);

    await feed.close();
    // Closed once: a second close of a closed subscription would leave ioredis a 2-second timer.
    feed = undefined;
    await publishEvent('e3');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(got).toHaveLength(3);
  });

  it('closes every socket with 1013 when Redis goes away, turns new ones away until it is back, then takes them again', async () => {
    feed = await LiveFeed.open(redis, PREFIX, receivers);
    await feed.follow();
    const open = new FakeSocket();
    sockets.add(open);
    expect(feed.refuses(new FakeSocket())).toBe(false);

    await server.stop();
    await waitUntil(() => open.closedWith !== undefined, 5_000, 'the open socket to be closed');
    expect(open.closedWith).toBe(1013);
    expect(feed.isLive).toBe(false);
    const meanwhile = new FakeSocket();
    expect(feed.refuses(meanwhile)).toBe(true);
    expect(meanwhile.closedWith).toBe(1013);

    await server.start();
    await waitUntil(() => feed!.isLive, 10_000, 'the subscription to be whole again');
    const after = new FakeSocket();
    expect(feed.refuses(after)).toBe(false);
    expect(after.closedWith).toBeUndefined();
    await waitUntil(() => redis.status === 'ready', 10_000, 'the publishing connection');
    await publishEvent('e4');
    await waitUntil(() => got.includes('hub e4'), 5_000, 'an event published once Redis is back');
  });

  it('follows live events only from a subscription’s follow until the grace after the hub empties, hearing announcements throughout', async () => {
    const hub = { dispatch: (event: LiveEvent) => got.push(`hub ${event.id}`), subscribers: 0 };
    feed = await LiveFeed.open(redis, PREFIX, { ...receivers, hub }, 300);
    const subscribed = async () =>
      ((await redis.pubsub('NUMSUB', liveEventsChannel(PREFIX))) as [string, number])[1];

    // Nobody subscribed: the process is not on the events channel at all, but hears announcements.
    expect(await subscribed()).toBe(0);
    await publishEvent('unheard');
    await redis.publish(accessChannel(PREFIX), 'a1');
    await waitUntil(() => got.length >= 1, 5_000, 'the announcement');

    // A subscription's follow resolves only once Redis has it: what is published after is heard.
    await Promise.all([feed.follow(), feed.follow()]);
    expect(await subscribed()).toBe(1);
    hub.subscribers = 1;
    await publishEvent('e1');
    await waitUntil(() => got.includes('hub e1'), 5_000, 'the event after the follow');

    // The hub empties, and a subscriber is back within the grace: still followed.
    hub.subscribers = 0;
    feed.idle();
    await new Promise((resolve) => setTimeout(resolve, 100));
    await feed.follow();
    hub.subscribers = 1;
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(feed.followsEvents).toBe(true);
    expect(await subscribed()).toBe(1);

    // Empty past the grace: let go, and a later follow takes it up again.
    hub.subscribers = 0;
    feed.idle();
    await waitUntil(async () => (await subscribed()) === 0, 5_000, 'the events channel let go');
    expect(feed.followsEvents).toBe(false);
    await publishEvent('unheard again');
    await feed.follow();
    hub.subscribers = 1;
    await publishEvent('e2');
    await waitUntil(() => got.includes('hub e2'), 5_000, 'the event after following again');
    expect(got).toEqual(['access a1', 'hub e1', 'hub e2']);
  });
});
