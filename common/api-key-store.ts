import {
  BigIntType,
  BlobType,
  PrimaryKey,
  Property,
  type EntityClass,
  type FilterQuery,
  type Opt,
} from '@mikro-orm/core';
import type { EntityManager } from './database';

const TOUCH_INTERVAL_MS = 60_000;

/**
 * What every API key is, whoever owns it (a branch's `tickets.api_keys`, a CV account's
 * `cv.account_api_keys`): a name, the leading characters shown in clear, the SHA-256 of the key
 * (common/api-keys.ts; the key itself is shown once and never stored), its last use and its
 * revocation. A subgraph's entity extends it with its owner's columns.
 */
export abstract class ApiKeyColumns {
  @PrimaryKey({ type: new BigIntType('number'), autoincrement: true })
  id!: number;

  @Property({ type: 'text' })
  name!: string;

  /** Leading characters of the key, so an operator can tell keys apart without the secret. */
  @Property({ type: 'text' })
  prefix!: string;

  @Property({ type: BlobType, hidden: true })
  keyHash!: Buffer;

  @Property({ type: 'timestamptz', nullable: true })
  lastUsedAt: Date | null = null;

  @Property({ type: 'timestamptz', nullable: true })
  revokedAt: Date | null = null;

  @Property({ type: 'timestamptz', defaultRaw: 'now()' })
  createdAt: Date & Opt = new Date();
}

/** Where a subgraph keeps its keys: the entity and its schema-qualified table. */
export interface ApiKeyTable<K extends ApiKeyColumns> {
  entity: EntityClass<K>;
  /** e.g. `cv.account_api_keys`; the one place this module's SQL names. */
  table: string;
}

/** What a look-up joins to the key: the columns it reads (the key is `k`) and its joins. */
export interface LiveKeyQuery {
  columns: string;
  join: string;
}

/** When this process last wrote last_used_at of a key; the SQL of `touch` re-checks across replicas. */
const lastTouched = new Map<string, number>();

/**
 * One table of API keys, as its subgraph's repository reaches it: the key by id, the live key of a
 * hash, revocation and last use. Issuing stays with the owner's repository, which knows its cap.
 */
export class ApiKeyStore<K extends ApiKeyColumns> {
  constructor(
    private readonly em: EntityManager,
    private readonly where: ApiKeyTable<K>,
  ) {}

  find(id: number): Promise<K | null> {
    return this.em.findOne(this.where.entity, { id } as FilterQuery<K>);
  }

  /**
   * The row of the unrevoked key with this hash, with what `query` joins to it in the same
   * statement; null for an unknown or revoked key.
   */
  async findLive<Row extends object>(keyHash: Buffer, query: LiveKeyQuery): Promise<Row | null> {
    const [row] = await this.em.execute<Row[]>(
      `select ${query.columns}
         from ${this.where.table} k ${query.join}
        where k.key_hash = ? and k.revoked_at is null`,
      [keyHash],
    );
    return row ?? null;
  }

  /**
   * Revokes the key from its next request on. Revoking twice keeps the first time; true when this
   * call revoked it.
   */
  async revoke(apiKey: K): Promise<boolean> {
    if (apiKey.revokedAt !== null && apiKey.revokedAt !== undefined) return false;
    apiKey.revokedAt = new Date();
    await this.em.persist(apiKey).flush();
    return true;
  }

  /** Records a key's use without a write per request: at most once a minute per key and process. */
  async touch(keyId: number): Promise<void> {
    const slot = `${this.where.table}:${keyId}`;
    const now = Date.now();
    if (now - (lastTouched.get(slot) ?? 0) < TOUCH_INTERVAL_MS) return;
    lastTouched.set(slot, now);
    if (lastTouched.size > 10_000) lastTouched.clear();
    await this.em.execute(
      `update ${this.where.table} set last_used_at = now()
        where id = ? and (last_used_at is null or last_used_at < now() - interval '1 minute')`,
      [keyId],
    );
  }
}
