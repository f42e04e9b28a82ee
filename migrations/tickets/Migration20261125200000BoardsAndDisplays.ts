import { Migration } from '@mikro-orm/migrations';

/**
 * Venue boards. A board device is a branch key of kind `board`: a credential for ticket work at
 * one branch, paired from a short code rather than pasted, and not gated by the plan's API access
 * (the board is the product itself). A display reads a branch's numbers by its own token.
 */
export class Migration20261125200000BoardsAndDisplays extends Migration {
  override up(): void {
    this.addSql(`
      alter table "tickets"."api_keys"
        add column "kind" text not null default 'integration' check ("kind" in ('integration', 'board')),
        add column "paired_at" timestamptz null;`);
    this.addSql(`
      create table "tickets"."board_pairings" (
        "id" bigserial primary key,
        "api_key_id" bigint not null references "tickets"."api_keys" ("id") on delete cascade,
        "code_hash" bytea not null unique,
        "expires_at" timestamptz not null,
        "used_at" timestamptz null,
        "created_at" timestamptz not null default now()
      );`);
    this.addSql(`
      create table "tickets"."displays" (
        "id" bigserial primary key,
        "branch_id" bigint not null references "tickets"."branches" ("id") on delete cascade,
        "name" text not null,
        "language" text not null check ("language" in ('ar', 'en')),
        "chime" boolean not null default true,
        "speech" boolean not null default true,
        "ready_minutes" integer not null default 10 check ("ready_minutes" between 1 and 240),
        "token_hash" bytea not null unique,
        "created_by_user_id" bigint null,
        "last_seen_at" timestamptz null,
        "revoked_at" timestamptz null,
        "created_at" timestamptz not null default now()
      );`);
    this.addSql('create index "displays_branch" on "tickets"."displays" ("branch_id");');
  }

  override down(): void {
    this.addSql('drop table if exists "tickets"."displays";');
    this.addSql('drop table if exists "tickets"."board_pairings";');
    this.addSql('alter table "tickets"."api_keys" drop column "paired_at", drop column "kind";');
  }
}
