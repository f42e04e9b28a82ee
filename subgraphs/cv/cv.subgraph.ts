import type { EntityManager } from '../../common/database';
import type { RequestScope, SubgraphDefinition } from '../../common/subgraph';
import { PHOTO_BODY_LIMIT } from '../../common/graphql-server';
import { languageOf, type TextLanguage } from '../../common/language';
import { parseRecordId } from '../../common/input.rules';
import { RateBudgets } from '../../common/rate-budget';
import { SubgraphClient } from '../../common/subgraph-call';
import { AuditLog } from '../../common/audit-log';
import { CLIENT_ADDRESS_HEADER, SESSION_USER_HEADER } from '../../contracts/identity/session';
import { PeopleClient } from '../../contracts/identity/people.client';
import { CvRenderer, CvRenderMetrics, rendererOptionsFrom } from './render';
import {
  Account,
  ACCOUNT_AUDIT,
  AccountApiKey,
  AccountOpeningService,
  accountPlanClient,
  AccountRepository,
  AccountResolver,
  AccountService,
  Company,
  CvAccess,
  CvUserResolver,
  CvUserType,
} from './accounts';
import { Template, TemplateRepository, TemplateResolver, TemplateService } from './templates';
import { CvRepository, CvResolver, CvService } from './cvs';
import { CvExportLinkService, CvExportResolver, CvExportService, DownloadMeter } from './exports';

interface CvShared {
  renderer: CvRenderer;
  /** One per process, so a Redis outage is warned about once every few seconds, not per export. */
  budgets: RateBudgets;
  renderMetrics: CvRenderMetrics;
  close(): Promise<void>;
}

/** The cv subgraph's services of one unit of work. */
export interface CvServices {
  accounts: AccountService;
  templates: TemplateService;
  cvs: CvService;
}

/**
 * Each cv service on its repositories, over one EntityManager: a request's, a command's or a seed's.
 * `language` is the one of CvService's messages; commands and seeds answer in English.
 * `clientAddress` is the request's, for the audit log; commands have none.
 */
export function cvServices(
  em: EntityManager,
  language: TextLanguage = 'en',
  clientAddress: string | null = null,
): CvServices {
  const templateRepository = new TemplateRepository(em);
  return {
    accounts: new AccountService(
      new AccountRepository(em),
      new AuditLog(em, ACCOUNT_AUDIT),
      language,
      clientAddress,
    ),
    templates: new TemplateService(templateRepository),
    cvs: new CvService(new CvRepository(em), templateRepository, language),
  };
}

/** The caller's address: only the gateway sets the header, and only the gateway reaches a subgraph. */
function clientAddressOf(scope: RequestScope): string | null {
  return scope.headers[CLIENT_ADDRESS_HEADER] ?? null;
}

function accessOf(scope: RequestScope, accounts: AccountService): CvAccess {
  return new CvAccess(
    // Only the gateway sets the session header, and only the gateway reaches a subgraph.
    { apiKey: scope.headers['x-api-key'], sessionUserId: parseRecordId(scope.headers[SESSION_USER_HEADER]) },
    accounts,
    languageOf(scope.headers['accept-language']),
  );
}

/** The account resolver of a request, for its fields and for the gateway's entity fetches. */
function accountResolverOf(
  scope: RequestScope,
  language: TextLanguage,
  { accounts, cvs }: CvServices,
  access: CvAccess,
): AccountResolver {
  const opening = new AccountOpeningService(
    accounts,
    {
      billing: SubgraphClient.of(scope.config, 'billing'),
      people: new PeopleClient(SubgraphClient.of(scope.config, 'identity')),
      requestId: scope.requestId,
    },
    language,
  );
  return new AccountResolver(access, accounts, cvs, opening);
}

/** CVs: companies, accounts, templates and CVs live in the `cv` schema. */
export const cvSubgraph: SubgraphDefinition = {
  name: 'cv',
  schemaModule: {
    schema: 'cv',
    entities: [Company, Account, AccountApiKey, Template],
    migrations: () => import('../../migrations/cv').then((m) => m.cvMigrations),
  },
  resolvers: [AccountResolver, CvUserResolver, TemplateResolver, CvResolver, CvExportResolver],
  orphanedTypes: [CvUserType],
  referenceResolvers: {
    Account: {
      __resolveReference: (reference: { id: string }, { scope }) => {
        const language = languageOf(scope.headers['accept-language']);
        const services = cvServices(scope.em, language, clientAddressOf(scope));
        const access = accessOf(scope, services.accounts);
        return accountResolverOf(scope, language, services, access).reference(String(reference.id));
      },
    },
    // The cv subgraph adds `cvAccount` to identity's users; the id is all it needs of one.
    User: { __resolveReference: (reference: { id: string }) => CvUserResolver.reference(reference) },
  },
  bodyLimit: PHOTO_BODY_LIMIT,
  // One Chromium for the process, launched at the first PDF (docs/ARCHITECTURE.md).
  startShared: ({ config, redis, logger, metrics }) => {
    const renderer = new CvRenderer(rendererOptionsFrom(config), logger);
    return Promise.resolve({
      renderer,
      renderMetrics: new CvRenderMetrics(metrics, renderer),
      budgets: new RateBudgets(
        redis,
        config.redisPrefix,
        logger,
        metrics.rateBudgetObserver(),
        config.rateCountTimeoutMs,
      ),
      close: () => renderer.stop(),
      health: () => ({ renderer: renderer.stats() }),
    });
  },
  createResolvers: (scope) => {
    const language = languageOf(scope.headers['accept-language']);
    const services = cvServices(scope.em, language, clientAddressOf(scope));
    const { accounts, templates, cvs } = services;
    const access = accessOf(scope, accounts);
    const plans = accountPlanClient(scope.config, scope.redis);
    const exports = new CvExportService(
      language,
      cvs,
      new TemplateRepository(scope.em),
      plans,
      DownloadMeter.from(scope.config),
      (scope.shared as CvShared).renderer,
      (scope.shared as CvShared).budgets,
      (scope.shared as CvShared).renderMetrics,
    );
    const links = new CvExportLinkService(language, cvs, accounts, exports, {
      publicBaseUrl: scope.config.publicBaseUrl,
      internalSecret: scope.config.internalSecret,
      acceptedInternalSecrets: scope.config.acceptedInternalSecrets,
    });
    return [
      accountResolverOf(scope, language, services, access),
      new CvUserResolver(access, accounts),
      new TemplateResolver(access, templates, plans, scope.config.publicBaseUrl, language),
      new CvResolver(access, cvs, plans, scope.config.publicBaseUrl),
      new CvExportResolver(access, exports, links, scope.requestId),
    ];
  },
};
