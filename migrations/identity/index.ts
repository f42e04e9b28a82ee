import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261123100000IdentitySchema } from './Migration20261123100000IdentitySchema';
import { Migration20261125100000UserAuditEvents } from './Migration20261125100000UserAuditEvents';

/** Identity's migrations in the order they apply; append, never reorder. */
export const identityMigrations: MigrationObject[] = [
  { name: 'Migration20261123100000IdentitySchema', class: Migration20261123100000IdentitySchema },
  { name: 'Migration20261125100000UserAuditEvents', class: Migration20261125100000UserAuditEvents },
];
