import { cvMigrations } from '../../migrations/cv';
import type { RequestScope, SubgraphDefinition } from '../../common/subgraph';
import { PHOTO_BODY_LIMIT } from '../../common/graphql-server';
import { languageOf } from '../../common/language';
import { RateBudgets } from '../../common/rate-budget';
import { Account, AccountApiKey, Company } from './account.entity';
import { accountPlanClient } from './account-plan.client';
import { AccountResolver } from './account.resolver';
import { CvAccess } from './cv-access';
import { CvResolver } from './cv.resolver';
import { CvExportResolver } from './cv-export.resolver';
import { CvExportService } from './cv-export.service';
import { CvService } from './cv.service';
import { DownloadMeter } from './download-meter';
import { CvRenderer, rendererOptionsFrom } from './render/renderer';
import { Template } from './template.entity';
import { TemplateResolver } from './template.resolver';

interface CvShared {
  renderer: CvRenderer;
  /** One per process, so a Redis outage is warned about once every few seconds, not per export. */
  budgets: RateBudgets;
  close(): Promise<void>;
}

function accessOf(scope: RequestScope): CvAccess {
  return new CvAccess(scope.headers['x-api-key'], scope.em, languageOf(scope.headers['accept-language']));
}

/** CVs: companies, accounts, templates and CVs live in the `cv` schema. */
export const cvSubgraph: SubgraphDefinition = {
  name: 'cv',
  schemaModule: {
    schema: 'cv',
    entities: [Company, Account, AccountApiKey, Template],
    migrations: cvMigrations,
  },
  resolvers: [AccountResolver, TemplateResolver, CvResolver, CvExportResolver],
  referenceResolvers: {
    Account: {
      __resolveReference: (reference: { id: string }, { scope }) =>
        new AccountResolver(accessOf(scope), scope.em).reference(String(reference.id)),
    },
  },
  bodyLimit: PHOTO_BODY_LIMIT,
  // One Chromium for the process, launched at the first PDF (docs/ARCHITECTURE.md).
  startShared: ({ config, redis, logger }) => {
    const renderer = new CvRenderer(rendererOptionsFrom(config), logger);
    return Promise.resolve({
      renderer,
      budgets: new RateBudgets(redis, config.redisPrefix, logger),
      close: () => renderer.stop(),
      health: () => ({ renderer: renderer.stats() }),
    });
  },
  createResolvers: (scope) => {
    const language = languageOf(scope.headers['accept-language']);
    const access = accessOf(scope);
    const plans = accountPlanClient(scope.config, scope.redis);
    const cvs = new CvService(scope.em, language);
    const exports = new CvExportService(
      scope.em,
      language,
      cvs,
      plans,
      DownloadMeter.from(scope.config),
      (scope.shared as CvShared).renderer,
      (scope.shared as CvShared).budgets,
    );
    return [
      new AccountResolver(access, scope.em),
      new TemplateResolver(access, scope.em, plans, scope.config.publicBaseUrl, language),
      new CvResolver(access, cvs, plans, scope.config.publicBaseUrl),
      new CvExportResolver(access, exports, scope.requestId),
    ];
  },
};
