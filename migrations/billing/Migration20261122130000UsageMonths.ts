import { Migration } from '@mikro-orm/migrations';

/** Metered use per subject and calendar month (UTC): PDF and HTML exports of CV accounts. */
export class Migration20261122130000UsageMonths extends Migration {
  override up(): void {
    this.addSql(`
      create table "billing"."usage_months" (
        "subject_type" text not null check ("subject_type" in ('venue', 'account')),
        "subject_id" bigint not null,
        -- The first day of the month; a new month starts a new row, which is the monthly reset.
        "month" date not null,
        "downloads" integer not null default 0 check ("downloads" >= 0),
        primary key ("subject_type", "subject_id", "month")
      );`);
  }

  override down(): void {
    this.addSql('drop table if exists "billing"."usage_months";');
  }
}
