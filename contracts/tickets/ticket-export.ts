import { createHmac, timingSafeEqual } from 'node:crypto';
import { ticketResource } from './ticket.resource';

/**
 * The accountants' CSV of a branch's tickets (`exportTicketsCsv` on the graph): what the tickets
 * subgraph (which signs the link, checks it and streams the rows) and the REST adapter (which
 * serves the link's public path and passes the stream through) agree on.
 */

/** How long a link works: long enough for a browser to follow it, too short to pass around. */
export const TICKET_EXPORT_LINK_SECONDS = 60;

/** The longest range one export covers: a year and a day, so any calendar year fits. */
export const MAX_TICKET_EXPORT_DAYS = 366;

/** The link's public path on the REST adapter; no REST document describes it. */
export const TICKET_EXPORT_PATH = '/exports/tickets.csv';

/** The tickets subgraph's own path that streams the file; only the platform's credential opens it. */
export const TICKET_EXPORT_INTERNAL_PATH = '/internal/ticket-exports.csv';

/** Exports one tickets process streams at once; each holds a database connection while it runs. */
export const MAX_CONCURRENT_TICKET_EXPORTS = 2;

/** The CSV's columns, in order: the Ticket resource's fields as REST reads and webhooks name them. */
export const TICKET_CSV_COLUMNS = Object.keys(
  ticketResource.shape,
) as readonly (keyof typeof ticketResource.shape)[];

/** The two languages the file's status_text and source_text are in. */
export type TicketExportLanguage = 'en' | 'ar';

/** What a link grants: one branch's tickets created in [from, to), for a person, until `expires`. */
export interface TicketExportLink {
  branchId: number;
  /** ISO 8601 instants, as `Date#toISOString` writes them. */
  from: string;
  to: string;
  /** The signed-in person who asked; the export is theirs in the audit log, and their role is asked again. */
  userId: number;
  language: TicketExportLanguage;
  /** Unix time in seconds after which the link is refused. */
  expires: number;
}

/** The link's query values, by name; the adapter passes exactly these through. */
export const TICKET_EXPORT_PARAMS = ['branch', 'from', 'to', 'user', 'lang', 'expires', 'signature'] as const;
export type PresentedTicketExportLink = Partial<Record<(typeof TICKET_EXPORT_PARAMS)[number], string>>;

export type TicketExportVerdict =
  { ok: true; link: TicketExportLink } | { ok: false; reason: 'invalid' | 'expired' };

/** Processes' clocks may differ this much; beyond it a link's expiry is not one a signer set. */
const CLOCK_SKEW_SECONDS = 5;

/** The links' own key, derived from INTERNAL_SECRET (as the CV export links', under another label). */
function linkKey(internalSecret: string): Buffer {
  return createHmac('sha256', internalSecret).update('ticket-export-link/v1').digest();
}

/** base64url HMAC-SHA256 of every value the link carries, one a line. */
export function signTicketExportLink(internalSecret: string, link: TicketExportLink): string {
  return createHmac('sha256', linkKey(internalSecret))
    .update(
      [link.branchId, link.from, link.to, link.userId, link.language, link.expires].map(String).join('\n'),
    )
    .digest('base64url');
}

/** The link's address on the REST adapter. */
export function ticketExportUrl(
  publicBaseUrl: string,
  internalSecret: string,
  link: TicketExportLink,
): string {
  const query = new URLSearchParams({
    branch: String(link.branchId),
    from: link.from,
    to: link.to,
    user: String(link.userId),
    lang: link.language,
    expires: String(link.expires),
    signature: signTicketExportLink(internalSecret, link),
  });
  return `${publicBaseUrl}${TICKET_EXPORT_PATH}?${query}`;
}

const RECORD_ID = /^[1-9]\d{0,15}$/;
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * Whether a presented link was signed by the platform (with any accepted secret, compared in
 * constant time) and is within its minute. An expiry further ahead than any signer sets is
 * refused too, so no link outlives TICKET_EXPORT_LINK_SECONDS.
 */
export function checkTicketExportLink(
  accepted: string | readonly string[],
  presented: PresentedTicketExportLink,
  nowMs: number = Date.now(),
): TicketExportVerdict {
  const { branch, from, to, user, lang, expires, signature } = presented;
  if (
    branch === undefined ||
    user === undefined ||
    from === undefined ||
    to === undefined ||
    expires === undefined ||
    signature === undefined ||
    !RECORD_ID.test(branch) ||
    !RECORD_ID.test(user) ||
    !INSTANT.test(from) ||
    !INSTANT.test(to) ||
    (lang !== 'en' && lang !== 'ar') ||
    !/^\d{1,12}$/.test(expires)
  ) {
    return { ok: false, reason: 'invalid' };
  }
  const link: TicketExportLink = {
    branchId: Number(branch),
    from,
    to,
    userId: Number(user),
    language: lang,
    expires: Number(expires),
  };
  const given = Buffer.from(signature);
  let signed = false;
  for (const secret of typeof accepted === 'string' ? [accepted] : accepted) {
    const expected = Buffer.from(signTicketExportLink(secret, link));
    signed = (given.length === expected.length && timingSafeEqual(given, expected)) || signed;
  }
  if (!signed) return { ok: false, reason: 'invalid' };
  const now = Math.floor(nowMs / 1000);
  if (link.expires > now + TICKET_EXPORT_LINK_SECONDS + CLOCK_SKEW_SECONDS)
    return { ok: false, reason: 'invalid' };
  if (link.expires < now) return { ok: false, reason: 'expired' };
  return { ok: true, link };
}
