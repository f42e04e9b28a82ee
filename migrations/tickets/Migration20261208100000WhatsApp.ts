import { Migration } from '@mikro-orm/migrations';

/**
 * The ready alert on WhatsApp (issue 55). A venue turns it on; each ticket gets a code for the
 * customer's prefilled message (set when its page first offers the link, so old tickets cost
 * nothing); a customer's chat (`wa_id`) is linked to the tickets whose code it sent; every message
 * we send or try is one row of the delivery log, keyed so that one alert is never sent twice; each
 * message and status Meta posts is recorded once by its id, as Meta resends. The codes' uniqueness
 * is the next migration's index, built outside a transaction.
 */
export class Migration20261208100000WhatsApp extends Migration {
  override up(): void {
    this.addSql(`
      alter table "tickets"."venues" add column "whatsapp_enabled" boolean not null default false;`);
    this.addSql(`
      alter table "tickets"."tickets" add column "whatsapp_code" text null;`);
    this.addSql(`
      create table "tickets"."whatsapp_contacts" (
        "wa_id" text primary key,
        -- The customer's last message: Meta lets us write freely for 24 hours after it.
        "last_inbound_at" timestamptz null,
        -- The last "send the code from your receipt" answer: at most one an hour.
        "last_help_at" timestamptz null,
        "created_at" timestamptz not null default now()
      );`);
    this.addSql(`
      create table "tickets"."whatsapp_links" (
        "ticket_id" bigint not null references "tickets"."tickets" ("id"),
        "wa_id" text not null references "tickets"."whatsapp_contacts" ("wa_id"),
        "linked_at" timestamptz not null default now(),
        -- "stop" unlinks a chat from every ticket: nothing more is sent to it for them.
        "unlinked_at" timestamptz null,
        primary key ("ticket_id", "wa_id")
      );`);
    this.addSql('create index "whatsapp_links_wa_id_index" on "tickets"."whatsapp_links" ("wa_id");');
    this.addSql(`
      create table "tickets"."whatsapp_messages" (
        "id" bigserial primary key,
        "wa_id" text not null,
        "ticket_id" bigint null references "tickets"."tickets" ("id"),
        -- ready and ring alerts; confirm, help and stop answer the customer's own messages.
        "kind" text not null check ("kind" in ('ready', 'ring', 'confirm', 'help', 'stop')),
        -- What the message answers: the outbox event of an alert, the inbound message id of a reply.
        "cause" text not null,
        "template" boolean not null default false,
        "status" text not null default 'pending'
          check ("status" in ('pending', 'sending', 'sent', 'delivered', 'read', 'failed', 'refused')),
        -- Meta's id for the message (wamid), which its statuses name.
        "message_id" text null unique,
        "attempts" integer not null default 0,
        "error" text null,
        "created_at" timestamptz not null default now(),
        "updated_at" timestamptz not null default now(),
        unique ("cause", "wa_id", "kind")
      );`);
    this.addSql(
      'create index "whatsapp_messages_ticket_index" on "tickets"."whatsapp_messages" ("ticket_id") where "ticket_id" is not null;',
    );
    this.addSql(`
      create table "tickets"."whatsapp_inbound" (
        -- A message's id, or a status's message id and status: what Meta resends is seen once.
        "id" text primary key,
        "received_at" timestamptz not null default now()
      );`);
  }

  override down(): void {
    this.addSql('drop table if exists "tickets"."whatsapp_inbound";');
    this.addSql('drop table if exists "tickets"."whatsapp_messages";');
    this.addSql('drop table if exists "tickets"."whatsapp_links";');
    this.addSql('drop table if exists "tickets"."whatsapp_contacts";');
    this.addSql('alter table "tickets"."tickets" drop column "whatsapp_code";');
    this.addSql('alter table "tickets"."venues" drop column "whatsapp_enabled";');
  }
}
