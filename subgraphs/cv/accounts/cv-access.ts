import { UnauthenticatedError } from '../../../common/errors';
import type { TextLanguage } from '../../../common/language';
import type { AccountPrincipal, AccountService } from './account.service';
import { text } from '../../../common/messages';

/** What a request presents: its `X-API-Key`, and the signed-in user the gateway names. */
export interface CvCredentials {
  apiKey: string | undefined;
  /** `x-session-user`, set only by the gateway; null without a live session. */
  sessionUserId: number | null;
}

/**
 * Decides who is asking, once per request: `X-API-Key` names an account; without one, a signed-in
 * person speaks for their own account; anything else is a 401. A key sent with a session wins, so a
 * client that sends both is judged as the keyed clients always were.
 */
export class CvAccess {
  private principal?: Promise<AccountPrincipal>;

  constructor(
    private readonly credentials: CvCredentials,
    private readonly accounts: AccountService,
    private readonly language: TextLanguage,
  ) {}

  require(): Promise<AccountPrincipal> {
    return (this.principal ??= this.authenticate());
  }

  /** The signed-in user of the request, whether or not they have an account yet. */
  get sessionUserId(): number | null {
    return this.credentials.sessionUserId;
  }

  private async authenticate(): Promise<AccountPrincipal> {
    const key = this.credentials.apiKey?.trim();
    if (!key && this.credentials.sessionUserId !== null) {
      const principal = await this.accounts.authenticateUser(this.credentials.sessionUserId);
      if (principal === null) throw new UnauthenticatedError(text('cv.account_missing', this.language));
      return principal;
    }
    const principal = key ? await this.accounts.authenticate(key) : null;
    if (principal === null || principal.key === null)
      throw new UnauthenticatedError(text('cv.unauthenticated', this.language));
    await this.accounts.recordKeyUse(principal.key.id);
    return principal;
  }
}
