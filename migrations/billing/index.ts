import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261121100000CreatePlans } from './Migration20261121100000CreatePlans';
import { Migration20261121120000CreateSubscriptions } from './Migration20261121120000CreateSubscriptions';
import { Migration20261122130000UsageMonths } from './Migration20261122130000UsageMonths';
import { Migration20261123200000SubscriptionChanges } from './Migration20261123200000SubscriptionChanges';
import { Migration20261208110000PlanWhatsApp } from './Migration20261208110000PlanWhatsApp';

/** Billing's migrations in the order they apply; append, never reorder. */
export const billingMigrations: MigrationObject[] = [
  { name: 'Migration20261121100000CreatePlans', class: Migration20261121100000CreatePlans },
  { name: 'Migration20261121120000CreateSubscriptions', class: Migration20261121120000CreateSubscriptions },
  { name: 'Migration20261122130000UsageMonths', class: Migration20261122130000UsageMonths },
  { name: 'Migration20261123200000SubscriptionChanges', class: Migration20261123200000SubscriptionChanges },
  { name: 'Migration20261208110000PlanWhatsApp', class: Migration20261208110000PlanWhatsApp },
];
