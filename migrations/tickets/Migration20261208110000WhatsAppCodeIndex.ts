import { Migration } from '@mikro-orm/migrations';

/**
 * A ticket's WhatsApp code names one ticket: the customer's message is matched by it. Built
 * CONCURRENTLY, so the tickets table keeps taking writes while it builds; that cannot run in a
 * transaction, so this migration runs outside one. `if not exists` lets a run that stopped part way
 * run again (an invalid index a failed build left is dropped by hand first).
 */
export class Migration20261208110000WhatsAppCodeIndex extends Migration {
  override isTransactional(): boolean {
    return false;
  }

  override up(): void {
    this.addSql(
      `create unique index concurrently if not exists "tickets_whatsapp_code_unique"
         on "tickets"."tickets" ("whatsapp_code") where "whatsapp_code" is not null;`,
    );
  }

  override down(): void {
    this.addSql('drop index concurrently if exists "tickets"."tickets_whatsapp_code_unique";');
  }
}
