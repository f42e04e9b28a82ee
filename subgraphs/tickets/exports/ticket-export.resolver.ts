import { Arg, Field, ID, ObjectType, Query, Resolver } from 'type-graphql';
import { Cost } from '../../../common/cost.graphql';
import type { TextLanguage } from '../../../common/language';
import { MAX_TICKET_EXPORT_DAYS, TICKET_EXPORT_LINK_SECONDS } from '../../../contracts/tickets/ticket-export';
import type { VenueRoles } from '../venues';
import type { TicketExportService } from './ticket-export.service';

@ObjectType('TicketsCsvExport', {
  description:
    'A download link for a branch’s tickets as CSV, for a browser to follow; it needs no credential.',
})
export class TicketsCsvExportType {
  @Field(() => String, {
    description:
      'The CSV file (UTF-8 with a byte-order mark; one line per ticket, the Ticket resource’s fields as columns), signed. Each download is kept in the venue’s audit log.',
  })
  url!: string;

  @Field(() => Date, {
    description: `When the link stops opening: ${TICKET_EXPORT_LINK_SECONDS} seconds after it was made (a download under way goes on).`,
  })
  expiresAt!: Date;
}

/** The accountants' export: a signed link to the CSV of a branch's tickets. */
@Resolver()
export class TicketExportResolver {
  constructor(
    private readonly exports: TicketExportService,
    private readonly roles: VenueRoles,
    private readonly language: TextLanguage,
  ) {}

  // Making the link is one role check, but following it reads up to a year of a branch's
  // tickets: weighed as a CV render is, so one operation cannot ask for many at once.
  @Cost(100)
  @Query(() => TicketsCsvExportType, {
    description: `A signed link, valid ${TICKET_EXPORT_LINK_SECONDS} seconds, to a CSV of the branch’s tickets created in [from, to), oldest first; status_text and source_text in the request’s language. Owners and managers; staff FORBIDDEN; keys, board devices and displays UNAUTHENTICATED; strangers NOT_FOUND. BAD_USER_INPUT on to when the range is backwards or longer than ${MAX_TICKET_EXPORT_DAYS} days.`,
  })
  exportTicketsCsv(
    @Arg('branchId', () => ID, { description: 'The branch whose tickets the file holds.' }) branchId: string,
    @Arg('from', () => Date, { description: 'The first instant included (by created_at).' }) from: Date,
    @Arg('to', () => Date, { description: 'The first instant not included.' }) to: Date,
  ): Promise<TicketsCsvExportType> {
    return this.exports.link(this.roles, branchId, { from, to }, this.language);
  }
}
