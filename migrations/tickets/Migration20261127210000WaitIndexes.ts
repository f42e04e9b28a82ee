import { Migration } from '@mikro-orm/migrations';

/**
 * What the live wait and the customer's estimate read on every board change and page load: a
 * branch's waiting tickets in the order they came, however many tickets it has had, and however
 * many were left ready and never marked collected (the open tickets' index holds those too).
 *
 * Built CONCURRENTLY, so a table of millions of rows keeps taking writes while they build; that
 * cannot run in a transaction, so this migration runs outside one (and alone: a statement each).
 * `if not exists` lets a run that stopped part way run again; an index a failed concurrent build
 * left invalid shows in `\d tickets.tickets` and is dropped by hand before running it again.
 */
export class Migration20261127210000WaitIndexes extends Migration {
  override isTransactional(): boolean {
    return false;
  }

  override up(): void {
    this.addSql(
      `create index concurrently if not exists "tickets_branch_waiting_index"
         on "tickets"."tickets" ("branch_id", "created_at", "id") where "status" = 'waiting';`,
    );
  }

  override down(): void {
    this.addSql('drop index concurrently if exists "tickets"."tickets_branch_waiting_index";');
  }
}
