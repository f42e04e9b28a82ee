import { Migration } from '@mikro-orm/migrations';

/** Invitations to join a venue: mailed as a single-use link, redeemed by the invited address. */
export class Migration20261123210000VenueInvitations extends Migration {
  override up(): void {
    this.addSql(`
      create table "tickets"."venue_invitations" (
        "id" bigserial primary key,
        "venue_id" bigint not null references "tickets"."venues" ("id") on delete cascade,
        "email" text not null,
        "role" text not null check ("role" in ('OWNER', 'MANAGER', 'STAFF')),
        "token_hash" bytea not null unique,
        "invited_by_user_id" bigint not null,
        "expires_at" timestamptz not null,
        "accepted_at" timestamptz null,
        "accepted_by_user_id" bigint null,
        "created_at" timestamptz not null default now()
      );`);
  }

  override down(): void {
    this.addSql('drop table if exists "tickets"."venue_invitations";');
  }
}
