import express, { type Request, type Response, type Router } from 'express';
import { request as httpRequest, type ClientRequest } from 'node:http';
import { pipeline } from 'node:stream';
import type { Config } from '../../common/config';
import { internalCredentialHeaders } from '../../common/internal-credential';
import type { Logger } from '../../common/logger';
import { currentRequestId, REQUEST_ID_HEADER } from '../../common/request-context';
import { CLIENT_ADDRESS_HEADER } from '../../contracts/identity/session';
import {
  TICKET_EXPORT_INTERNAL_PATH,
  TICKET_EXPORT_PARAMS,
  TICKET_EXPORT_PATH,
} from '../../contracts/tickets/ticket-export';
import { pageRouteFor, registerRoutes, type PageRoute } from '../route-table';

/** What the export route works with. */
interface TicketExportDependencies {
  /** The tickets subgraph's streaming path (TICKET_EXPORT_INTERNAL_PATH at its address). */
  upstream: URL;
  internalSecret: string;
  /** How long the tickets subgraph may take to start answering (the stream itself has no bound). */
  timeoutMs: number;
  logger: Logger;
}

/** The answer's headers that pass through: the file's type and name, and what says not to keep it. */
const PASSED_BACK = [
  'content-type',
  'content-disposition',
  'cache-control',
  'retry-after',
  'x-content-type-options',
] as const;

/**
 * Sends the link's values (and nothing else of the request) to the tickets subgraph, with the
 * platform's credential, and pipes its answer back: `pipeline` writes each chunk as the browser
 * takes it and pauses the subgraph's socket meanwhile, so the adapter holds at most its buffers;
 * a browser that goes away destroys the upstream request, which ends the subgraph's cursor.
 */
function passThrough(req: Request, res: Response, dependencies: TicketExportDependencies): Promise<void> {
  const url = new URL(dependencies.upstream);
  const query = new URLSearchParams();
  for (const name of TICKET_EXPORT_PARAMS) {
    const value = req.query[name];
    if (typeof value === 'string') query.set(name, value);
  }
  url.search = query.toString();
  const headers: Record<string, string> = {
    ...internalCredentialHeaders(dependencies.internalSecret),
    [REQUEST_ID_HEADER]: currentRequestId() ?? '',
  };
  if (req.ip !== undefined) headers[CLIENT_ADDRESS_HEADER] = req.ip;
  const language = req.headers['accept-language'];
  if (typeof language === 'string') headers['accept-language'] = language;

  return new Promise((resolve) => {
    const upstream: ClientRequest = httpRequest(url, { method: 'GET', headers });
    const timer = setTimeout(
      () => upstream.destroy(new Error('the tickets subgraph did not answer in time')),
      dependencies.timeoutMs,
    );
    res.once('close', () => {
      clearTimeout(timer);
      if (!res.writableFinished) upstream.destroy();
      resolve();
    });
    upstream.once('response', (answer) => {
      clearTimeout(timer);
      res.status(answer.statusCode ?? 502);
      for (const name of PASSED_BACK) {
        const value = answer.headers[name];
        if (typeof value === 'string') res.setHeader(name, value);
      }
      pipeline(answer, res, (error) => {
        // A cut stream is logged once here; the browser sees its transfer fail, never a short file.
        if (error !== undefined && error !== null && !res.writableFinished) {
          dependencies.logger.warn({ err: error }, 'tickets CSV export ended before its end');
        }
      });
    });
    upstream.once('error', (error) => {
      clearTimeout(timer);
      if (res.headersSent) {
        res.destroy();
        return;
      }
      dependencies.logger.warn({ err: error }, 'tickets CSV export: the tickets subgraph cannot be reached');
      res
        .status(503)
        .setHeader('Retry-After', '5')
        .setHeader('Cache-Control', 'no-store')
        .json({ message: 'Service temporarily unavailable', request_id: currentRequestId() });
    });
    upstream.end();
  });
}

const route = pageRouteFor<TicketExportDependencies>();

export const TICKET_EXPORT_ROUTES: readonly PageRoute<TicketExportDependencies>[] = [
  route({
    method: 'get',
    path: TICKET_EXPORT_PATH,
    operations: [],
    summary:
      'A branch’s tickets as CSV, for the link `exportTicketsCsv` signs (no credential); streamed from the tickets subgraph',
    handler: (req, res, dependencies) => passThrough(req, res, dependencies),
  }),
];

/**
 * The accountants' CSV (`/exports/tickets.csv`): the one route of the adapter that sends no GraphQL
 * operation, since a file of a year of tickets is a stream the graph cannot carry. The link is
 * checked, and the file made, by the tickets subgraph (docs/ARCHITECTURE.md, "How a tickets CSV
 * export flows"); no REST document describes the path.
 */
export function ticketExportRoutes(config: Config, logger: Logger): Router {
  return registerRoutes(express.Router(), TICKET_EXPORT_ROUTES, {
    upstream: new URL(TICKET_EXPORT_INTERNAL_PATH, config.subgraphUrls.tickets),
    internalSecret: config.internalSecret,
    timeoutMs: config.upstreamTimeoutMs,
    logger,
  });
}
