import { Migration } from '@mikro-orm/migrations';

/** Which plan a venue (ticket calling) or an account (CVs) is on. */
export class Migration20261121120000CreateSubscriptions extends Migration {
  override up(): void {
    this.addSql(`
      create table "billing"."subscriptions" (
        "id" bigserial primary key,
        "subject_type" text not null check ("subject_type" in ('venue', 'account')),
        "subject_id" bigint not null,
        "plan_key" text not null references "billing"."plans" ("key"),
        "status" text not null default 'active' check ("status" in ('active', 'past_due', 'cancelled')),
        "ends_at" timestamptz null,
        "created_at" timestamptz not null default now(),
        "updated_at" timestamptz not null default now(),
        unique ("subject_type", "subject_id")
      );`);
  }

  override down(): void {
    this.addSql('drop table if exists "billing"."subscriptions";');
  }
}
