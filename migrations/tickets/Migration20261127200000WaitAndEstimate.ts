import { Migration } from '@mikro-orm/migrations';

/**
 * What the live wait and the customer's estimate read on every page load and board change: a
 * branch's most recent ready tickets, and its waiting tickets in the order they came. Both are
 * partial, so a ticket's create writes one small entry (waiting) and its ready another; and the
 * venue's threshold past which a board highlights the wait.
 */
export class Migration20261127200000WaitAndEstimate extends Migration {
  override up(): void {
    this.addSql(
      `alter table "tickets"."venues" add column "wait_alert_minutes" integer not null default 15
         constraint "venues_wait_alert_minutes_check" check ("wait_alert_minutes" between 1 and 240);`,
    );
    this.addSql(
      `create index "tickets_branch_ready_index" on "tickets"."tickets" ("branch_id", "ready_at" desc)
         where "ready_at" is not null;`,
    );
    this.addSql(
      `create index "tickets_branch_waiting_index" on "tickets"."tickets" ("branch_id", "created_at", "id")
         where "status" = 'waiting';`,
    );
  }

  override down(): void {
    this.addSql('drop index "tickets"."tickets_branch_waiting_index";');
    this.addSql('drop index "tickets"."tickets_branch_ready_index";');
    this.addSql('alter table "tickets"."venues" drop column "wait_alert_minutes";');
  }
}
