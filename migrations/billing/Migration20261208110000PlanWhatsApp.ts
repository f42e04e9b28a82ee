import { Migration } from '@mikro-orm/migrations';

/**
 * The ready alert on WhatsApp as a ticket plan's entitlement (issue 55): false on every row until
 * seeding writes the catalogue, which turns it on where the plan has SMS (growth, enterprise).
 */
export class Migration20261208110000PlanWhatsApp extends Migration {
  override up(): void {
    this.addSql('alter table "billing"."plans" add column "whatsapp" boolean not null default false;');
  }

  override down(): void {
    this.addSql('alter table "billing"."plans" drop column "whatsapp";');
  }
}
