import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { IncomingMessage } from 'node:http';

/**
 * The header by which the platform's own processes prove they are the platform: the gateway on
 * every subgraph fetch, subgraphs calling billing, the REST adapter on the operations it has
 * already counted against a credential's budget. Never forwarded from a client.
 */
export const INTERNAL_CREDENTIAL_HEADER = 'x-internal-credential';

const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * Whether a presented value is one of the platform's accepted secrets (the primary, and during a
 * rotation the secondary, new or old: docs/OPERATIONS.md "Rotating secrets"), in time that does not depend
 * on where they differ: both sides are hashed first, so each comparison is of 32 bytes, and every
 * accepted value is compared, so the time does not tell which one matched either.
 */
export function internalCredentialCheck(
  accepted: string | readonly string[],
): (presented: string | undefined) => boolean {
  const expected = (typeof accepted === 'string' ? [accepted] : accepted).map(digest);
  if (expected.length === 0) throw new Error('internalCredentialCheck needs at least one accepted secret');
  return (presented) => {
    if (presented === undefined) return false;
    const given = digest(presented);
    let matched = false;
    for (const value of expected) matched = timingSafeEqual(given, value) || matched;
    return matched;
  };
}

/** The headers that carry the platform's credential on a call to one of its own processes. */
export function internalCredentialHeaders(secret: string): Record<string, string> {
  return { [INTERNAL_CREDENTIAL_HEADER]: secret };
}

/** What a subgraph answers a caller that is not the platform: nothing of its schema runs. */
export const NOT_THE_PLATFORM = {
  errors: [
    {
      message: 'This subgraph answers only the platform’s gateway; send GraphQL to the gateway’s /graphql.',
      extensions: { code: 'UNAUTHENTICATED' },
    },
  ],
};

/** Whether a request carries the platform's credential in its header. */
export function presentsInternalCredential(
  accepted: string | readonly string[],
): (req: Pick<IncomingMessage, 'headers'>) => boolean {
  const isPlatform = internalCredentialCheck(accepted);
  return (req) => {
    const presented = req.headers[INTERNAL_CREDENTIAL_HEADER];
    return isPlatform(Array.isArray(presented) ? presented[0] : presented);
  };
}

/**
 * Refuses, before any GraphQL work, every request that does not carry the platform's credential:
 * a subgraph's `_service` and `_entities` (and the `@inaccessible` mutations billing serves to the
 * cv subgraph) would otherwise answer whoever reaches its port.
 */
export function requireInternalCredential(accepted: string | readonly string[]): RequestHandler {
  const presentsIt = presentsInternalCredential(accepted);
  return (req, res, next) => {
    if (presentsIt(req)) {
      next();
      return;
    }
    res.status(401).json(NOT_THE_PLATFORM);
  };
}
