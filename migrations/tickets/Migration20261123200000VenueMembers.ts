import { Migration } from '@mikro-orm/migrations';

/**
 * The people of a venue and their roles. `user_id` names a user of the identity subgraph, which
 * owns another schema: no foreign key crosses schemas, the graph joins them.
 */
export class Migration20261123200000VenueMembers extends Migration {
  override up(): void {
    this.addSql(`
      create table "tickets"."venue_members" (
        "venue_id" bigint not null references "tickets"."venues" ("id") on delete cascade,
        "user_id" bigint not null,
        "role" text not null check ("role" in ('OWNER', 'MANAGER', 'STAFF')),
        "created_at" timestamptz not null default now(),
        primary key ("venue_id", "user_id")
      );`);
    this.addSql('create index "venue_members_user" on "tickets"."venue_members" ("user_id");');
    this.addSql('alter table "tickets"."api_keys" add column "created_by_user_id" bigint null;');
  }

  override down(): void {
    this.addSql('alter table "tickets"."api_keys" drop column if exists "created_by_user_id";');
    this.addSql('drop table if exists "tickets"."venue_members";');
  }
}
