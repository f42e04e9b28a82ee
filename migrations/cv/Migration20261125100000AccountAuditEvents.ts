import { Migration } from '@mikro-orm/migrations';

/** Every management change of a CV account: who (its person, a key or the operator), what, when, from where. */
export class Migration20261125100000AccountAuditEvents extends Migration {
  override up(): void {
    this.addSql(`
      create table "cv"."audit_events" (
        "id" bigserial primary key,
        "account_id" bigint not null references "cv"."accounts" ("id") on delete cascade,
        "actor_type" text not null check ("actor_type" in ('user', 'key', 'operator')),
        "actor_id" bigint null,
        "action" text not null,
        "target" text not null,
        "details" jsonb not null default '{}',
        "client_address" text null,
        "created_at" timestamptz not null default now()
      );`);
    this.addSql('create index "audit_events_account" on "cv"."audit_events" ("account_id", "id" desc);');
  }

  override down(): void {
    this.addSql('drop table if exists "cv"."audit_events";');
  }
}
