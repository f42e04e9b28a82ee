import type { Request, Response } from 'express';
import { GraphQLError } from 'graphql';
import type { IncomingHttpHeaders } from 'node:http';
import { translateDatabaseError } from '../../../common/database-errors';
import { httpStatusOf, isErrorCode } from '../../../common/errors';
import { languageOf, type TextLanguage } from '../../../common/language';
import { isMessage, renderAll, text } from '../../../common/messages';
import type { InternalRoute, RequestScope } from '../../../common/subgraph';
import { CLIENT_ADDRESS_HEADER } from '../../../contracts/identity/session';
import {
  MAX_CONCURRENT_TICKET_EXPORTS,
  TICKET_EXPORT_INTERNAL_PATH,
  TICKET_EXPORT_PARAMS,
  type PresentedTicketExportLink,
} from '../../../contracts/tickets/ticket-export';
import type { TicketExportRepository } from './ticket-export.repository';
import type { TicketExportService } from './ticket-export.service';

/** A reader that takes nothing for this long has gone: its rows are not held for it any longer. */
export const EXPORT_STALL_MS = 60_000;

/** What the route makes for each request from its scope. */
export interface TicketExportParts {
  service: TicketExportService;
  repository: TicketExportRepository;
}

class ReaderGone extends Error {}

/**
 * Writes to the response and settles once the socket can take more: at once while its buffer is
 * under the high-water mark, else at the next `drain`. The batch after waits for it, so the cursor
 * goes at the reader's pace and no more than a batch sits in this process.
 */
export function paced(res: Response, stallMs = EXPORT_STALL_MS): (chunk: string) => Promise<void> {
  return (chunk) => {
    if (res.destroyed || res.writableEnded) return Promise.reject(new ReaderGone('the reader went away'));
    if (res.write(chunk)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const done = (error?: Error) => {
        clearTimeout(timer);
        res.off('drain', onDrain);
        res.off('close', onClose);
        if (error === undefined) resolve();
        else reject(error);
      };
      const onDrain = () => done();
      const onClose = () => done(new ReaderGone('the reader went away'));
      const timer = setTimeout(
        () => done(new ReaderGone(`the reader took nothing for ${stallMs} ms`)),
        stallMs,
      );
      res.once('drain', onDrain);
      res.once('close', onClose);
    });
  };
}

/** The link's values from the query string: each named once, as text, or left out. */
function presentedOf(req: Request): PresentedTicketExportLink {
  const presented: PresentedTicketExportLink = {};
  for (const name of TICKET_EXPORT_PARAMS) {
    const value = req.query[name];
    if (typeof value === 'string') presented[name] = value;
  }
  return presented;
}

/** A refusal in the platform's model as a status and `{"message"}` in the reader's language. */
function refusalOf(error: unknown, language: TextLanguage): { status: number; message: string } | null {
  const known = error instanceof GraphQLError ? error : translateDatabaseError(error);
  const code = known?.extensions.code;
  if (known === undefined || !isErrorCode(code)) return null;
  const said = (known.extensions.messages as { message?: unknown[] } | undefined)?.message;
  const message = Array.isArray(said) && said.every(isMessage) ? renderAll(said, language) : known.message;
  return { status: httpStatusOf(code), message };
}

/**
 * `GET /internal/ticket-exports.csv?…the link's values…`: the CSV a signed link grants, streamed
 * from Postgres to the response. Only the platform calls it (the REST adapter, passing a browser's
 * request through); refusals are `{"message"}` with 403 (a link not signed, expired, or whose
 * person no longer manages the branch) or 503 (too many exports running here, or Postgres away).
 */
export function ticketExportRoute(
  scopeOf: (headers: IncomingHttpHeaders) => RequestScope,
  partsOf: (scope: RequestScope, language: TextLanguage) => TicketExportParts,
): InternalRoute {
  let running = 0;
  return {
    method: 'get',
    path: TICKET_EXPORT_INTERNAL_PATH,
    handler: async (req, res) => {
      const scope = scopeOf(req.headers);
      const language = languageOf(req.headers['accept-language']);
      res.setHeader('Cache-Control', 'no-store');
      if (running >= MAX_CONCURRENT_TICKET_EXPORTS) {
        res.setHeader('Retry-After', '5');
        res.status(503).json({ message: text('exports.busy', language) });
        return;
      }
      running += 1;
      try {
        const { service, repository } = partsOf(scope, language);
        const opened = await service.open(presentedOf(req), scope.headers[CLIENT_ADDRESS_HEADER] ?? null);
        res.status(200);
        res.setHeader('Content-Type', 'text/csv; charset=utf-8');
        res.setHeader('Content-Disposition', `attachment; filename="${opened.fileName}"`);
        res.setHeader('X-Content-Type-Options', 'nosniff');
        const rows = await service.stream(repository, opened, paced(res));
        res.end();
        scope.logger.info({ branchId: opened.link.branchId, rows }, 'tickets CSV exported');
      } catch (error) {
        if (res.headersSent) {
          // Mid-file: the reader must not take a cut file for a whole one, so the response ends
          // without its last chunk and the reader sees the transfer fail.
          if (!(error instanceof ReaderGone)) scope.logger.error({ err: error }, 'tickets CSV export failed');
          res.destroy();
          return;
        }
        const refusal = refusalOf(error, language);
        if (refusal === null) {
          scope.logger.error({ err: error }, 'tickets CSV export failed');
          res.status(500).json({ message: 'Server error', request_id: scope.requestId });
          return;
        }
        if (refusal.status === 503) res.setHeader('Retry-After', '2');
        res.status(refusal.status).json({ message: refusal.message });
      } finally {
        running -= 1;
      }
    },
  };
}
