import { UnauthenticatedError } from '../../common/errors';
import type { TextLanguage } from '../../common/language';
import type { AccountPrincipal, AccountService } from './account.service';
import { text } from '../../common/messages';

/** Decides who is asking, once per request: `X-API-Key` names an account, or the request is a 401. */
export class CvAccess {
  private principal?: Promise<AccountPrincipal>;

  constructor(
    private readonly apiKey: string | undefined,
    private readonly accounts: AccountService,
    private readonly language: TextLanguage,
  ) {}

  require(): Promise<AccountPrincipal> {
    return (this.principal ??= this.authenticate());
  }

  private async authenticate(): Promise<AccountPrincipal> {
    const key = this.apiKey?.trim();
    const principal = key ? await this.accounts.authenticate(key) : null;
    if (principal === null) throw new UnauthenticatedError(text('cv.unauthenticated', this.language));
    await this.accounts.recordKeyUse(principal.keyId);
    return principal;
  }
}
