import { ApiKeyStore } from '../../../common/api-key-store';
import type { EntityManager } from '../../../common/database';
import { ApiKey, BRANCH_KEYS, type TicketScope } from './api-key.entity';

export interface VenueApiKey {
  id: number;
  branchId: number;
  name: string;
  prefix: string;
  scopes: string[];
  createdByUserId: number | null;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  createdAt: Date;
}

const date = (value: Date | string): Date => new Date(value);

/** A new key's fields; only the hash of the key itself is stored. */
export interface NewApiKey {
  branchId: number;
  name: string;
  scopes: TicketScope[];
  prefix: string;
  keyHash: Buffer;
}

/** A live (unrevoked) key with the venue of its branch. */
export interface LiveApiKey {
  id: number;
  branchId: number;
  venueId: number;
  scopes: TicketScope[];
  /** A paired board device rather than an integration's key. */
  board: boolean;
}

/** Branches' API keys. */
export class ApiKeyRepository {
  private readonly store: ApiKeyStore<ApiKey>;

  constructor(private readonly em: EntityManager) {
    this.store = new ApiKeyStore(em, BRANCH_KEYS);
  }

  async create(fields: NewApiKey): Promise<ApiKey> {
    const apiKey = this.em.create(ApiKey, fields);
    await this.em.flush();
    return apiKey;
  }

  find(id: number): Promise<ApiKey | null> {
    return this.store.find(id);
  }

  /** Revokes a key this repository loaded; a second revocation keeps the first time. */
  async revoke(apiKey: ApiKey): Promise<void> {
    await this.store.revoke(apiKey);
  }

  /** The unrevoked key with this hash, or null. */
  async findLiveByHash(keyHash: Buffer): Promise<LiveApiKey | null> {
    const row = await this.store.findLive<{
      id: string;
      branch_id: string;
      venue_id: string;
      scopes: TicketScope[];
      kind: string;
    }>(keyHash, {
      columns: 'k.id, k.branch_id, b.venue_id, k.scopes, k.kind',
      join: 'join tickets.branches b on b.id = k.branch_id',
    });
    if (row === null) return null;
    return {
      id: Number(row.id),
      branchId: Number(row.branch_id),
      venueId: Number(row.venue_id),
      scopes: row.scopes,
      board: row.kind === 'board',
    };
  }

  /** Sets last_used_at, at most once a minute per key and process (common/api-key-store.ts). */
  touch(keyId: number): Promise<void> {
    return this.store.touch(keyId);
  }

  async apiKeysOf(venueId: number): Promise<VenueApiKey[]> {
    const rows = await this.em.execute<
      {
        id: string;
        branch_id: string;
        name: string;
        prefix: string;
        scopes: string[] | string;
        created_by_user_id: string | null;
        last_used_at: Date | string | null;
        revoked_at: Date | string | null;
        created_at: Date | string;
      }[]
    >(
      `select k.id, k.branch_id, k.name, k.prefix, k.scopes, k.created_by_user_id, k.last_used_at,
              k.revoked_at, k.created_at
         from tickets.api_keys k join tickets.branches b on b.id = k.branch_id
        where b.venue_id = ? and k.kind = 'integration' order by k.id`,
      [venueId],
    );
    return rows.map((row) => ({
      id: Number(row.id),
      branchId: Number(row.branch_id),
      name: row.name,
      prefix: row.prefix,
      // Postgres text[] arrives parsed or as its literal, depending on the driver's type parsers.
      scopes: Array.isArray(row.scopes)
        ? row.scopes
        : row.scopes
            .replace(/^\{|\}$/g, '')
            .split(',')
            .filter(Boolean),
      createdByUserId: row.created_by_user_id === null ? null : Number(row.created_by_user_id),
      lastUsedAt: row.last_used_at === null ? null : date(row.last_used_at),
      revokedAt: row.revoked_at === null ? null : date(row.revoked_at),
      createdAt: date(row.created_at),
    }));
  }

  /** The venue's integration keys not revoked: what its API keys' cap counts. */
  async activeKeyCount(venueId: number): Promise<number> {
    const [row] = await this.em.execute<{ count: string }[]>(
      `select count(*) as count from tickets.api_keys k join tickets.branches b on b.id = k.branch_id
        where b.venue_id = ? and k.kind = 'integration' and k.revoked_at is null`,
      [venueId],
    );
    return Number(row?.count ?? 0);
  }

  async setKeyCreator(keyId: number, userId: number): Promise<void> {
    await this.em.execute(`update tickets.api_keys set created_by_user_id = ? where id = ?`, [userId, keyId]);
  }

  /** The venue a key belongs to, through its branch; null for an unknown key. */
  async venueOfKey(keyId: number): Promise<number | null> {
    return (await this.ownerOfKey(keyId))?.venueId ?? null;
  }

  /** The venue a key belongs to and whether it is a paired board device's; null for an unknown key. */
  async ownerOfKey(keyId: number): Promise<{ venueId: number; board: boolean } | null> {
    const rows = await this.em.execute<{ venue_id: string; kind: string }[]>(
      `select b.venue_id, k.kind from tickets.api_keys k join tickets.branches b on b.id = k.branch_id
        where k.id = ?`,
      [keyId],
    );
    const row = rows[0];
    return row === undefined ? null : { venueId: Number(row.venue_id), board: row.kind === 'board' };
  }
}
