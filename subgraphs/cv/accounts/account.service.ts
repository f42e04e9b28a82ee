import { z } from 'zod';
import {
  OPERATOR,
  type Actor,
  type AuditDetails,
  type AuditEvent,
  type AuditLog,
} from '../../../common/audit-log';
import { hashApiKey, newApiKey } from '../../../common/api-keys';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../../common/errors';
import { parseRecordId } from '../../../common/input.rules';
import { fieldErrorsOf, rule } from '../../../common/validation';
import type { Account, AccountApiKey, Company } from './account.entity';
import type { AccountRepository } from './account.repository';
import type { TextLanguage } from '../../../common/language';
import { say, text } from '../../../common/messages';

/** Every CV key starts with this, so a leaked one is recognisable in logs and scanners. */
const KEY_PREFIX = 'cv_';

/**
 * Keys not revoked one account may hold: one per system an integration connects, and a spare
 * while one is rotated. `Account.apiKeys` pages by `first`, whose default is this.
 */
export const ACCOUNT_KEYS_CAP = 20;

/** A key as issued: the only time the key itself is seen. */
export interface IssuedAccountKey {
  id: number;
  key: string;
  prefix: string;
  account_id: number;
  name: string;
}

/** The key a request was made with, as its account may see it; never the key itself. */
export interface RequestKey {
  id: number;
  name: string;
  prefix: string;
  lastUsedAt: Date | null;
  createdAt: Date;
}

/** Who a request speaks for: an account, through one of its keys or its signed-in owner. */
export interface AccountPrincipal {
  accountId: number;
  companyId: number | null;
  /** The `X-API-Key` of the request; null when the account's owner asks with a session. */
  key: RequestKey | null;
  /** The signed-in owner asking; null when a key asks. */
  userId: number | null;
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
  /** `language` is the one of the answers to a signed-in person (commands and seeds: English). */
  constructor(
    private readonly accounts: AccountRepository,
    private readonly audit: AuditLog,
    private readonly language: TextLanguage = 'en',
    /** The caller's address as the gateway saw it; null for the operator's commands. */
    private readonly clientAddress: string | null = null,
  ) {}

  /** Keeps a change in the account's audit log. */
  private record(
    accountId: number,
    actor: Actor,
    action: string,
    target: string,
    details: AuditDetails = {},
  ) {
    return this.audit.record({
      subjectId: accountId,
      actor,
      action,
      target,
      details,
      clientAddress: actor.type === 'operator' ? null : this.clientAddress,
    });
  }

  /** The account's audit log, newest first, by pages: for its signed-in owner only. */
  auditLog(principal: AccountPrincipal, first: number, before: number | null): Promise<AuditEvent[]> {
    return this.audit.page(this.owner(principal, 'cv.audit_needs_owner').accountId, first, before);
  }

  /** A plan change billing made for the account's owner, kept in the account's log. */
  async recordPlanChange(
    accountId: number,
    actor: Actor,
    plan: string,
    clientAddress: string | null,
  ): Promise<void> {
    await this.getAccount(accountId);
    await this.audit.record({
      subjectId: accountId,
      actor,
      action: 'plan.changed',
      target: `account:${accountId}`,
      details: { plan },
      clientAddress,
    });
  }

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
    const account = await this.accounts.createAccount({ ...checked, companyId: input.companyId });
    await this.record(account.id, OPERATOR, 'account.created', `account:${account.id}`, {
      name: account.name,
    });
    return account;
  }

  async getAccount(id: number): Promise<Account> {
    const account = await this.accounts.findAccount(id);
    if (account === null) throw new NotFoundError(`Account ${id} not found.`);
    return account;
  }

  /** A new key for the account; the key itself is in the answer once and never stored. */
  async issueKey(accountId: number, keyName: string, presetKey?: string): Promise<IssuedAccountKey> {
    await this.getAccount(accountId);
    const { key, apiKey } = await this.newKey(accountId, keyName, OPERATOR, presetKey);
    return { id: apiKey.id, key, prefix: apiKey.prefix, account_id: accountId, name: apiKey.name };
  }

  private async newKey(
    accountId: number,
    keyName: string,
    actor: Actor,
    presetKey?: string,
  ): Promise<{ key: string; apiKey: AccountApiKey }> {
    const checked = parse(z.object({ name }), { name: keyName });
    const { key, prefix, hash } = newApiKey(KEY_PREFIX, presetKey);
    const apiKey = await this.accounts.createKeyWithinCap(
      { accountId, name: checked.name, prefix, keyHash: hash },
      ACCOUNT_KEYS_CAP,
    );
    if (apiKey === null) throw new ConflictError(say('cv.api_keys_cap', { max: ACCOUNT_KEYS_CAP }));
    await this.record(accountId, actor, 'api_key.issued', `api_key:${apiKey.id}`, {
      name: apiKey.name,
      prefix: apiKey.prefix,
    });
    return { key, apiKey };
  }

  async revokeKey(id: number): Promise<AccountApiKey> {
    const apiKey = await this.accounts.findKey(id);
    if (apiKey === null) throw new NotFoundError(`Account key ${id} not found.`);
    return this.revoke(apiKey, OPERATOR);
  }

  /** Revoking twice keeps the first time, and the log keeps the one revocation. */
  private async revoke(apiKey: AccountApiKey, actor: Actor): Promise<AccountApiKey> {
    if (await this.accounts.revokeKey(apiKey))
      await this.record(apiKey.accountId, actor, 'api_key.revoked', `api_key:${apiKey.id}`);
    return apiKey;
  }

  /** The account behind a key, or null for an unknown or revoked one. */
  async authenticate(key: string): Promise<AccountPrincipal | null> {
    const found = await this.accounts.findActiveKeyByHash(hashApiKey(key));
    if (found === null) return null;
    return {
      accountId: found.accountId,
      companyId: found.companyId,
      key: {
        id: found.keyId,
        name: found.name,
        prefix: found.prefix,
        lastUsedAt: found.lastUsedAt,
        createdAt: found.createdAt,
      },
      userId: null,
    };
  }

  /** The signed-in person's account as the principal of their request, or null while they have none. */
  async authenticateUser(userId: number): Promise<AccountPrincipal | null> {
    const account = await this.accounts.findAccountOfUser(userId);
    if (account === null) return null;
    return { accountId: account.id, companyId: account.companyId, key: null, userId };
  }

  /**
   * The account a signed download link names, as the principal of that one export; null once the
   * account is gone. Neither a key nor a person asks: the link is the whole credential.
   */
  async authenticateLink(accountId: number): Promise<AccountPrincipal | null> {
    const account = await this.accounts.findAccount(accountId);
    if (account === null) return null;
    return { accountId: account.id, companyId: account.companyId, key: null, userId: null };
  }

  /** The person's account, or null while they have none. */
  accountOfUser(userId: number): Promise<Account | null> {
    return this.accounts.findAccountOfUser(userId);
  }

  /**
   * The person's own account, named as they ask and reached at their email. One per person: a
   * second is CONFLICT. The caller puts it on a plan (billing is another subgraph).
   */
  async createAccountOfUser(input: { userId: number; name: string; email: string }): Promise<Account> {
    const checked = parse(ACCOUNT_INPUT, { name: input.name, email: input.email });
    const account = await this.accounts.createAccountOfUser({ ...checked, userId: input.userId });
    if (account === null) throw new ConflictError(text('cv.account_exists', this.language));
    await this.record(
      account.id,
      { type: 'user', id: input.userId },
      'account.created',
      `account:${account.id}`,
      {
        name: account.name,
      },
    );
    return account;
  }

  /** CONFLICT when the person has an account already: one each. */
  async refuseSecondAccount(userId: number): Promise<void> {
    if ((await this.accounts.findAccountOfUser(userId)) !== null)
      throw new ConflictError(text('cv.account_exists', this.language));
  }

  /** Takes back an account made moments ago that could not be put on a plan. */
  removeNewAccount(id: number): Promise<void> {
    return this.accounts.removeNewAccount(id);
  }

  /** The account's keys, revoked ones too, newest first: for the account's owner or one of its keys. */
  keysOf(principal: AccountPrincipal, first: number): Promise<AccountApiKey[]> {
    return this.accounts.keysOf(principal.accountId, first);
  }

  /** A new key of the signed-in owner's account; the key itself is in the answer once. */
  issueKeyOfOwner(
    principal: AccountPrincipal,
    keyName: string,
  ): Promise<{ key: string; apiKey: AccountApiKey }> {
    const { accountId, actor } = this.owner(principal);
    return this.newKey(accountId, keyName, actor);
  }

  /** Revokes a key of the signed-in owner's account; any other id is NOT_FOUND. */
  async revokeKeyOfOwner(principal: AccountPrincipal, id: string): Promise<AccountApiKey> {
    const { accountId, actor } = this.owner(principal);
    const keyId = parseRecordId(id);
    const apiKey = keyId === null ? null : await this.accounts.findKey(keyId);
    if (apiKey === null || apiKey.accountId !== accountId)
      throw new NotFoundError(text('cv.account_key_not_found', this.language));
    return this.revoke(apiKey, actor);
  }

  /**
   * Keys are managed by the account's owner, signed in: a key that could issue keys would outlive
   * its own revocation through the keys it made.
   */
  private owner(
    principal: AccountPrincipal,
    refusal: 'cv.keys_need_owner' | 'cv.audit_needs_owner' = 'cv.keys_need_owner',
  ): { accountId: number; actor: Actor } {
    if (principal.userId === null) throw new ForbiddenError(text(refusal, this.language));
    return { accountId: principal.accountId, actor: { type: 'user', id: principal.userId } };
  }

  /** Notes that the key was used; written at most once a minute per key. */
  recordKeyUse(keyId: number): Promise<void> {
    return this.accounts.touchKey(keyId);
  }
}
