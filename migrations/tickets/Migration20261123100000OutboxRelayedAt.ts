import { Migration } from '@mikro-orm/migrations';

/**
 * The outbox's two duties are recorded apart: `relayed_at` once its deliveries (webhooks, SMS,
 * push) are written, `published_at` once it went out to live subscribers through Redis. With
 * Redis away, deliveries go on and publication waits for its return.
 */
export class Migration20261123100000OutboxRelayedAt extends Migration {
  override up(): void {
    this.addSql('alter table "tickets"."outbox" add column "relayed_at" timestamptz null;');
    this.addSql('update "tickets"."outbox" set "relayed_at" = "published_at";');
    this.addSql(
      'create index "outbox_unrelayed_index" on "tickets"."outbox" ("id") where "relayed_at" is null;',
    );
  }

  override down(): void {
    this.addSql('drop index if exists "tickets"."outbox_unrelayed_index";');
    this.addSql('alter table "tickets"."outbox" drop column if exists "relayed_at";');
  }
}
