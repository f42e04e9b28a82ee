import { Migration } from '@mikro-orm/migrations';

/** Every management change of a venue: who (a person, a key or the operator), what, when, from where. */
export class Migration20261123220000AuditEvents extends Migration {
  override up(): void {
    this.addSql(`
      create table "tickets"."audit_events" (
        "id" bigserial primary key,
        "venue_id" bigint not null references "tickets"."venues" ("id") on delete cascade,
        "actor_type" text not null check ("actor_type" in ('user', 'key', 'operator')),
        "actor_id" bigint null,
        "action" text not null,
        "target" text not null,
        "details" jsonb not null default '{}',
        "client_address" text null,
        "created_at" timestamptz not null default now()
      );`);
    this.addSql('create index "audit_events_venue" on "tickets"."audit_events" ("venue_id", "id" desc);');
  }

  override down(): void {
    this.addSql('drop table if exists "tickets"."audit_events";');
  }
}
