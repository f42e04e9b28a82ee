import { AuditLog } from '../../common/audit-log';
import type { EntityManager } from '../../common/database';
import {
  ACCOUNT_AUDIT,
  AccountRepository,
  AccountService,
  type AccountPrincipal,
} from '../../subgraphs/cv/accounts';

let accountNumber = 0;

/** A new CV account with no company, opened through the account service, as its key-less principal. */
export async function openCvAccount(em: EntityManager): Promise<AccountPrincipal> {
  accountNumber += 1;
  const account = await new AccountService(
    new AccountRepository(em),
    new AuditLog(em, ACCOUNT_AUDIT),
  ).createAccount({
    name: `Account ${accountNumber}`,
    email: `cv-service-${accountNumber}@example.com`,
    companyId: null,
  });
  return { accountId: account.id, companyId: null, key: null, userId: null };
}
