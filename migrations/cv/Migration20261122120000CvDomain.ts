import { Migration } from '@mikro-orm/migrations';

/**
 * The CV domain: companies, accounts with hashed API keys, platform and company templates, and
 * CVs addressed by UUID whose section items are rows of their own.
 */
export class Migration20261122120000CvDomain extends Migration {
  override up(): void {
    this.addSql(`
      create table "cv"."companies" (
        "id" bigserial primary key,
        "name" text not null check (length("name") between 1 and 255),
        "created_at" timestamptz not null default now()
      );`);
    this.addSql(`
      create table "cv"."accounts" (
        "id" bigserial primary key,
        "name" text not null check (length("name") between 1 and 255),
        "email" text not null check (length("email") between 3 and 255),
        "company_id" bigint null references "cv"."companies" ("id"),
        "created_at" timestamptz not null default now(),
        "updated_at" timestamptz not null default now()
      );`);
    this.addSql('create unique index "accounts_email_unique" on "cv"."accounts" (lower("email"));');
    this.addSql(`
      create table "cv"."account_api_keys" (
        "id" bigserial primary key,
        "account_id" bigint not null references "cv"."accounts" ("id"),
        "name" text not null check (length("name") between 1 and 255),
        "prefix" text not null,
        "key_hash" bytea not null unique,
        "last_used_at" timestamptz null,
        "revoked_at" timestamptz null,
        "created_at" timestamptz not null default now()
      );`);
    this.addSql(`
      create table "cv"."templates" (
        "id" bigserial primary key,
        -- Null for the platform's own templates, which every account may use.
        "company_id" bigint null references "cv"."companies" ("id"),
        "slug" text not null check ("slug" ~ '^[a-z0-9]+(-[a-z0-9]+)*$' and length("slug") <= 64),
        "name" text not null check (length("name") between 1 and 255),
        "description" text not null default '',
        "category" text not null,
        "layout" text not null,
        "is_premium" boolean not null default false,
        "default_settings" jsonb not null default '{}',
        "created_at" timestamptz not null default now()
      );`);
    this.addSql(
      'create unique index "templates_platform_slug" on "cv"."templates" ("slug") where "company_id" is null;',
    );
    this.addSql(
      'create unique index "templates_company_slug" on "cv"."templates" ("company_id", "slug") where "company_id" is not null;',
    );
    this.addSql(`
      create table "cv"."cvs" (
        "id" uuid primary key,
        "account_id" bigint not null references "cv"."accounts" ("id"),
        "template_id" bigint not null references "cv"."templates" ("id"),
        "title" text not null check (length("title") between 1 and 255),
        "locale" text not null check ("locale" in ('ar', 'en')),
        "personal" jsonb not null default '{}',
        "settings" jsonb not null default '{}',
        "section_order" text[] not null default '{}',
        "hidden_sections" text[] not null default '{}',
        "custom_sections" jsonb not null default '[]',
        "photo" bytea null,
        "photo_type" text null,
        "share_token" text not null unique,
        "created_at" timestamptz not null default now(),
        "updated_at" timestamptz not null default now()
      );`);
    this.addSql('create index "cvs_account_newest" on "cv"."cvs" ("account_id", "created_at" desc);');
    this.addSql(`
      create table "cv"."cv_items" (
        "id" bigserial primary key,
        "cv_id" uuid not null references "cv"."cvs" ("id") on delete cascade,
        "section" text not null,
        "position" integer not null check ("position" >= 0),
        "fields" jsonb not null,
        unique ("cv_id", "section", "position")
      );`);
  }

  override down(): void {
    for (const table of ['cv_items', 'cvs', 'templates', 'account_api_keys', 'accounts', 'companies']) {
      this.addSql(`drop table if exists "cv"."${table}";`);
    }
  }
}
