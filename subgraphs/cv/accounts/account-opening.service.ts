import { UnauthenticatedError, UnavailableError } from '../../../common/errors';
import type { TextLanguage } from '../../../common/language';
import { text } from '../../../common/messages';
import type { SubgraphClient } from '../../../common/subgraph-call';
import type { Account } from './account.entity';
import type { AccountService } from './account.service';
import type { PeopleClient } from '../../../contracts/identity/people.client';

/** A person's account starts on the free CV plan (subgraphs/billing/plan.catalogue.ts); they upgrade from there. */
export const FIRST_CV_PLAN = 'free';

const START_SUBSCRIPTION = `mutation StartAccountSubscription($id: ID!, $plan: String!) {
  startSubscription(subjectType: "account", subjectId: $id, plan: $plan)
}`;

/** What opening an account reaches outside the cv schema. */
export interface AccountOpeningPorts {
  billing: SubgraphClient;
  people: PeopleClient;
  requestId: string;
}

/**
 * A signed-in person's own CV account: named and reached as identity knows them, on the free plan.
 * Billing is another subgraph, so the account and its subscription cannot be one transaction: when
 * billing cannot take it the account is removed again and the person may simply retry.
 */
export class AccountOpeningService {
  constructor(
    private readonly accounts: AccountService,
    private readonly outside: AccountOpeningPorts,
    private readonly language: TextLanguage,
  ) {}

  async open(userId: number | null, input: { name?: string | null }): Promise<Account> {
    if (userId === null) throw new UnauthenticatedError(text('identity.sign_in_required', this.language));
    // Asked first so that a second call costs no request to identity; the insert decides races.
    await this.accounts.refuseSecondAccount(userId);
    const person = await this.person(userId);
    const account = await this.accounts.createAccountOfUser({
      userId,
      name: input.name ?? person.name,
      email: person.email,
    });
    try {
      await this.outside.billing.call(
        'starting the account’s plan',
        START_SUBSCRIPTION,
        { id: String(account.id), plan: FIRST_CV_PLAN },
        { requestId: this.outside.requestId },
      );
    } catch {
      await this.accounts.removeNewAccount(account.id);
      throw new UnavailableError('Billing could not start the account’s plan. Retry shortly.', 5);
    }
    return account;
  }

  private async person(userId: number): Promise<{ name: string; email: string }> {
    let person;
    try {
      person = await this.outside.people.person(userId, this.outside.requestId);
    } catch {
      throw new UnavailableError('The account’s owner could not be read. Retry shortly.', 5);
    }
    // The session named a user identity no longer has.
    if (person === null) throw new UnauthenticatedError(text('identity.sign_in_required', this.language));
    return person;
  }
}
