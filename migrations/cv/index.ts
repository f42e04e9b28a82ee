import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261121100000CreateSchema } from './Migration20261121100000CreateSchema';
import { Migration20261122120000CvDomain } from './Migration20261122120000CvDomain';
import { Migration20261122140000CvPayloadExtras } from './Migration20261122140000CvPayloadExtras';
import { Migration20261124100000AccountOwner } from './Migration20261124100000AccountOwner';
import { Migration20261125100000AccountAuditEvents } from './Migration20261125100000AccountAuditEvents';

/** Cv migrations in the order they apply; append, never reorder. */
export const cvMigrations: MigrationObject[] = [
  { name: 'Migration20261121100000CreateSchema', class: Migration20261121100000CreateSchema },
  { name: 'Migration20261122120000CvDomain', class: Migration20261122120000CvDomain },
  { name: 'Migration20261122140000CvPayloadExtras', class: Migration20261122140000CvPayloadExtras },
  { name: 'Migration20261124100000AccountOwner', class: Migration20261124100000AccountOwner },
  { name: 'Migration20261125100000AccountAuditEvents', class: Migration20261125100000AccountAuditEvents },
];
