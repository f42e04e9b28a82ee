import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HttpService } from '../../common/http-service';
import { textProblemOf } from '../../common/input.rules';
import type { Logger } from '../../common/logger';
import { templateOf } from '../../common/metrics';
import { rateLimitHeaders, refusalOf, type CredentialBudgets } from '../../common/rate-budget';
import { readAuthorization } from '../../contracts/authorization';
import { presentedCredentials } from '../../contracts/credentials';
import { toTicketResource } from '../../contracts/tickets/ticket.resource';
import type { GraphClient } from '../graph-client';
import { failedRequest } from '../http-errors';
import { TOO_MANY_ATTEMPTS } from '../rate-limit';
import { API_PREFIX } from '../route-table';
import { TICKET_BY_ID } from './tickets.operations';
import { TICKETS_GUARDED_HEADERS } from './tickets.requests';

/**
 * `GET /api/v1/tickets/{id}`, the read every POS polls while an order is open, answered before
 * express: the same frame, per-key count, graph operation, answer and error answers as the
 * express route (tickets.routes.ts), without the router's walk through the adapter's layers, which
 * was the largest share of the adapter's own CPU on this read after the garbage collector's
 * (docs/performance-log/tickets.md). What it cannot prove the route would pass untouched (another method or
 * path, a query string, a body, a header the input guard would refuse) it hands to express before
 * anything is counted, so every refusal made there stays made there.
 */
export interface TicketReadDoorOptions {
  service: HttpService;
  graph: GraphClient;
  /** ticket-calling-api.md's per-key budget, as the express routes count it (credentialLimit). */
  counts: CredentialBudgets;
  logger: Logger;
}

const PATH = /^\/api\/v1\/tickets\/(\d{1,20})$/;
const ROUTE = templateOf(`${API_PREFIX}/tickets/:id`);

/** The ticket id of a request the door serves exactly as express would, or undefined. */
export function admittedId(req: IncomingMessage): string | undefined {
  if (req.method !== 'GET') return undefined;
  const id = PATH.exec(req.url ?? '')?.[1];
  if (id === undefined) return undefined;
  const headers = req.headers;
  // A body would meet express's JSON parser and the input guard first.
  if (headers['transfer-encoding'] !== undefined) return undefined;
  // An Authorization that is no Bearer credential is refused by the express route's limiter.
  if (readAuthorization(headers.authorization).kind === 'malformed') return undefined;
  if (headers['content-length'] !== undefined && headers['content-length'] !== '0') return undefined;
  for (const name of TICKETS_GUARDED_HEADERS) {
    const value = headers[name];
    if (value !== undefined && (typeof value !== 'string' || textProblemOf(value) !== undefined))
      return undefined;
  }
  return id;
}

/** Express's `res.json`: the same type, length and text. */
function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

export function ticketReadDoor(
  options: TicketReadDoorOptions,
): (req: IncomingMessage, res: ServerResponse) => boolean {
  const { service, graph, counts, logger } = options;

  async function serve(req: IncomingMessage, res: ServerResponse, id: string): Promise<void> {
    const presented = presentedCredentials({ authorization: req.headers.authorization });
    try {
      const decisions = await counts.take(presented.credentials, service.clientAddress(req));
      for (const [name, value] of Object.entries(rateLimitHeaders(decisions))) res.setHeader(name, value);
      if (refusalOf(decisions) !== undefined) {
        sendJson(res, 429, TOO_MANY_ATTEMPTS);
        return;
      }
      const { ticket } = await graph.execute(TICKET_BY_ID, { id }, req);
      sendJson(res, 200, toTicketResource(ticket));
    } catch (error) {
      const failed = failedRequest(logger, error);
      for (const [name, value] of Object.entries(failed.headers)) res.setHeader(name, value);
      sendJson(res, failed.status, failed.body);
    }
  }

  return (req, res) => {
    const id = admittedId(req);
    if (id === undefined) return false;
    service.frame(
      req,
      res,
      () => ROUTE,
      req.url!,
      () => {
        serve(req, res, id).catch((error: unknown) => {
          // Express's final handler answers what escapes a route the same way: a bare 500.
          logger.error({ err: error }, 'the adapter failed a request');
          if (res.headersSent) res.destroy();
          else {
            res.statusCode = 500;
            res.setHeader('Content-Type', 'text/html; charset=utf-8');
            res.end('Internal Server Error');
          }
        });
      },
    );
    return true;
  };
}
