import { Migration } from '@mikro-orm/migrations';

/**
 * The venue's threshold past which a staff board highlights the wait (`Venue.waitAlertMinutes`);
 * the index the wait reads is the next migration's, built outside a transaction.
 */
export class Migration20261127200000WaitAndEstimate extends Migration {
  override up(): void {
    this.addSql(
      `alter table "tickets"."venues" add column "wait_alert_minutes" integer not null default 15
         constraint "venues_wait_alert_minutes_check" check ("wait_alert_minutes" between 1 and 240);`,
    );
  }

  override down(): void {
    this.addSql('alter table "tickets"."venues" drop column "wait_alert_minutes";');
  }
}
