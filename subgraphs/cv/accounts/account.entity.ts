import { BigIntType, Entity, PrimaryKey, Property, type Opt } from '@mikro-orm/core';
import { ApiKeyColumns, type ApiKeyTable } from '../../../common/api-key-store';

/** A business that may own templates; its accounts see them beside the platform's. */
@Entity({ tableName: 'companies' })
export class Company {
  @PrimaryKey({ type: new BigIntType('number'), autoincrement: true })
  id!: number;

  @Property({ type: 'text' })
  name!: string;

  @Property({ type: 'timestamptz', defaultRaw: 'now()' })
  createdAt: Date & Opt = new Date();
}

/** Who builds CVs; its plan lives in billing. */
@Entity({ tableName: 'accounts' })
export class Account {
  @PrimaryKey({ type: new BigIntType('number'), autoincrement: true })
  id!: number;

  @Property({ type: 'text' })
  name!: string;

  @Property({ type: 'text' })
  email!: string;

  @Property({ type: new BigIntType('number'), nullable: true })
  companyId: number | null = null;

  /** The identity user who owns it; null for an account the operator made. */
  @Property({ type: new BigIntType('number'), nullable: true })
  userId: number | null = null;

  @Property({ type: 'timestamptz', defaultRaw: 'now()' })
  createdAt: Date & Opt = new Date();

  @Property({ type: 'timestamptz', defaultRaw: 'now()', onUpdate: () => new Date() })
  updatedAt: Date & Opt = new Date();
}

/** An account's API key for `X-API-Key`; only its SHA-256 is stored, the key is shown once. */
@Entity({ tableName: 'account_api_keys' })
export class AccountApiKey extends ApiKeyColumns {
  @Property({ type: new BigIntType('number') })
  accountId!: number;
}

/** Where the cv subgraph keeps its accounts' keys. */
export const ACCOUNT_KEYS: ApiKeyTable<AccountApiKey> = {
  entity: AccountApiKey,
  table: 'cv.account_api_keys',
};
