import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261121100000CreateSchema } from './Migration20261121100000CreateSchema';

/** Cv migrations in the order they apply; append, never reorder. */
export const cvMigrations: MigrationObject[] = [
  { name: 'Migration20261121100000CreateSchema', class: Migration20261121100000CreateSchema },
];
