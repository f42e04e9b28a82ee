import { cvMigrations } from '../../migrations/cv';
import type { SubgraphDefinition } from '../../common/subgraph';

/** CVs: companies, accounts, templates and CVs live in the `cv` schema. */
export const cvSubgraph: SubgraphDefinition = {
  name: 'cv',
  schemaModule: { schema: 'cv', entities: [], migrations: cvMigrations },
  resolvers: [],
  createResolvers: () => [],
};
