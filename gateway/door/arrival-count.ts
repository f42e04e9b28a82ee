import type { RequestHandler } from 'express';
import type { RateDecision } from '../../common/rate-budget';
import { presentedCredentials } from '../../contracts/credentials';
import type { GatewayContext } from '../context';
import { RunAhead, type GatewayRateLimits } from '../limits';

/*
 * An HTTP request's count starts as it arrives and the request goes on meanwhile; the rate-limit
 * plugin (limits/rate-limit.plugin.ts) awaits it once the operation is known and refuses it there,
 * before it is planned, so the Redis round trip overlaps reading and validating the request instead
 * of preceding it. Nothing is counted for the platform's own requests. Both ways into `/graphql`
 * start it: express's (`countOnArrival`, `clientOf`) and the front door's (`FrontDoorCounts`).
 */

/** What a count on arrival asks of the gateway's rate limits. */
type ArrivalLimits = Pick<GatewayRateLimits, 'isPlatform' | 'counting'>;

/** Marks a request the REST adapter already counted; the Apollo context then carries no client. */
const COUNTED_BY_THE_PLATFORM = 'countedByThePlatform';
/** The count of a client's HTTP request, under way while the request is read. */
const COUNTING = 'rateLimitCounting';

/** Express's way: the middleware that starts each request's count, ahead of Apollo's. */
export function countOnArrival(
  limits: ArrivalLimits,
  headersOf: (req: Parameters<RequestHandler>[0]) => GatewayContext['headers'],
): RequestHandler {
  return (req, res, next) => {
    if (req.method === 'OPTIONS') {
      next();
      return;
    }
    if (limits.isPlatform(req.get('x-internal-credential'))) {
      res.locals[COUNTED_BY_THE_PLATFORM] = true;
      next();
      return;
    }
    res.locals[COUNTING] = limits.counting(headersOf(req), req.ip);
    next();
  };
}

/** The client of an HTTP request, with its count under way; none for the platform's own. */
export function clientOf(req: { ip?: string }, locals: Record<string, unknown>): GatewayContext['client'] {
  if (locals[COUNTED_BY_THE_PLATFORM] === true) return undefined;
  return { address: req.ip, counting: locals[COUNTING] as Promise<RateDecision[]> | undefined };
}

/** The front door's way (door/graphql-door.ts), with what a query may run ahead of its count. */
export class FrontDoorCounts {
  private readonly runAhead = new RunAhead();

  constructor(private readonly limits: ArrivalLimits) {}

  /**
   * The client of a request the front door admitted, its count started as `countOnArrival` starts
   * it, and what it may run ahead of that count (limits/run-ahead.ts); none for the platform's own.
   */
  arriving(
    internalCredential: string | undefined,
    headers: GatewayContext['headers'],
    address: string | undefined,
  ): GatewayContext['client'] {
    if (this.limits.isPlatform(internalCredential)) return undefined;
    // What the count is kept under: the credentials a request carries, or its address without any.
    const carried = presentedCredentials(headers).credentials;
    const credential =
      carried.length === 0
        ? `address ${address ?? ''}`
        : carried.map(({ kind, credential }) => `${kind} ${credential}`).join('\n');
    const settled = this.runAhead.counting(credential);
    return {
      address,
      counting: this.limits.counting(headers, address).then((decisions) => {
        settled(decisions);
        return decisions;
      }),
      runAhead: () => this.runAhead.take(credential),
    };
  }
}
