import { randomUUID } from 'node:crypto';
import { loadConfig } from '../../../common/config';
import { connectRedis, type Redis } from '../../../common/redis';
import { startOwnRedis, type OwnServer } from '../../../test/support/own-servers';
import { waitUntil } from '../../../test/support/wait';
import { AccessCache, announceAccessChange } from './access-cache';
import type { Principal } from './api-key.service';
import type { VenueEntitlements } from './venue-plan.client';

const principal = (keyId: number, venueId = 7): Principal => ({
  keyId,
  branchId: 3,
  venueId,
  scopes: ['tickets:read'],
});
const growth: VenueEntitlements = { planKey: 'growth', apiAccess: true, sms: false, whatsapp: false };

/** Resolves once the cache has applied `count` more announcements than now. */
async function applied(cache: AccessCache, from: number, count = 1): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (cache.currentGeneration < from + count) {
    if (Date.now() > deadline) throw new Error('announcement not applied within 5 s');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('AccessCache over real Redis pub/sub', () => {
  let redis: Redis;
  let name: string;
  let prefix: string;
  let cache: AccessCache;

  beforeEach(async () => {
    name = `access-cache-spec-${randomUUID()}`;
    redis = await connectRedis(loadConfig().redis, name);
    prefix = `spec:${randomUUID()}:`;
    cache = await AccessCache.listen(redis, prefix);
  });

  afterEach(async () => {
    await cache.close();
    redis.disconnect();
  });

  it('forgets exactly the revoked key when its revocation is announced', async () => {
    cache.rememberPrincipal('hash-a', principal(1), cache.currentGeneration);
    cache.rememberPrincipal('hash-b', principal(2), cache.currentGeneration);
    const before = cache.currentGeneration;
    await announceAccessChange(redis, prefix, { keyId: 1, venueId: 7 });
    await applied(cache, before);
    expect(cache.principal('hash-a')).toBeUndefined();
    expect(cache.principal('hash-b')).toEqual(principal(2));
  });

  it('forgets a venue’s plan when its change is announced, and only that venue’s', async () => {
    cache.rememberEntitlements(7, growth, cache.currentGeneration);
    cache.rememberEntitlements(8, growth, cache.currentGeneration);
    const before = cache.currentGeneration;
    await announceAccessChange(redis, prefix, { venueId: 7 });
    await applied(cache, before);
    expect(cache.entitlementsOf(7)).toBeUndefined();
    expect(cache.entitlementsOf(8)).toEqual(growth);
  });

  it('does not keep an answer read before a change was announced', async () => {
    const readAt = cache.currentGeneration;
    await announceAccessChange(redis, prefix, { keyId: 1, venueId: 7 });
    await applied(cache, readAt);
    cache.rememberPrincipal('hash-a', principal(1), readAt);
    cache.rememberEntitlements(7, growth, readAt);
    expect(cache.principal('hash-a')).toBeUndefined();
    expect(cache.entitlementsOf(7)).toBeUndefined();
  });

  it('hears nothing announced under another prefix', async () => {
    cache.rememberPrincipal('hash-a', principal(1), cache.currentGeneration);
    const before = cache.currentGeneration;
    await announceAccessChange(redis, `${prefix}other:`, { keyId: 1, venueId: 7 });
    await announceAccessChange(redis, prefix, { venueId: 99 });
    await applied(cache, before);
    expect(cache.principal('hash-a')).toEqual(principal(1));
  });

  it('forgets everything after its subscription reconnects, since announcements may have been missed', async () => {
    cache.rememberPrincipal('hash-a', principal(1), cache.currentGeneration);
    cache.rememberEntitlements(7, growth, cache.currentGeneration);
    const before = cache.currentGeneration;
    const clients = (await redis.call('CLIENT', 'LIST', 'TYPE', 'pubsub')) as string;
    const subscriber = clients.split('\n').find((line) => line.includes(` name=${name}:access-cache `));
    const id = /\bid=(\d+)/.exec(subscriber ?? '')?.[1];
    expect(id).toBeDefined();
    await redis.call('CLIENT', 'KILL', 'ID', id!);
    await applied(cache, before);
    expect(cache.principal('hash-a')).toBeUndefined();
    expect(cache.entitlementsOf(7)).toBeUndefined();
    await waitUntil(
      () => {
        cache.rememberPrincipal('hash-b', principal(2), cache.currentGeneration);
        return cache.principal('hash-b') !== undefined;
      },
      5_000,
      'the cache to keep answers again once resubscribed',
    );
  });

  it('forgets everything on an announcement it cannot read', () => {
    cache.rememberPrincipal('hash-a', principal(1), cache.currentGeneration);
    cache.apply('not json');
    expect(cache.principal('hash-a')).toBeUndefined();
  });

  it('lets an entry expire after its time to live', () => {
    const now = Date.now();
    const clock = jest.spyOn(Date, 'now').mockReturnValue(now);
    try {
      cache.rememberPrincipal('hash-a', principal(1), cache.currentGeneration);
      cache.rememberEntitlements(7, growth, cache.currentGeneration);
      clock.mockReturnValue(now + 29_000);
      expect(cache.principal('hash-a')).toEqual(principal(1));
      clock.mockReturnValue(now + 31_000);
      expect(cache.principal('hash-a')).toBeUndefined();
      expect(cache.entitlementsOf(7)).toEqual(growth);
      clock.mockReturnValue(now + 61_000);
      expect(cache.entitlementsOf(7)).toBeUndefined();
    } finally {
      clock.mockRestore();
    }
  });
});

describe('AccessCache while Redis is away, on a Redis of the test’s own', () => {
  let server: OwnServer;
  let redis: Redis;
  let cache: AccessCache;
  const prefix = 'access-cache-away:';

  beforeAll(async () => {
    server = await startOwnRedis();
    redis = await connectRedis(server.url, 'access-cache-away');
    cache = await AccessCache.listen(redis, prefix);
  });

  afterAll(async () => {
    await cache?.close();
    redis?.disconnect();
    await server?.destroy();
  });

  it('answers and keeps nothing while announcements cannot reach it, and trusts again once resubscribed', async () => {
    cache.rememberPrincipal('hash-a', principal(1), cache.currentGeneration);
    expect(cache.principal('hash-a')).toEqual(principal(1));

    await server.stop();
    await waitUntil(() => cache.principal('hash-a') === undefined, 5_000, 'the cache to forget');
    // A revocation committed now could not be announced; every request must read the database.
    cache.rememberPrincipal('hash-b', principal(2), cache.currentGeneration);
    cache.rememberEntitlements(7, growth, cache.currentGeneration);
    expect(cache.principal('hash-b')).toBeUndefined();
    expect(cache.entitlementsOf(7)).toBeUndefined();

    await server.start();
    await waitUntil(
      () => {
        cache.rememberPrincipal('hash-c', principal(3), cache.currentGeneration);
        return cache.principal('hash-c') !== undefined;
      },
      10_000,
      'the cache to keep answers again',
    );
    // The subscriber's connection can be back before the one that publishes: wait for that too.
    await waitUntil(() => redis.status === 'ready', 10_000, 'the publishing connection to be back');
    const before = cache.currentGeneration;
    await announceAccessChange(redis, prefix, { keyId: 3, venueId: 7 });
    await applied(cache, before);
    expect(cache.principal('hash-c')).toBeUndefined();
  });
});
