import { ForbiddenError, NotFoundError, ValidationError } from '../../../common/errors';
import { say } from '../../../common/messages';
import { checkRangeOrder } from '../../../common/input.rules';
import type { TextLanguage } from '../../../common/language';
import { toTicketResource } from '../../../contracts/tickets/ticket.resource';
import {
  checkTicketExportLink,
  MAX_TICKET_EXPORT_DAYS,
  TICKET_EXPORT_LINK_SECONDS,
  ticketExportUrl,
  type PresentedTicketExportLink,
  type TicketExportLink,
} from '../../../contracts/tickets/ticket-export';
import { graphTicketOf } from '../events';
import type { VenueRoles } from '../venues';
import { ticketCsvHeader, ticketCsvLine } from './ticket-csv';
import type { TicketExportRepository } from './ticket-export.repository';

const DAY_MS = 86_400_000;

/**
 * Text written to the response at once. Kept well under V8's large-object size, so each chunk and
 * its encoded buffer die young and the heap stays flat; a whole batch as one string made the heap
 * grow by the file's size before the old generation was collected.
 */
const CHUNK_CHARACTERS = 32 * 1024;

/** Where links point and what signs them. */
export interface TicketExportSettings {
  publicBaseUrl: string;
  /** Signs every link. */
  internalSecret: string;
  /** Open a link: the signing secret and, during a rotation, the secondary one. */
  acceptedInternalSecrets: readonly string[];
}

/** A link that opened: what the file holds and what it is called. */
export interface OpenedTicketExport {
  link: TicketExportLink;
  fileName: string;
}

/** The range's rules, each naming the field at fault. */
export function checkExportRange(from: Date, to: Date): void {
  checkRangeOrder(from, to);
  const span = to.getTime() - from.getTime();
  if (span > MAX_TICKET_EXPORT_DAYS * DAY_MS) {
    throw new ValidationError({
      to: [say('exports.range_too_long', { max: MAX_TICKET_EXPORT_DAYS, days: Math.ceil(span / DAY_MS) })],
    });
  }
}

/** `tickets-<branch>-<from>-<to>.csv`, the instants without separators (safe in any file system). */
function fileNameOf(link: TicketExportLink): string {
  const compact = (iso: string) => iso.replace(/[-:]/g, '').replace(/\.\d{3}Z$/, 'Z');
  return `tickets-${link.branchId}-${compact(link.from)}-${compact(link.to)}.csv`;
}

/**
 * The accountants' export of a branch's tickets: a signed link for owners and managers, and the
 * file it opens, streamed at the reader's pace. The file's rows are the Ticket resource exactly
 * as REST reads and webhooks write it (toTicketResource), one line per ticket.
 */
export class TicketExportService {
  constructor(
    private readonly settings: TicketExportSettings,
    /** The roles of a person: the caller's when a link is made, the link's person when one is opened. */
    private readonly rolesOf: (userId: number | null) => VenueRoles,
  ) {}

  /**
   * A link to the branch's tickets created in [from, to): UNAUTHENTICATED without a signed-in
   * person, NOT_FOUND for a branch the caller is no member of, FORBIDDEN for staff, BAD_USER_INPUT
   * naming `to` for a range backwards or over MAX_TICKET_EXPORT_DAYS.
   */
  async link(
    roles: VenueRoles,
    branchId: string,
    range: { from: Date; to: Date },
    language: TextLanguage,
    nowMs: number = Date.now(),
  ): Promise<{ url: string; expiresAt: Date }> {
    const userId = roles.user();
    const branch = await roles.managedBranch(branchId);
    checkExportRange(range.from, range.to);
    const expires = Math.floor(nowMs / 1000) + TICKET_EXPORT_LINK_SECONDS;
    const url = ticketExportUrl(this.settings.publicBaseUrl, this.settings.internalSecret, {
      branchId: branch.id,
      from: range.from.toISOString(),
      to: range.to.toISOString(),
      userId,
      language,
      expires,
    });
    return { url, expiresAt: new Date(expires * 1000) };
  }

  /**
   * A presented link, when the platform signed it, its minute has not passed and its person still
   * manages the branch's venue (a role taken away since is refused at once); every opening is
   * kept in the venue's audit log as the person's, with the address that followed it.
   */
  async open(
    presented: PresentedTicketExportLink,
    clientAddress: string | null,
  ): Promise<OpenedTicketExport> {
    const verdict = checkTicketExportLink(this.settings.acceptedInternalSecrets, presented);
    if (!verdict.ok) {
      throw new ForbiddenError(
        say(verdict.reason === 'expired' ? 'exports.link_expired' : 'exports.link_invalid'),
      );
    }
    const link = verdict.link;
    const roles = this.rolesOf(link.userId);
    const branch = await roles.managedBranch(String(link.branchId)).catch((error: unknown) => {
      if (error instanceof NotFoundError || error instanceof ForbiddenError) {
        throw new ForbiddenError(say('exports.link_invalid'));
      }
      throw error;
    });
    await roles.auditAs(
      branch.venueId,
      { type: 'user', id: link.userId },
      'tickets.exported',
      `branch:${branch.id}`,
      { from: link.from, to: link.to },
      clientAddress,
    );
    return { link, fileName: fileNameOf(link) };
  }

  /**
   * Writes the file: the byte-order mark and header, then each batch of rows as one chunk,
   * waiting for `write` before reading the next batch. Answers how many tickets it wrote.
   */
  async stream(
    repository: TicketExportRepository,
    { link }: OpenedTicketExport,
    write: (chunk: string) => Promise<void>,
  ): Promise<number> {
    await write(ticketCsvHeader());
    return repository.eachBatch(
      { branchId: link.branchId, from: new Date(link.from), to: new Date(link.to) },
      async (tickets) => {
        let chunk = '';
        for (const ticket of tickets) {
          chunk += ticketCsvLine(
            toTicketResource(graphTicketOf(ticket, this.settings.publicBaseUrl, link.language)),
          );
          if (chunk.length >= CHUNK_CHARACTERS) {
            await write(chunk);
            chunk = '';
          }
        }
        if (chunk !== '') await write(chunk);
      },
    );
  }
}
