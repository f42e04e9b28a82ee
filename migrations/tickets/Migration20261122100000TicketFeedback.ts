import { Migration } from '@mikro-orm/migrations';

/** The customer's one rating of a collected ticket, given on the ticket's page. */
export class Migration20261122100000TicketFeedback extends Migration {
  override up(): void {
    this.addSql(`
      create table "tickets"."ticket_feedback" (
        -- One per ticket: the primary key is the ticket's, so a second submission cannot be written.
        "ticket_id" bigint primary key references "tickets"."tickets" ("id"),
        "rating" smallint not null check ("rating" between 1 and 5),
        "comment" text null check (length("comment") <= 500),
        "created_at" timestamptz not null default now()
      );`);
  }

  override down(): void {
    this.addSql('drop table if exists "tickets"."ticket_feedback";');
  }
}
