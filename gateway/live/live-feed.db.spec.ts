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
});
