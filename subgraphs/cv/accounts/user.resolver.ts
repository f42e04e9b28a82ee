import { Arg, Directive, FieldResolver, ID, Query, Resolver, Root } from 'type-graphql';
import { NotFoundError } from '../../../common/errors';
import { parseRecordId } from '../../../common/input.rules';
import type { AccountService } from './account.service';
import { AccountType, CvUserType, toAccountType } from './account.type';
import type { CvAccess } from './cv-access';

/** What the cv subgraph adds to identity's `User`: the person's CV account, to that person only. */
@Resolver(() => CvUserType)
export class CvUserResolver {
  constructor(
    private readonly access: CvAccess,
    private readonly accounts: AccountService,
  ) {}

  /** A `User` the gateway hands over by reference: its id is all the cv subgraph needs. */
  static reference(reference: { id: string }): CvUserType {
    return { id: String(reference.id) };
  }

  @Directive('@inaccessible')
  @Query(() => ID, {
    nullable: true,
    description: 'The user who owns a CV account, for billing’s plan changes; hidden from the public graph.',
  })
  async accountOwner(
    @Arg('accountId', () => ID, { description: 'The account.' }) accountId: string,
  ): Promise<string | null> {
    const id = parseRecordId(accountId);
    const account =
      id === null
        ? null
        : await this.accounts.getAccount(id).catch((error: unknown) => {
            if (error instanceof NotFoundError) return null;
            throw error;
          });
    return account?.userId === null || account === null ? null : String(account.userId);
  }

  @FieldResolver(() => AccountType, {
    nullable: true,
    description:
      'The user’s CV account: null until createCvAccount, and null for any user but the signed-in one.',
  })
  async cvAccount(@Root() user: CvUserType): Promise<AccountType | null> {
    const userId = this.access.sessionUserId;
    // Another person's account is theirs to see; asking about them answers as if there were none.
    if (userId === null || String(userId) !== user.id) return null;
    const account = await this.accounts.accountOfUser(userId);
    return account === null ? null : toAccountType(account, null);
  }
}
