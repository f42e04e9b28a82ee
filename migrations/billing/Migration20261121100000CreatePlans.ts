import { Migration } from '@mikro-orm/migrations';

export class Migration20261121100000CreatePlans extends Migration {
  override up(): void {
    this.addSql('create schema if not exists "billing";');
    this.addSql(`
      create table "billing"."plans" (
        "key" text primary key check ("key" ~ '^[a-z][a-z0-9_-]{0,31}$'),
        "name" text not null check (length("name") between 1 and 80),
        "product" text not null check ("product" in ('cv', 'tickets')),
        "monthly_price_iqd" integer not null check ("monthly_price_iqd" >= 0),
        "cv_limit" integer null check ("cv_limit" >= 0),
        "download_limit" integer null check ("download_limit" >= 0),
        "premium_templates" boolean not null default false,
        "watermark" boolean not null default false,
        "api_access" boolean not null default false,
        "sms" boolean not null default false,
        "sort_order" integer not null default 0,
        "created_at" timestamptz not null default now(),
        "updated_at" timestamptz not null default now(),
        -- Limits of one product never leak onto the other's plans.
        constraint "plans_ticket_fields_only_on_ticket_plans"
          check ("product" = 'tickets' or (not "api_access" and not "sms")),
        constraint "plans_cv_fields_only_on_cv_plans"
          check ("product" = 'cv' or ("cv_limit" is null and "download_limit" is null
                                      and not "premium_templates" and not "watermark"))
      );`);
  }

  override down(): void {
    this.addSql('drop table if exists "billing"."plans";');
  }
}
