import { Migration } from '@mikro-orm/migrations';

/**
 * Webhook endpoints, their deliveries and every attempt, and the one SMS of a ticket; plus a wake-up
 * for the outbox relay whenever an outbox row commits.
 */
export class Migration20261121200000WebhooksAndSms extends Migration {
  override up(): void {
    this.addSql(`
      create table "tickets"."webhook_endpoints" (
        "id" bigserial primary key,
        "venue_id" bigint not null references "tickets"."venues" ("id"),
        "url" text not null check (length("url") between 1 and 2048),
        "events" text[] not null check (cardinality("events") > 0),
        -- AES-256-GCM: 12-byte nonce, ciphertext, 16-byte tag; the key never touches the database.
        "secret_sealed" bytea not null,
        "created_at" timestamptz not null default now(),
        "updated_at" timestamptz not null default now(),
        "deleted_at" timestamptz null
      );`);
    this.addSql(
      'create index "webhook_endpoints_venue_index" on "tickets"."webhook_endpoints" ("venue_id") where "deleted_at" is null;',
    );
    this.addSql(`
      create table "tickets"."webhook_deliveries" (
        "id" bigserial primary key,
        "endpoint_id" bigint not null references "tickets"."webhook_endpoints" ("id"),
        "event_id" uuid not null,
        "event" text not null,
        -- The exact bytes sent on every attempt.
        "body" text not null,
        "status" text not null default 'pending' check ("status" in ('pending', 'delivering', 'succeeded', 'failed')),
        "attempts" integer not null default 0,
        "next_attempt_at" timestamptz not null default now(),
        "locked_until" timestamptz null,
        "created_at" timestamptz not null default now(),
        "updated_at" timestamptz not null default now(),
        unique ("endpoint_id", "event_id")
      );`);
    this.addSql(
      `create index "webhook_deliveries_due_index" on "tickets"."webhook_deliveries" ("next_attempt_at") where "status" in ('pending', 'delivering');`,
    );
    this.addSql(`
      create table "tickets"."webhook_attempts" (
        "id" bigserial primary key,
        "delivery_id" bigint not null references "tickets"."webhook_deliveries" ("id"),
        "attempt" integer not null,
        "started_at" timestamptz not null,
        "duration_ms" integer not null,
        "status_code" integer null,
        "error" text null
      );`);
    this.addSql(
      'create index "webhook_attempts_delivery_index" on "tickets"."webhook_attempts" ("delivery_id", "attempt");',
    );
    this.addSql(`
      create table "tickets"."sms_messages" (
        "id" bigserial primary key,
        -- One text per ticket, whatever retries, replicas or repeated moves do.
        "ticket_id" bigint not null unique references "tickets"."tickets" ("id"),
        "event_id" uuid not null,
        "to" text not null,
        "text" text not null,
        "status" text not null default 'pending' check ("status" in ('pending', 'sending', 'sent', 'failed', 'skipped')),
        "attempts" integer not null default 0,
        "next_attempt_at" timestamptz not null default now(),
        "locked_until" timestamptz null,
        "last_error" text null,
        "sent_at" timestamptz null,
        "created_at" timestamptz not null default now(),
        "updated_at" timestamptz not null default now()
      );`);
    this.addSql(
      `create index "sms_messages_due_index" on "tickets"."sms_messages" ("next_attempt_at") where "status" in ('pending', 'sending');`,
    );
    this.addSql(`
      create function "tickets"."notify_outbox"() returns trigger language plpgsql as $$
      begin
        perform pg_notify('tickets_outbox', '');
        return null;
      end $$;`);
    this.addSql(`
      create trigger "outbox_notify" after insert on "tickets"."outbox"
        for each statement execute function "tickets"."notify_outbox"();`);
  }

  override down(): void {
    this.addSql('drop trigger "outbox_notify" on "tickets"."outbox";');
    this.addSql('drop function "tickets"."notify_outbox"();');
    this.addSql('drop table "tickets"."sms_messages";');
    this.addSql('drop table "tickets"."webhook_attempts";');
    this.addSql('drop table "tickets"."webhook_deliveries";');
    this.addSql('drop table "tickets"."webhook_endpoints";');
  }
}
