import { ArrayType, BigIntType, BlobType, Entity, PrimaryKey, Property, type Opt } from '@mikro-orm/core';

export const TICKET_SCOPES = ['tickets:read', 'tickets:write'] as const;
export type TicketScope = (typeof TICKET_SCOPES)[number];

/** A branch's API key; only its SHA-256 is stored, the key itself is shown once at creation. */
@Entity({ tableName: 'api_keys' })
export class ApiKey {
  @PrimaryKey({ type: new BigIntType('number'), autoincrement: true })
  id!: number;

  @Property({ type: new BigIntType('number') })
  branchId!: number;

  @Property({ type: 'text' })
  name!: string;

  @Property({ type: ArrayType })
  scopes!: TicketScope[];

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
