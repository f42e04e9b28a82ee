import { Migration } from '@mikro-orm/migrations';

/**
 * A number prefix names one board device among its branch's devices not revoked: the prefix of
 * the numbers a board offers once its lease of numbers has run out offline, which must never be
 * another board's. Built CONCURRENTLY, so the keys table keeps taking writes while it builds; that
 * cannot run in a transaction, so this migration runs outside one. `if not exists` lets a run that
 * stopped part way run again (an invalid index a failed build left is dropped by hand first).
 */
export class Migration20261128110000BoardPrefixIndex extends Migration {
  override isTransactional(): boolean {
    return false;
  }

  override up(): void {
    this.addSql(
      `create unique index concurrently if not exists "api_keys_board_prefix_unique"
         on "tickets"."api_keys" ("branch_id", "number_prefix")
         where "kind" = 'board' and "revoked_at" is null and "number_prefix" is not null;`,
    );
  }

  override down(): void {
    this.addSql('drop index concurrently if exists "tickets"."api_keys_board_prefix_unique";');
  }
}
