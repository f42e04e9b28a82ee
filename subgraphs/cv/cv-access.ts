import { touchApiKey } from '../../common/api-keys';
import type { EntityManager } from '../../common/database';
import { UnauthenticatedError } from '../../common/errors';
import type { TextLanguage } from '../../common/language';
import { AccountService, type AccountPrincipal } from './account.service';

/** The document's 401 in the two languages `Accept-Language` may ask for. */
const UNAUTHENTICATED: Record<TextLanguage, string> = {
  en: 'Unauthenticated.',
  ar: 'غير مصادق. أرسل مفتاح API صالحاً في الترويسة X-API-Key.',
};

/** Decides who is asking, once per request: `X-API-Key` names an account, or the request is a 401. */
export class CvAccess {
  private principal?: Promise<AccountPrincipal>;

  constructor(
    private readonly apiKey: string | undefined,
    private readonly em: EntityManager,
    private readonly language: TextLanguage,
  ) {}

  require(): Promise<AccountPrincipal> {
    return (this.principal ??= this.authenticate());
  }

  private async authenticate(): Promise<AccountPrincipal> {
    const key = this.apiKey?.trim();
    const principal = key ? await new AccountService(this.em).authenticate(key) : null;
    if (principal === null) throw new UnauthenticatedError(UNAUTHENTICATED[this.language]);
    await touchApiKey(this.em, 'cv.account_api_keys', principal.keyId);
    return principal;
  }
}
