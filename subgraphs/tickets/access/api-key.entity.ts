import { ArrayType, BigIntType, Entity, Property } from '@mikro-orm/core';
import { ApiKeyColumns, type ApiKeyTable } from '../../../common/api-key-store';

export const TICKET_SCOPES = ['tickets:read', 'tickets:write'] as const;
export type TicketScope = (typeof TICKET_SCOPES)[number];

/** A branch's API key; only its SHA-256 is stored, the key itself is shown once at creation. */
@Entity({ tableName: 'api_keys' })
export class ApiKey extends ApiKeyColumns {
  @Property({ type: new BigIntType('number') })
  branchId!: number;

  @Property({ type: ArrayType })
  scopes!: TicketScope[];
}

/** Where the tickets subgraph keeps its keys (and its board devices', kind `board`). */
export const BRANCH_KEYS: ApiKeyTable<ApiKey> = { entity: ApiKey, table: 'tickets.api_keys' };
