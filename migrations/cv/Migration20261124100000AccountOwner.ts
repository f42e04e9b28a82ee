import { Migration } from '@mikro-orm/migrations';

/**
 * A CV account may belong to a signed-in person (an identity user; no foreign key, since that
 * table is the identity subgraph's). One account per person. A person's account carries the
 * person's own email, which an account the operator made may already use, so the email stays
 * unique only among the operator's accounts.
 */
export class Migration20261124100000AccountOwner extends Migration {
  override up(): void {
    this.addSql('alter table "cv"."accounts" add column "user_id" bigint null unique;');
    this.addSql('drop index "cv"."accounts_email_unique";');
    this.addSql(
      'create unique index "accounts_email_unique" on "cv"."accounts" (lower("email")) where "user_id" is null;',
    );
  }

  override down(): void {
    this.addSql('drop index "cv"."accounts_email_unique";');
    this.addSql('create unique index "accounts_email_unique" on "cv"."accounts" (lower("email"));');
    this.addSql('alter table "cv"."accounts" drop column "user_id";');
  }
}
