import { Migration } from '@mikro-orm/migrations';

const TABLES = ['outbox', 'webhook_deliveries', 'sms_messages', 'push_messages'] as const;

/**
 * Each event keeps the W3C `traceparent` of the change that caused it, and each delivery row that
 * of the relay that wrote it: a webhook, a text or a push sent seconds or retries later is a span
 * of the trace of the POS request behind it. Null when that change was not traced.
 */
export class Migration20261126100000TraceContext extends Migration {
  override up(): void {
    for (const table of TABLES) {
      this.addSql(`alter table "tickets"."${table}" add column "traceparent" text null;`);
    }
  }

  override down(): void {
    for (const table of TABLES) {
      this.addSql(`alter table "tickets"."${table}" drop column if exists "traceparent";`);
    }
  }
}
