import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';

/**
 * The header by which the platform's own processes prove they are the platform: the gateway on
 * every subgraph fetch, subgraphs calling billing, the REST adapter on the operations it has
 * already counted against a credential's budget. Never forwarded from a client.
 */
export const INTERNAL_CREDENTIAL_HEADER = 'x-internal-credential';

const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * Whether a presented value is the platform's secret, in time that does not depend on where the
 * two differ: both sides are hashed first, so the comparison is always of 32 bytes.
 */
export function internalCredentialCheck(secret: string): (presented: string | undefined) => boolean {
  const expected = digest(secret);
  return (presented) => presented !== undefined && timingSafeEqual(digest(presented), expected);
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

/**
 * Refuses, before any GraphQL work, every request that does not carry the platform's credential:
 * a subgraph's `_service` and `_entities` (and the `@inaccessible` mutations billing serves to the
 * cv subgraph) would otherwise answer whoever reaches its port.
 */
export function requireInternalCredential(secret: string): RequestHandler {
  const isPlatform = internalCredentialCheck(secret);
  return (req, res, next) => {
    const presented = req.headers[INTERNAL_CREDENTIAL_HEADER];
    if (isPlatform(Array.isArray(presented) ? presented[0] : presented)) {
      next();
      return;
    }
    res.status(401).json(NOT_THE_PLATFORM);
  };
}
