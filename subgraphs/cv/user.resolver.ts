import { FieldResolver, Resolver, Root } from 'type-graphql';
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
