import { Migration } from '@mikro-orm/migrations';

/** Venues, branches, API keys, tickets, the event outbox and idempotency records. */
export class Migration20261121120000TicketsDomain extends Migration {
  override up(): void {
    this.createVenues();
    this.createApiKeys();
    this.createTickets();
    this.createOutbox();
    this.createIdempotencyKeys();
  }

  // The parts of up(), in its order; they sit between up() and down() because
  // tools/migration-policy.ts reads as up() everything from it to down().

  /** A venue and its branches, each branch with its own ticket numbers. */
  private createVenues(): void {
    this.addSql(`
      create table "tickets"."venues" (
        "id" bigserial primary key,
        "name" text not null check (length("name") between 1 and 120),
        "language" text not null default 'ar' check ("language" in ('ar', 'en')),
        "timezone" text not null default 'Asia/Baghdad',
        "sms_enabled" boolean not null default false,
        "created_at" timestamptz not null default now(),
        "updated_at" timestamptz not null default now()
      );`);
    this.addSql(`
      create table "tickets"."branches" (
        "id" bigserial primary key,
        "venue_id" bigint not null references "tickets"."venues" ("id"),
        "name" text not null check (length("name") between 1 and 120),
        -- The day (in the venue's timezone) the counter belongs to; a new day starts again at 1.
        "number_day" date null,
        "number_counter" integer not null default 0 check ("number_counter" >= 0),
        "created_at" timestamptz not null default now(),
        "updated_at" timestamptz not null default now()
      );`);
    this.addSql('create index "branches_venue_id_index" on "tickets"."branches" ("venue_id");');
  }

  /** The branches' API keys, stored as hashes. */
  private createApiKeys(): void {
    this.addSql(`
      create table "tickets"."api_keys" (
        "id" bigserial primary key,
        "branch_id" bigint not null references "tickets"."branches" ("id"),
        "name" text not null check (length("name") between 1 and 120),
        "scopes" text[] not null check ("scopes" <@ array['tickets:read', 'tickets:write'] and cardinality("scopes") > 0),
        "prefix" text not null,
        "key_hash" bytea not null unique,
        "last_used_at" timestamptz null,
        "revoked_at" timestamptz null,
        "created_at" timestamptz not null default now()
      );`);
  }

  /** The tickets, at most one open ticket per number and per order id of a branch. */
  private createTickets(): void {
    this.addSql(`
      create table "tickets"."tickets" (
        "id" bigserial primary key,
        "branch_id" bigint not null references "tickets"."branches" ("id"),
        "number" text not null check (length("number") between 1 and 20),
        "external_id" text null check (length("external_id") between 1 and 100),
        "token" text not null unique check (length("token") = 32),
        "status" text not null default 'waiting' check ("status" in ('waiting', 'ready', 'collected', 'cancelled')),
        "customer_name" text null check (length("customer_name") <= 80),
        "customer_phone" text null check ("customer_phone" ~ '^\\+9647[0-9]{9}$'),
        "note" text null check (length("note") <= 255),
        "source" smallint not null default 1,
        "ring_count" integer not null default 0 check ("ring_count" >= 0),
        "last_alert_at" timestamptz null,
        "phone_linked" boolean not null default false,
        "alerts_enabled" boolean not null default false,
        "sms_opt_in" boolean not null default false,
        "sms_sent" boolean not null default false,
        "linked_at" timestamptz null,
        "ready_at" timestamptz null,
        "collected_at" timestamptz null,
        "cancelled_at" timestamptz null,
        "created_at" timestamptz not null default now(),
        "updated_at" timestamptz not null default now()
      );`);
    // A number or an order id names one open ticket of a branch at a time; closed ones may repeat.
    this
      .addSql(`create unique index "tickets_open_number_unique" on "tickets"."tickets" ("branch_id", "number")
      where "status" in ('waiting', 'ready');`);
    this
      .addSql(`create unique index "tickets_open_external_id_unique" on "tickets"."tickets" ("branch_id", "external_id")
      where "status" in ('waiting', 'ready') and "external_id" is not null;`);
    this.addSql(
      'create index "tickets_branch_created_index" on "tickets"."tickets" ("branch_id", "created_at" desc, "id" desc);',
    );
    this.addSql(
      'create index "tickets_branch_external_index" on "tickets"."tickets" ("branch_id", "external_id", "id" desc);',
    );
  }

  /** The outbox: each event written in the transaction of its change. */
  private createOutbox(): void {
    this.addSql(`
      create table "tickets"."outbox" (
        "id" bigserial primary key,
        "event_id" uuid not null unique,
        "event" text not null,
        "venue_id" bigint not null,
        "ticket_id" bigint null,
        "payload" jsonb not null,
        "created_at" timestamptz not null default now(),
        "published_at" timestamptz null
      );`);
    this.addSql(
      'create index "outbox_unpublished_index" on "tickets"."outbox" ("id") where "published_at" is null;',
    );
  }

  /** The Idempotency-Key records of ticket creation. */
  private createIdempotencyKeys(): void {
    this.addSql(`
      create table "tickets"."idempotency_keys" (
        "branch_id" bigint not null references "tickets"."branches" ("id"),
        "key" text not null check (length("key") between 1 and 255),
        "request_hash" text not null,
        "ticket_id" bigint null references "tickets"."tickets" ("id"),
        "started_at" timestamptz not null default now(),
        "completed_at" timestamptz null,
        "expires_at" timestamptz not null,
        primary key ("branch_id", "key")
      );`);
    this.addSql(
      'create index "idempotency_keys_expires_index" on "tickets"."idempotency_keys" ("expires_at");',
    );
  }

  override down(): void {
    for (const table of ['idempotency_keys', 'outbox', 'tickets', 'api_keys', 'branches', 'venues']) {
      this.addSql(`drop table if exists "tickets"."${table}";`);
    }
  }
}
