import { cvMigrations } from '../../migrations/cv';
import type { SubgraphDefinition } from '../../common/subgraph';
import { PHOTO_BODY_LIMIT } from '../../common/graphql-server';
import { languageOf } from '../../common/language';
import { Account, AccountApiKey, Company } from './account.entity';
import { accountPlanClient } from './account-plan.client';
import { AccountResolver } from './account.resolver';
import { CvAccess } from './cv-access';
import { CvResolver } from './cv.resolver';
import { CvService } from './cv.service';
import { Template } from './template.entity';
import { TemplateResolver } from './template.resolver';

/** CVs: companies, accounts, templates and CVs live in the `cv` schema. */
export const cvSubgraph: SubgraphDefinition = {
  name: 'cv',
  schemaModule: {
    schema: 'cv',
    entities: [Company, Account, AccountApiKey, Template],
    migrations: cvMigrations,
  },
  resolvers: [AccountResolver, TemplateResolver, CvResolver],
  bodyLimit: PHOTO_BODY_LIMIT,
  createResolvers: (scope) => {
    const language = languageOf(scope.headers['accept-language']);
    const access = new CvAccess(scope.headers['x-api-key'], scope.em, language);
    const plans = accountPlanClient(scope.config, scope.redis);
    return [
      new AccountResolver(access, scope.em),
      new TemplateResolver(access, scope.em, plans, scope.config.publicBaseUrl, language),
      new CvResolver(access, new CvService(scope.em, language), plans, scope.config.publicBaseUrl),
    ];
  },
};
