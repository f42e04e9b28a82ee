import { Arg, Directive, FieldResolver, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { SlicedBy } from '../../../common/cost.graphql';
import { AuditAfterArg, AuditFirstArg, auditPage } from '../../../common/audit.graphql';
import { ForbiddenError, NotFoundError } from '../../../common/errors';
import { parseRecordId } from '../../../common/input.rules';
import { say } from '../../../common/messages';
import type { AccountOpeningService } from './account-opening.service';
import { ACCOUNT_KEYS_CAP, type AccountService } from './account.service';
import {
  AccountApiKeyType,
  AccountType,
  AuditLogPageType,
  CreateAccountApiKeyInput,
  CreateCvAccountInput,
  IssuedAccountApiKeyType,
  toAccountApiKeyType,
  toAccountType,
} from './account.type';
import { CvAccess } from './cv-access';

/** The most keys `Account.apiKeys` lists at once. */
const KEYS_LISTED_MAX = 100;

/** What an account's fields need of its CVs: the cvs folder's CvService, handed in by the root module. */
export interface AccountCvs {
  countFor(accountId: number): Promise<number>;
}

@Resolver(() => AccountType)
export class AccountResolver {
  constructor(
    private readonly access: CvAccess,
    private readonly accounts: AccountService,
    private readonly cvs: AccountCvs,
    private readonly opening: AccountOpeningService,
  ) {}

  @Query(() => AccountType, {
    description: 'The account of the request’s X-API-Key, or of the signed-in user without one.',
  })
  async me(): Promise<AccountType> {
    const principal = await this.access.require();
    const account = await this.accounts.getAccount(principal.accountId);
    return toAccountType(account, principal.key === null ? null : toAccountApiKeyType(principal.key));
  }

  /**
   * An Account entity fetched by reference (`_entities`): only with that account's own key or by
   * its signed-in owner, so an entity fetch reveals no more than `me` does.
   */
  async reference(id: string): Promise<AccountType> {
    const principal = await this.access.require();
    if (String(principal.accountId) !== id)
      throw new ForbiddenError('An API key reads only its own account.');
    return this.me();
  }

  @FieldResolver(() => Int, { description: 'CVs the account holds; billing reports it as usage.cvs.' })
  cvCount(@Root() account: AccountType): Promise<number> {
    return this.cvs.countFor(Number(account.id));
  }

  @SlicedBy('first')
  @FieldResolver(() => [AccountApiKeyType], {
    description: `The account’s API keys, revoked ones too, newest first: for its signed-in owner or one of its own keys. At most ${ACCOUNT_KEYS_CAP} are not revoked at once.`,
  })
  async apiKeys(
    @Root() account: AccountType,
    @Arg('first', () => Int, {
      defaultValue: ACCOUNT_KEYS_CAP,
      description: `How many, the newest first; at most ${KEYS_LISTED_MAX}.`,
    })
    first: number,
  ): Promise<AccountApiKeyType[]> {
    const principal = await this.access.require();
    if (String(principal.accountId) !== account.id)
      throw new ForbiddenError('An API key reads only its own account.');
    const listed = Math.min(Math.max(first, 0), KEYS_LISTED_MAX);
    return (await this.accounts.keysOf(principal, listed)).map(toAccountApiKeyType);
  }

  @Mutation(() => AccountType, {
    description:
      'Opens the signed-in user’s own CV account, on the free plan; from then on every CV operation works with the session as with an X-API-Key. One per user: a second is CONFLICT.',
  })
  async createCvAccount(
    @Arg('input', () => CreateCvAccountInput, {
      nullable: true,
      description: 'The account’s name; without it, the user’s own name.',
    })
    input?: CreateCvAccountInput | null,
  ): Promise<AccountType> {
    const account = await this.opening.open(this.access.sessionUserId, { name: input?.name ?? null });
    return toAccountType(account, null);
  }

  @Mutation(() => IssuedAccountApiKeyType, {
    description:
      'Issues an API key (X-API-Key) for the signed-in owner’s account; its secret is shown this once. A key cannot issue keys (FORBIDDEN).',
  })
  async createAccountApiKey(
    @Arg('input', () => CreateAccountApiKeyInput, { description: 'The new key’s name.' })
    input: CreateAccountApiKeyInput,
  ): Promise<IssuedAccountApiKeyType> {
    const principal = await this.access.require();
    const { key, apiKey } = await this.accounts.issueKeyOfOwner(principal, input.name);
    return { secret: key, apiKey: toAccountApiKeyType(apiKey) };
  }

  @Mutation(() => AccountApiKeyType, {
    description:
      'Revokes one of the signed-in owner’s account keys at once: its next request is 401. Another account’s key is NOT_FOUND; revoking twice keeps the first time.',
  })
  async revokeAccountApiKey(
    @Arg('id', () => ID, { description: 'The key’s id (AccountApiKey.id).' }) id: string,
  ): Promise<AccountApiKeyType> {
    const principal = await this.access.require();
    return toAccountApiKeyType(await this.accounts.revokeKeyOfOwner(principal, id));
  }

  @SlicedBy('first', ['items'])
  @FieldResolver(() => AuditLogPageType, {
    description:
      'Every management change of the account (created, keys issued and revoked, plan changed), newest first: for its signed-in owner only.',
  })
  async auditLog(
    @Root() account: AccountType,
    @AuditFirstArg() first: number,
    @AuditAfterArg() after: string | null | undefined,
  ): Promise<AuditLogPageType> {
    const principal = await this.access.require();
    if (String(principal.accountId) !== account.id)
      throw new ForbiddenError('An API key reads only its own account.');
    return auditPage(
      first,
      after,
      (size, before) => this.accounts.auditLog(principal, size, before),
      (id) => ({ id: String(id) }),
    );
  }

  @Directive('@inaccessible')
  @Mutation(() => Boolean, {
    description: 'Keeps a plan change billing made in the account’s audit log; hidden from the public graph.',
  })
  async recordAccountPlanChange(
    @Arg('accountId', () => ID, { description: 'The account.' }) accountId: string,
    @Arg('userId', () => ID, { description: 'The owner who changed it.' }) userId: string,
    @Arg('plan', () => String, { description: 'The new plan.' }) plan: string,
    @Arg('clientAddress', () => String, { nullable: true, description: 'Where the change came from.' })
    clientAddress: string | null,
  ): Promise<boolean> {
    const account = parseRecordId(accountId);
    const user = parseRecordId(userId);
    if (account === null || user === null) throw new NotFoundError(say('cv.account_not_found'));
    await this.accounts.recordPlanChange(account, { type: 'user', id: user }, plan, clientAddress);
    return true;
  }
}
