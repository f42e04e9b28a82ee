import { z } from 'zod';
import { hashApiKey, newApiKey } from '../../common/api-keys';
import type { EntityManager } from '../../common/database';
import { NotFoundError, ValidationError } from '../../common/errors';
import { fieldErrorsOf } from '../../common/validation';
import { Account, AccountApiKey, Company } from './account.entity';

/** Every CV key starts with this, so a leaked one is recognisable in logs and scanners. */
const KEY_PREFIX = 'cv_';

export interface IssuedAccountKey {
  id: number;
  key: string;
  prefix: string;
  account_id: number;
  name: string;
}

/** Who a valid `X-API-Key` speaks for. */
export interface AccountPrincipal {
  accountId: number;
  companyId: number | null;
  keyId: number;
  keyName: string;
  keyPrefix: string;
}

const name = z.string().trim().min(1).max(255);
const ACCOUNT_INPUT = z.object({ name, email: z.email('must be a valid email address').max(255) });

function parse<T>(schema: z.ZodType<T>, input: unknown): T {
  const result = schema.safeParse(input);
  if (!result.success) throw new ValidationError(fieldErrorsOf(result.error));
  return result.data;
}

/** Companies, accounts and their API keys, as the admin CLI and the authentication need them. */
export class AccountService {
  constructor(private readonly em: EntityManager) {}

  async createCompany(companyName: string): Promise<Company> {
    const company = this.em.create(Company, parse(z.object({ name }), { name: companyName }));
    await this.em.flush();
    return company;
  }

  async getCompany(id: number): Promise<Company> {
    const company = await this.em.findOne(Company, { id });
    if (company === null) throw new NotFoundError(`Company ${id} not found.`);
    return company;
  }

  async createAccount(input: { name: string; email: string; companyId: number | null }): Promise<Account> {
    const checked = parse(ACCOUNT_INPUT, { name: input.name, email: input.email });
    if (input.companyId !== null) await this.getCompany(input.companyId);
    const taken = await this.em.execute<{ id: string }[]>(
      'select id from cv.accounts where lower(email) = lower(?)',
      [checked.email],
    );
    if (taken.length > 0) throw new ValidationError({ email: ['The email has already been taken.'] });
    const account = this.em.create(Account, { ...checked, companyId: input.companyId });
    await this.em.flush();
    return account;
  }

  async getAccount(id: number): Promise<Account> {
    const account = await this.em.findOne(Account, { id });
    if (account === null) throw new NotFoundError(`Account ${id} not found.`);
    return account;
  }

  /** A new key for the account; the key itself is in the answer once and never stored. */
  async issueKey(accountId: number, keyName: string, presetKey?: string): Promise<IssuedAccountKey> {
    await this.getAccount(accountId);
    const checked = parse(z.object({ name }), { name: keyName });
    const { key, prefix, hash } = newApiKey(KEY_PREFIX, presetKey);
    const apiKey = this.em.create(AccountApiKey, {
      accountId,
      name: checked.name,
      prefix,
      keyHash: hash,
    });
    await this.em.flush();
    return { id: apiKey.id, key, prefix: apiKey.prefix, account_id: accountId, name: apiKey.name };
  }

  async revokeKey(id: number): Promise<AccountApiKey> {
    const apiKey = await this.em.findOne(AccountApiKey, { id });
    if (apiKey === null) throw new NotFoundError(`Account key ${id} not found.`);
    apiKey.revokedAt ??= new Date();
    await this.em.flush();
    return apiKey;
  }

  /** The account behind a key, or null for an unknown or revoked one. */
  async authenticate(key: string): Promise<AccountPrincipal | null> {
    const [row] = await this.em.execute<
      { key_id: string; name: string; prefix: string; account_id: string; company_id: string | null }[]
    >(
      `select k.id as key_id, k.name, k.prefix, a.id as account_id, a.company_id
         from cv.account_api_keys k join cv.accounts a on a.id = k.account_id
        where k.key_hash = ? and k.revoked_at is null`,
      [hashApiKey(key)],
    );
    if (row === undefined) return null;
    return {
      accountId: Number(row.account_id),
      companyId: row.company_id === null ? null : Number(row.company_id),
      keyId: Number(row.key_id),
      keyName: row.name,
      keyPrefix: row.prefix,
    };
  }
}
