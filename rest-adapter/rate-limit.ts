import type { Request, RequestHandler, Response } from 'express';
import { UnauthenticatedError } from '../common/errors';
import {
  addressIdentity,
  rateLimitHeaders,
  refusalOf,
  type CredentialBudgets,
  type CredentialLookup,
  type RateBudgets,
  type RateDecision,
  type RatePolicy,
} from '../common/rate-budget';
import {
  IDENTITY_QUERIES,
  identityFromAnswer,
  identityQueryOf,
  type Presented,
} from '../contracts/credentials';
import { GraphOperationError, operation, type GraphClient } from './graph-client';

export interface RateLimitOptions {
  /** Who is counted: the client address, for the budgets kept per address. */
  identify(req: Request): string | Promise<string>;
  /** The refusal, when it must travel to a router's own error handler instead of the default body. */
  refusal?: (req: Request, retryAfterSeconds: number) => Error;
}

/** Who sent a request when no credential says: its client address. */
export function byAddress(req: Request): string {
  return addressIdentity(req.ip);
}

/** The ticket document's answer past a budget (Laravel's wording, which legacy clients may match on). */
export const TOO_MANY_ATTEMPTS = { message: 'Too Many Attempts.' } as const;

/**
 * Sets the IETF httpapi draft headers of a request's decisions; a request counted by two
 * middlewares (the page's writes) reports both.
 */
function reportDecisions(res: Response, decisions: readonly RateDecision[]): Record<string, string> {
  const headers = rateLimitHeaders(decisions);
  for (const [name, value] of Object.entries(headers)) {
    const earlier = name === 'Retry-After' ? undefined : res.getHeader(name);
    res.setHeader(name, earlier === undefined ? value : `${String(earlier)}, ${value}`);
  }
  return headers;
}

/** Answers a request by its decisions: on to the route, or 429 (in the router's shape when it has one). */
function applyDecisions(
  req: Request,
  res: Response,
  next: Parameters<RequestHandler>[2],
  decisions: readonly RateDecision[],
  refusal: RateLimitOptions['refusal'],
): boolean {
  const headers = reportDecisions(res, decisions);
  if (refusalOf(decisions) === undefined) return true;
  const retryAfter = Number(headers['Retry-After']);
  if (refusal !== undefined) next(refusal(req, retryAfter));
  else res.status(429).json(TOO_MANY_ATTEMPTS);
  return false;
}

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
          if (applyDecisions(req, res, next, [decision], options.refusal)) next();
        },
        (error: unknown) => next(error),
      );
  };
}

export interface CredentialLimitOptions {
  /** The credentials of the request this document reads (contracts/credentials.ts). */
  presented(req: Request): Presented;
  /** The refusal, when it must travel to a router's own error handler instead of the default body. */
  refusal?: (req: Request, retryAfterSeconds: number) => Error;
}

/**
 * A document's budget per credential, as the gateway keeps it (CredentialBudgets): each request
 * counts against its key's (or account's) budget, and one whose credential the graph does not know
 * counts against its client address, so inventing keys meets the address's 429 and its 401 carries
 * the address's figures. An Authorization header that is no Bearer credential is 401 once its
 * address is counted, never a budget of its own.
 */
export function credentialLimit(counts: CredentialBudgets, options: CredentialLimitOptions): RequestHandler {
  return (req, res, next) => {
    const presented = options.presented(req);
    counts.take(presented.credentials, req.ip).then(
      (decisions) => {
        if (!applyDecisions(req, res, next, decisions, options.refusal)) return;
        next(presented.malformed ? new UnauthenticatedError() : undefined);
      },
      (error: unknown) => next(error),
    );
  };
}

/** The adapter's operations that ask the graph who a credential is, by document. */
const IDENTITY_OPERATIONS = new Map(
  Object.values(IDENTITY_QUERIES).map(({ name, document }) => [document, operation<unknown>(name, document)]),
);

/** The operations `credentialLimit` sends before any route runs, on a credential's first sight. */
export const CREDENTIAL_LIMIT_OPERATIONS = [...IDENTITY_OPERATIONS.values()];

/**
 * How the adapter asks the graph who a credential is: the gateway's own questions
 * (contracts/credentials.ts), sent as the platform's, so the asking is not counted a second time.
 */
export function credentialLookup(graph: GraphClient): CredentialLookup {
  return async (kind, credential) => {
    const presented = { kind, credential };
    const { query, headers } = identityQueryOf(presented);
    try {
      const data = await graph.execute(IDENTITY_OPERATIONS.get(query.document)!, {}, { headers });
      return identityFromAnswer(presented, { data });
    } catch (error) {
      if (error instanceof GraphOperationError)
        return identityFromAnswer(presented, { errors: error.errors });
      throw error;
    }
  };
}
