import { Migration } from '@mikro-orm/migrations';

/** Web Push: the browsers that asked to be notified about a ticket, and each notification sent. */
export class Migration20261122110000PushSubscriptions extends Migration {
  override up(): void {
    this.addSql(`
      create table "tickets"."push_subscriptions" (
        "id" bigserial primary key,
        "ticket_id" bigint not null references "tickets"."tickets" ("id"),
        "endpoint" text not null check (length("endpoint") between 1 and 2048),
        "p256dh" text not null,
        "auth" text not null,
        "created_at" timestamptz not null default now(),
        unique ("ticket_id", "endpoint")
      );`);
    this.addSql(`
      create table "tickets"."push_messages" (
        "id" bigserial primary key,
        -- A subscription the push service calls gone (404, 410) is deleted with its messages.
        "subscription_id" bigint not null references "tickets"."push_subscriptions" ("id") on delete cascade,
        "event_id" uuid not null,
        "title" text not null,
        "body" text not null,
        "status" text not null default 'pending' check ("status" in ('pending', 'sending', 'sent', 'failed')),
        "attempts" integer not null default 0,
        "next_attempt_at" timestamptz not null default now(),
        "locked_until" timestamptz null,
        "last_error" text null,
        "sent_at" timestamptz null,
        "created_at" timestamptz not null default now(),
        "updated_at" timestamptz not null default now(),
        unique ("subscription_id", "event_id")
      );`);
    this.addSql(
      `create index "push_messages_due_index" on "tickets"."push_messages" ("next_attempt_at") where "status" = 'pending';`,
    );
  }

  override down(): void {
    this.addSql('drop table if exists "tickets"."push_messages";');
    this.addSql('drop table if exists "tickets"."push_subscriptions";');
  }
}
