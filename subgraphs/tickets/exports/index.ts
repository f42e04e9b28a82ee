/**
 * Exports: the accountants' CSV of a branch's tickets, a signed link on the graph and the stream it
 * opens. What the root module of the tickets subgraph composes; the rest of exports/ is its own.
 */
export { TicketExportRepository } from './ticket-export.repository';
export { TicketExportService, checkExportRange, type TicketExportSettings } from './ticket-export.service';
export { TicketExportResolver, TicketsCsvExportType } from './ticket-export.resolver';
export { ticketExportRoute, type TicketExportParts } from './ticket-export.route';
