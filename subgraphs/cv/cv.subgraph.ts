import { cvMigrations } from '../../migrations/cv';
import type { SubgraphDefinition } from '../../common/subgraph';
import { Account, AccountApiKey, Company } from './account.entity';
import { Template } from './template.entity';

/** CVs: companies, accounts, templates and CVs live in the `cv` schema. */
export const cvSubgraph: SubgraphDefinition = {
  name: 'cv',
  schemaModule: {
    schema: 'cv',
    entities: [Company, Account, AccountApiKey, Template],
    migrations: cvMigrations,
  },
  resolvers: [],
  createResolvers: () => [],
};
