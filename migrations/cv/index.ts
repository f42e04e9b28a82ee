import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261121100000CreateSchema } from './Migration20261121100000CreateSchema';
import { Migration20261122120000CvDomain } from './Migration20261122120000CvDomain';

/** Cv migrations in the order they apply; append, never reorder. */
export const cvMigrations: MigrationObject[] = [
  { name: 'Migration20261121100000CreateSchema', class: Migration20261121100000CreateSchema },
  { name: 'Migration20261122120000CvDomain', class: Migration20261122120000CvDomain },
];
