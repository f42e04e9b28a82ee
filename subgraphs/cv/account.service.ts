import { z } from 'zod';
import { hashApiKey, newApiKey } from '../../common/api-keys';
import { NotFoundError, ValidationError } from '../../common/errors';
import { fieldErrorsOf, rule } from '../../common/validation';
import type { Account, AccountApiKey, Company } from './account.entity';
import type { AccountRepository } from './account.repository';
import { say } from '../../common/messages';

/** Every CV key starts with this, so a leaked one is recognisable in logs and scanners. */
const KEY_PREFIX = 'cv_';

/** A key as issued: the only time the key itself is seen. */
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
const ACCOUNT_INPUT = z.object({ name, email: z.email(rule('field.email')).max(255) });

function parse<T>(schema: z.ZodType<T>, input: unknown): T {
  const result = schema.safeParse(input);
  if (!result.success) throw new ValidationError(fieldErrorsOf(result.error));
  return result.data;
}

/** Companies, accounts and their API keys, as the admin CLI and the authentication need them. */
export class AccountService {
  constructor(private readonly accounts: AccountRepository) {}

  async createCompany(companyName: string): Promise<Company> {
    return this.accounts.createCompany(parse(z.object({ name }), { name: companyName }));
  }

  async getCompany(id: number): Promise<Company> {
    const company = await this.accounts.findCompany(id);
    if (company === null) throw new NotFoundError(`Company ${id} not found.`);
    return company;
  }

  async createAccount(input: { name: string; email: string; companyId: number | null }): Promise<Account> {
    const checked = parse(ACCOUNT_INPUT, { name: input.name, email: input.email });
    if (input.companyId !== null) await this.getCompany(input.companyId);
    if (await this.accounts.emailTaken(checked.email))
      throw new ValidationError({ email: [say('field.taken', { field: 'email' })] });
    return this.accounts.createAccount({ ...checked, companyId: input.companyId });
  }

  async getAccount(id: number): Promise<Account> {
    const account = await this.accounts.findAccount(id);
    if (account === null) throw new NotFoundError(`Account ${id} not found.`);
    return account;
  }

  /** A new key for the account; the key itself is in the answer once and never stored. */
  async issueKey(accountId: number, keyName: string, presetKey?: string): Promise<IssuedAccountKey> {
    await this.getAccount(accountId);
    const checked = parse(z.object({ name }), { name: keyName });
    const { key, prefix, hash } = newApiKey(KEY_PREFIX, presetKey);
    const apiKey = await this.accounts.createKey({ accountId, name: checked.name, prefix, keyHash: hash });
    return { id: apiKey.id, key, prefix: apiKey.prefix, account_id: accountId, name: apiKey.name };
  }

  async revokeKey(id: number): Promise<AccountApiKey> {
    const apiKey = await this.accounts.findKey(id);
    if (apiKey === null) throw new NotFoundError(`Account key ${id} not found.`);
    apiKey.revokedAt ??= new Date();
    await this.accounts.saveKey(apiKey);
    return apiKey;
  }

  /** The account behind a key, or null for an unknown or revoked one. */
  async authenticate(key: string): Promise<AccountPrincipal | null> {
    const found = await this.accounts.findActiveKeyByHash(hashApiKey(key));
    if (found === null) return null;
    return {
      accountId: found.accountId,
      companyId: found.companyId,
      keyId: found.keyId,
      keyName: found.name,
      keyPrefix: found.prefix,
    };
  }

  /** Notes that the key was used; written at most once a minute per key. */
  recordKeyUse(keyId: number): Promise<void> {
    return this.accounts.touchKey(keyId);
  }
}
