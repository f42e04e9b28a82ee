import type { Request, RequestHandler } from 'express';
import {
  addressIdentity,
  rateLimitHeaders,
  refusalOf,
  ticketKeyIdentity,
  type RateBudgets,
  type RatePolicy,
} from '../common/rate-budget';

export interface RateLimitOptions {
  /** Who is counted: the credential when there is one, else the client address. */
  identify(req: Request): string | Promise<string>;
  /** The refusal, when it must travel to a router's own error handler instead of the default body. */
  refusal?: (req: Request, retryAfterSeconds: number) => Error;
}

/** Who sent a request when no credential says: its client address. */
export function byAddress(req: Request): string {
  return addressIdentity(req.ip);
}

/**
 * A ticket key's budget identity, or the client address when the request carries none (asked only
 * then: express's `req.ip`, or the front door's reading of the same rule).
 */
export function credentialOf(header: string | undefined, address: () => string | undefined): string {
  return header !== undefined && header !== '' ? ticketKeyIdentity(header) : addressIdentity(address());
}

/** The ticket document's answer past a budget (Laravel's wording, which legacy clients may match on). */
export const TOO_MANY_ATTEMPTS = { message: 'Too Many Attempts.' } as const;

/**
 * Counts each request against one of the platform's budgets (common/rate-budget.ts), the same
 * Redis count the gateway adds to for GraphQL. Every response carries the IETF httpapi draft
 * headers (`RateLimit-Policy`, `RateLimit`); past the quota the answer is 429 with `Retry-After`.
 * The adapter then marks the operations it sends as counted, so the gateway does not count them again.
 */
export function rateLimit(
  budgets: RateBudgets,
  policy: RatePolicy,
  options: RateLimitOptions,
): RequestHandler {
  return (req, res, next) => {
    Promise.resolve(options.identify(req))
      .then((who) => budgets.take(policy, who))
      .then(
        (decision) => {
          const headers = rateLimitHeaders([decision]);
          // A request counted by two budgets (the page's writes) reports both.
          for (const [name, value] of Object.entries(headers)) {
            const earlier = name === 'Retry-After' ? undefined : res.getHeader(name);
            res.setHeader(name, earlier === undefined ? value : `${String(earlier)}, ${value}`);
          }
          if (refusalOf([decision]) === undefined) {
            next();
            return;
          }
          const retryAfter = Number(headers['Retry-After']);
          if (options.refusal !== undefined) next(options.refusal(req, retryAfter));
          else res.status(429).json(TOO_MANY_ATTEMPTS);
        },
        (error: unknown) => next(error),
      );
  };
}
