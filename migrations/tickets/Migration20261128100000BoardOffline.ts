import { Migration } from '@mikro-orm/migrations';

/**
 * The staff board through an outage (issue 54): a board device's settings, and the leases of
 * upcoming ticket numbers a board takes so that tickets it creates offline keep the numbers the
 * customers were told. The prefix's uniqueness among a branch's devices is the next migration's
 * index, built outside a transaction.
 */
export class Migration20261128100000BoardOffline extends Migration {
  override up(): void {
    this.addSql(`
      alter table "tickets"."api_keys"
        add column "number_prefix" text null check ("number_prefix" ~ '^[A-Z]{1,3}$'),
        add column "calls_when_offline" boolean not null default false;`);
    this.addSql(`
      create table "tickets"."number_leases" (
        "id" bigserial primary key,
        "branch_id" bigint not null references "tickets"."branches" ("id"),
        -- Who took it: a key or board device, else a signed-in member working the branch.
        "api_key_id" bigint null references "tickets"."api_keys" ("id"),
        "user_id" bigint null,
        -- The venue's day (its timezone) the numbers belong to: the counter starts again after it.
        "day" date not null,
        "numbers" integer[] not null check (cardinality("numbers") between 1 and 50),
        "created_at" timestamptz not null default now(),
        check ("api_key_id" is not null or "user_id" is not null)
      );`);
    this.addSql(
      'create index "number_leases_branch_day_index" on "tickets"."number_leases" ("branch_id", "day");',
    );
  }

  override down(): void {
    this.addSql('drop table if exists "tickets"."number_leases";');
    this.addSql(
      'alter table "tickets"."api_keys" drop column "calls_when_offline", drop column "number_prefix";',
    );
  }
}
