import type { Dictionary, EntityDictionary, RequiredEntityData } from '@mikro-orm/core';
import { ApiKeyStore } from '../../../common/api-key-store';
import type { EntityManager } from '../../../common/database';
import { ACCOUNT_KEYS, Account, AccountApiKey, Company } from './account.entity';

/** An unrevoked key with the account it belongs to. */
export interface ActiveAccountKey {
  keyId: number;
  name: string;
  prefix: string;
  lastUsedAt: Date | null;
  createdAt: Date;
  accountId: number;
  companyId: number | null;
}

/** Companies, accounts and their API keys: `cv.companies`, `cv.accounts`, `cv.account_api_keys`. */
export class AccountRepository {
  private readonly keys: ApiKeyStore<AccountApiKey>;

  constructor(private readonly em: EntityManager) {
    this.keys = new ApiKeyStore(em, ACCOUNT_KEYS);
  }

  async createCompany(values: RequiredEntityData<Company>): Promise<Company> {
    const company = this.em.create(Company, values);
    await this.em.flush();
    return company;
  }

  findCompany(id: number): Promise<Company | null> {
    return this.em.findOne(Company, { id });
  }

  /**
   * Whether an account the operator made already has this email, compared case-insensitively. A
   * person's account carries the person's email and does not take it from the operator.
   */
  async emailTaken(email: string): Promise<boolean> {
    const taken = await this.em.execute<{ id: string }[]>(
      'select id from cv.accounts where lower(email) = lower(?) and user_id is null',
      [email],
    );
    return taken.length > 0;
  }

  async createAccount(values: RequiredEntityData<Account>): Promise<Account> {
    const account = this.em.create(Account, values);
    await this.em.flush();
    return account;
  }

  findAccount(id: number): Promise<Account | null> {
    return this.em.findOne(Account, { id });
  }

  /**
   * The person's account, written unless the person has one already: null then. One statement,
   * so two simultaneous requests of one person make one account.
   */
  async createAccountOfUser(values: {
    name: string;
    email: string;
    userId: number;
  }): Promise<Account | null> {
    const [row] = await this.em.execute<{ id: string }[]>(
      `insert into cv.accounts (name, email, user_id) values (?, ?, ?)
       on conflict (user_id) do nothing returning id`,
      [values.name, values.email, values.userId],
    );
    return row === undefined ? null : this.findAccount(Number(row.id));
  }

  findAccountOfUser(userId: number): Promise<Account | null> {
    return this.em.findOne(Account, { userId });
  }

  /** Takes back an account made moments ago, before it holds keys or CVs (billing refused it). */
  async removeNewAccount(id: number): Promise<void> {
    await this.em.execute('delete from cv.accounts where id = ?', [id]);
  }

  findKey(id: number): Promise<AccountApiKey | null> {
    return this.keys.find(id);
  }

  /** The account's newest `limit` keys, revoked ones too. */
  keysOf(accountId: number, limit: number): Promise<AccountApiKey[]> {
    return this.em.find(AccountApiKey, { accountId }, { orderBy: { id: 'desc' }, limit });
  }

  /**
   * Inserts a key unless the account already has `cap` keys not revoked (then null), under a lock
   * of the account's row: parallel issues of one account count one another on every replica.
   */
  createKeyWithinCap(values: RequiredEntityData<AccountApiKey>, cap: number): Promise<AccountApiKey | null> {
    return this.em.transactional(async (em) => {
      await em.execute('select id from cv.accounts where id = ? for update', [values.accountId]);
      const [row] = await em.execute<{ live: number }[]>(
        'select count(*)::int as live from cv.account_api_keys where account_id = ? and revoked_at is null',
        [values.accountId],
      );
      if ((row?.live ?? 0) >= cap) return null;
      const apiKey = em.create(AccountApiKey, values);
      await em.flush();
      return apiKey;
    });
  }

  /** Revokes a key this repository returned; false when it was revoked already (it keeps that time). */
  revokeKey(apiKey: AccountApiKey): Promise<boolean> {
    return this.keys.revoke(apiKey);
  }

  /**
   * The unrevoked key with this hash, with its account; null for none. The account row comes in
   * the same statement and joins this unit of work, so the request's own read of its account
   * (`me`, every CV check) is answered without a second query.
   */
  async findActiveKeyByHash(keyHash: Buffer): Promise<ActiveAccountKey | null> {
    const row = await this.keys.findLive<
      Dictionary & {
        key_id: string;
        key_name: string;
        key_prefix: string;
        key_last_used_at: Date | null;
        key_created_at: Date;
      }
    >(keyHash, {
      // Every column of the account (no account column starts with `key_`), so the entity is whole.
      columns: `a.*, k.id as key_id, k.name as key_name, k.prefix as key_prefix,
              k.last_used_at as key_last_used_at, k.created_at as key_created_at`,
      join: 'join cv.accounts a on a.id = k.account_id',
    });
    if (row === null) return null;
    const { key_id, key_name, key_prefix, key_last_used_at, key_created_at, ...columns } = row;
    // The row as Postgres gives it (bigints as text, column names): `map` converts it as a find would.
    const account = this.em.map(Account, columns as EntityDictionary<Account>);
    return {
      keyId: Number(key_id),
      name: key_name,
      prefix: key_prefix,
      lastUsedAt: key_last_used_at === null ? null : new Date(key_last_used_at),
      createdAt: new Date(key_created_at),
      accountId: account.id,
      companyId: account.companyId,
    };
  }

  /** Records the key's use (at most once a minute, see common/api-key-store.ts). */
  touchKey(keyId: number): Promise<void> {
    return this.keys.touch(keyId);
  }
}
