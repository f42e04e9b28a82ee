import { Migration } from '@mikro-orm/migrations';

/** The cv subgraph owns this Postgres schema; its tables arrive with its domain. */
export class Migration20261121100000CreateSchema extends Migration {
  override up(): void {
    this.addSql('create schema if not exists "cv";');
  }

  override down(): void {
    this.addSql('drop schema if exists "cv";');
  }
}
