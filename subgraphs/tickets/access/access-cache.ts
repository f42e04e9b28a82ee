import { forgetKnownCredential } from '../../../common/rate-budget';
import { RedisSubscription, type Redis } from '../../../common/redis';
import { accessChannel, type AccessChange } from '../../../contracts/tickets/access-change';
import type { Principal } from './api-key.service';

/** What the venue's ticket plan allows, as billing says (kept here with the cache that holds it). */
export interface VenueEntitlements {
  planKey: string | null;
  apiAccess: boolean;
  sms: boolean;
  /** The ready alert on WhatsApp; an answer cached before it existed reads as false. */
  whatsapp: boolean;
}

const PRINCIPAL_TTL_MS = 30_000;
const ENTITLEMENTS_TTL_MS = 60_000;
const MAX_ENTRIES = 10_000;

/**
 * Tells every tickets subgraph process to forget what it cached about the key or venue. Given a
 * revoked key's hash, the doors' memory of whose key it was goes first, so its next request counts
 * against its client address.
 */
export async function announceAccessChange(
  redis: Redis,
  redisPrefix: string,
  change: AccessChange,
  revokedKeyHash?: Buffer,
): Promise<void> {
  if (revokedKeyHash !== undefined) {
    await forgetKnownCredential(redis, redisPrefix, ['tickets', 'board'], revokedKeyHash);
  }
  await redis.publish(accessChannel(redisPrefix), JSON.stringify(change));
}

interface Entry<T> {
  value: T;
  until: number;
}

/**
 * What this process knows about keys and venue plans, so that an authenticated request costs no
 * SQL and no Redis round trip before its own work. A revocation or plan change reaches every
 * process through Redis pub/sub within milliseconds. While the subscription is lost (Redis away)
 * an announcement could be missed, so the cache neither answers nor keeps anything: every request
 * reads the database, and a revocation holds at once. The TTLs bound what a process could still
 * know wrongly should an announcement be lost some other way.
 */
export class AccessCache {
  private readonly principals = new Map<string, Entry<Principal>>();
  private readonly entitlements = new Map<number, Entry<VenueEntitlements>>();
  /** Bumped by every change; an answer read from the database before a change is not kept. */
  private generation = 0;
  private subscription?: RedisSubscription;

  private constructor() {}

  /** Listens on the announcement channel with its own connection. */
  static async listen(redis: Redis, redisPrefix: string): Promise<AccessCache> {
    const cache = new AccessCache();
    cache.subscription = await RedisSubscription.open(
      redis,
      `${redis.options.connectionName ?? 'tickets'}:access-cache`,
      [accessChannel(redisPrefix)],
      {
        message: (_channel, message) => cache.apply(message),
        lost: () => cache.forgetAll(),
        restored: () => cache.forgetAll(),
      },
    );
    return cache;
  }

  async close(): Promise<void> {
    await this.subscription?.close();
  }

  /** Whether announcements reach this process now, so that what it keeps can be trusted. */
  private get trusted(): boolean {
    return this.subscription?.isLive === true;
  }

  get currentGeneration(): number {
    return this.generation;
  }

  principal(keyHash: string): Principal | undefined {
    return this.read(this.principals, keyHash);
  }

  rememberPrincipal(keyHash: string, principal: Principal, readAtGeneration: number): void {
    if (readAtGeneration !== this.generation || !this.trusted) return;
    this.write(this.principals, keyHash, principal, PRINCIPAL_TTL_MS);
  }

  entitlementsOf(venueId: number): VenueEntitlements | undefined {
    return this.read(this.entitlements, venueId);
  }

  rememberEntitlements(venueId: number, value: VenueEntitlements, readAtGeneration: number): void {
    if (readAtGeneration !== this.generation || !this.trusted) return;
    this.write(this.entitlements, venueId, value, ENTITLEMENTS_TTL_MS);
  }

  apply(message: string): void {
    this.generation++;
    let change: Partial<{ keyId: unknown; venueId: unknown }>;
    try {
      change = JSON.parse(message) as typeof change;
    } catch {
      this.forgetAll();
      return;
    }
    // A revoked key's announcement names its venue too, so the key is looked at first.
    if (typeof change.keyId === 'number') {
      for (const [hash, entry] of this.principals) {
        if (entry.value.keyId === change.keyId) this.principals.delete(hash);
      }
    } else if (typeof change.venueId === 'number') {
      this.entitlements.delete(change.venueId);
    } else {
      this.forgetAll();
    }
  }

  forgetAll(): void {
    this.generation++;
    this.principals.clear();
    this.entitlements.clear();
  }

  private read<K, T>(map: Map<K, Entry<T>>, key: K): T | undefined {
    const entry = map.get(key);
    if (entry === undefined) return undefined;
    if (entry.until > Date.now()) return entry.value;
    map.delete(key);
    return undefined;
  }

  private write<K, T>(map: Map<K, Entry<T>>, key: K, value: T, ttlMs: number): void {
    // A flood of distinct keys must not grow the process without bound.
    if (map.size >= MAX_ENTRIES) map.clear();
    map.set(key, { value, until: Date.now() + ttlMs });
  }
}
