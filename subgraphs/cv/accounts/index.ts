/**
 * Accounts: companies, CV accounts and their API keys (issued, revoked, last used), who a request
 * speaks for (CvAccess: an X-API-Key or the signed-in owner), the account's plan as billing says,
 * a person's own account and its audit log. What the other folders of the cv subgraph may use.
 */
export { Account, AccountApiKey, Company } from './account.entity';
export { ACCOUNT_AUDIT } from './account-audit';
export { AccountRepository } from './account.repository';
export { AccountService, type AccountPrincipal } from './account.service';
export { accountPlanClient, type AccountEntitlements } from './account-plan.client';
export { AccountOpeningService } from './account-opening.service';
export { CvAccess } from './cv-access';
export { CvUserType } from './account.type';
export { AccountResolver } from './account.resolver';
export { CvUserResolver } from './user.resolver';
