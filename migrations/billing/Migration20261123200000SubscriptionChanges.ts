import { Migration } from '@mikro-orm/migrations';

/** Every plan a subject has had: who moved it, from which plan to which, and when. */
export class Migration20261123200000SubscriptionChanges extends Migration {
  override up(): void {
    this.addSql(`
      create table "billing"."subscription_changes" (
        "id" bigserial primary key,
        "subject_type" text not null check ("subject_type" in ('venue', 'account')),
        "subject_id" bigint not null,
        "from_plan_key" text null,
        "to_plan_key" text not null references "billing"."plans" ("key"),
        "changed_by_user_id" bigint null,
        "created_at" timestamptz not null default now()
      );`);
    this.addSql(
      'create index "subscription_changes_subject" on "billing"."subscription_changes" ("subject_type", "subject_id", "id");',
    );
  }

  override down(): void {
    this.addSql('drop table if exists "billing"."subscription_changes";');
  }
}
