import { cvMigrations } from '../../migrations/cv';
import type { SubgraphDefinition } from '../../common/subgraph';
import { languageOf } from '../../common/language';
import { Account, AccountApiKey, Company } from './account.entity';
import { AccountResolver } from './account.resolver';
import { CvAccess } from './cv-access';
import { Template } from './template.entity';

/** CVs: companies, accounts, templates and CVs live in the `cv` schema. */
export const cvSubgraph: SubgraphDefinition = {
  name: 'cv',
  schemaModule: {
    schema: 'cv',
    entities: [Company, Account, AccountApiKey, Template],
    migrations: cvMigrations,
  },
  resolvers: [AccountResolver],
  createResolvers: (scope) => [
    new AccountResolver(
      new CvAccess(scope.headers['x-api-key'], scope.em, languageOf(scope.headers['accept-language'])),
      scope.em,
    ),
  ],
};
