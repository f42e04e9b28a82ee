import { Migration } from '@mikro-orm/migrations';

/**
 * Changes to a person's sign-in: sessions ended (by the person or by the operator), password
 * changed or reset, email verified. Who, what, when and from where; never a token or a password.
 */
export class Migration20261125100000UserAuditEvents extends Migration {
  override up(): void {
    this.addSql(`
      create table "identity"."audit_events" (
        "id" bigserial primary key,
        "user_id" bigint not null references "identity"."users" ("id") on delete cascade,
        "actor_type" text not null check ("actor_type" in ('user', 'key', 'operator')),
        "actor_id" bigint null,
        "action" text not null,
        "target" text not null,
        "details" jsonb not null default '{}',
        "client_address" text null,
        "created_at" timestamptz not null default now()
      );`);
    this.addSql('create index "audit_events_user" on "identity"."audit_events" ("user_id", "id" desc);');
  }

  override down(): void {
    this.addSql('drop table if exists "identity"."audit_events";');
  }
}
