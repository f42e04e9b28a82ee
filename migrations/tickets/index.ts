import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261121100000CreateSchema } from './Migration20261121100000CreateSchema';

/** Tickets migrations in the order they apply; append, never reorder. */
export const ticketsMigrations: MigrationObject[] = [
  { name: 'Migration20261121100000CreateSchema', class: Migration20261121100000CreateSchema },
];
