import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261121100000CreatePlans } from './Migration20261121100000CreatePlans';

/** Billing's migrations in the order they apply; append, never reorder. */
export const billingMigrations: MigrationObject[] = [
  { name: 'Migration20261121100000CreatePlans', class: Migration20261121100000CreatePlans },
];
