import { FieldResolver, Int, Query, Resolver, Root } from 'type-graphql';
import { ForbiddenError } from '../../common/errors';
import type { AccountService } from './account.service';
import { AccountType } from './account.type';
import { CvAccess } from './cv-access';
import type { CvService } from './cv.service';

@Resolver(() => AccountType)
export class AccountResolver {
  constructor(
    private readonly access: CvAccess,
    private readonly accounts: AccountService,
    private readonly cvs: CvService,
  ) {}

  @Query(() => AccountType, { description: 'The account of the request’s X-API-Key.' })
  async me(): Promise<AccountType> {
    const principal = await this.access.require();
    const account = await this.accounts.getAccount(principal.accountId);
    return {
      id: String(account.id),
      name: account.name,
      email: account.email,
      apiKey: { name: principal.keyName, prefix: principal.keyPrefix },
    };
  }

  /**
   * An Account entity fetched by reference (`_entities`): only with that account's own key, so an
   * entity fetch reveals no more than `me` does.
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
}
