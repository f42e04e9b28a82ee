import type { TicketResource } from '../../../contracts/tickets/ticket.resource';
import { TICKET_CSV_COLUMNS } from '../../../contracts/tickets/ticket-export';

/**
 * The byte-order mark that starts the file: without it Excel reads UTF-8 as the system's code page
 * and Arabic names turn to mojibake; LibreOffice and Numbers skip it.
 */
export const CSV_BOM = '\uFEFF';

/** RFC 4180's line break. */
const CRLF = '\r\n';

/**
 * First characters that make a spreadsheet read a cell as a formula (OWASP's list: = + - @, and
 * tab and carriage return, which some programs strip before looking).
 */
const FORMULA_START = /^[=+\-@\t\r]/;

/** A field that must be quoted: it holds the separator, a quote or a line break. */
const NEEDS_QUOTES = /[",\r\n]/;

/**
 * One text cell: a text a person typed (a name, a note, an order id) that starts like a formula
 * gets a leading apostrophe, so opening the file runs nothing (docs/API-DECISIONS.md, "Tickets CSV
 * export"); then RFC 4180 quoting, quotes doubled.
 */
export function csvText(value: string): string {
  const safe = FORMULA_START.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** A cell of any Ticket resource value: null is empty, booleans and numbers as JSON writes them. */
export function csvCell(value: string | number | boolean | null): string {
  if (value === null) return '';
  if (typeof value === 'string') return csvText(value);
  return String(value);
}

/** The first line: the Ticket resource's field names, after the byte-order mark. */
export function ticketCsvHeader(): string {
  return `${CSV_BOM}${TICKET_CSV_COLUMNS.join(',')}${CRLF}`;
}

/** One ticket's line, its cells in the header's order. */
export function ticketCsvLine(ticket: TicketResource): string {
  let line = '';
  for (let i = 0; i < TICKET_CSV_COLUMNS.length; i += 1) {
    if (i > 0) line += ',';
    line += csvCell(ticket[TICKET_CSV_COLUMNS[i]!]);
  }
  return line + CRLF;
}
