import { Migration } from '@mikro-orm/migrations';

/** People who sign in, their sessions, and the single-use tokens mailed to them. */
export class Migration20261123100000IdentitySchema extends Migration {
  override up(): void {
    this.addSql('create schema if not exists "identity";');
    this.addSql(`
      create table "identity"."users" (
        "id" bigserial primary key,
        "email" text not null check (length("email") between 3 and 254),
        "name" text not null check (length("name") between 1 and 120),
        "language" text not null default 'ar' check ("language" in ('ar', 'en')),
        "password_hash" text not null,
        "verified_at" timestamptz null,
        "created_at" timestamptz not null default now(),
        "updated_at" timestamptz not null default now()
      );`);
    // One person per address, however they capitalise it.
    this.addSql('create unique index "users_email_lower" on "identity"."users" (lower("email"));');
    this.addSql(`
      create table "identity"."sessions" (
        "id" bigserial primary key,
        "user_id" bigint not null references "identity"."users" ("id") on delete cascade,
        "token_hash" bytea not null unique,
        "device" text not null default '',
        "created_at" timestamptz not null default now(),
        "last_seen_at" timestamptz not null default now(),
        "expires_at" timestamptz not null,
        "revoked_at" timestamptz null
      );`);
    this.addSql(
      'create index "sessions_user" on "identity"."sessions" ("user_id") where "revoked_at" is null;',
    );
    this.addSql(`
      create table "identity"."one_time_tokens" (
        "id" bigserial primary key,
        "user_id" bigint not null references "identity"."users" ("id") on delete cascade,
        "kind" text not null check ("kind" in ('verify', 'reset')),
        "token_hash" bytea not null unique,
        "expires_at" timestamptz not null,
        "used_at" timestamptz null,
        "created_at" timestamptz not null default now()
      );`);
  }

  override down(): void {
    this.addSql('drop schema if exists "identity" cascade;');
  }
}
