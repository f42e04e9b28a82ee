import { touchApiKey } from '../../common/api-keys';
import type { EntityManager } from '../../common/database';
import { ApiKey, type TicketScope } from './api-key.entity';

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
  constructor(private readonly em: EntityManager) {}

  async create(fields: NewApiKey): Promise<ApiKey> {
    const apiKey = this.em.create(ApiKey, fields);
    await this.em.flush();
    return apiKey;
  }

  find(id: number): Promise<ApiKey | null> {
    return this.em.findOne(ApiKey, { id });
  }

  /** Writes what changed on a key this repository loaded. */
  async save(apiKey: ApiKey): Promise<void> {
    await this.em.persist(apiKey).flush();
  }

  /** The unrevoked key with this hash, or null. */
  async findLiveByHash(keyHash: Buffer): Promise<LiveApiKey | null> {
    const rows = await this.em.execute<
      { id: string; branch_id: string; venue_id: string; scopes: TicketScope[]; kind: string }[]
    >(
      `select k.id, k.branch_id, b.venue_id, k.scopes, k.kind
         from tickets.api_keys k join tickets.branches b on b.id = k.branch_id
        where k.key_hash = ? and k.revoked_at is null`,
      [keyHash],
    );
    const row = rows[0];
    if (row === undefined) return null;
    return {
      id: Number(row.id),
      branchId: Number(row.branch_id),
      venueId: Number(row.venue_id),
      scopes: row.scopes,
      board: row.kind === 'board',
    };
  }

  /** Sets last_used_at, at most once a minute per key and process (common/api-keys.ts). */
  touch(keyId: number): Promise<void> {
    return touchApiKey(this.em, 'tickets.api_keys', keyId);
  }
}
