import { personIdentity, ticketKeyIdentity, type CredentialKind } from '../common/rate-budget';
import { readAuthorization } from './authorization';
import { isSessionToken } from './identity/session';
import { isBoardToken } from './tickets/board-device';

/** One credential a request presents, as read once: its kind and the credential itself. */
export interface PresentedCredential {
  kind: CredentialKind;
  /** The token of `Authorization: Bearer`, or the X-API-Key without surrounding whitespace. */
  credential: string;
}

/** The credentials a request presents, and whether its Authorization header failed to parse. */
export interface Presented {
  credentials: PresentedCredential[];
  /** An Authorization header was sent that is no Bearer credential: refused as UNAUTHENTICATED. */
  malformed: boolean;
}

/**
 * What a request presents, by kind: a session (`ses_`), a paired board device's key (`bd_`) or a
 * branch's key in `Authorization`, a CV account's key in `X-API-Key`. Both doors read requests
 * with this, so a credential counts as one identity however it is spelt.
 */
export function presentedCredentials(headers: {
  authorization?: string | undefined;
  'x-api-key'?: string | undefined;
}): Presented {
  const credentials: PresentedCredential[] = [];
  const reading = readAuthorization(headers.authorization);
  if (reading.kind === 'bearer') {
    const { token } = reading;
    const kind = isSessionToken(token) ? 'session' : isBoardToken(token) ? 'board' : 'tickets';
    credentials.push({ kind, credential: token });
  }
  const apiKey = headers['x-api-key']?.trim();
  if (apiKey) credentials.push({ kind: 'cv', credential: apiKey });
  return { credentials, malformed: reading.kind === 'malformed' };
}

/** The operations a door sends to learn who a credential is, by what they ask. */
export const IDENTITY_QUERIES = {
  person: { name: 'RateLimitPerson', document: 'query RateLimitPerson { viewer { id } }' },
  key: { name: 'RateLimitKey', document: 'query RateLimitKey { currentBranch { id } }' },
  account: { name: 'RateLimitAccount', document: 'query RateLimitAccount { me { id } }' },
} as const;

/** The operation a door sends to learn who a credential is, with the headers it is sent with. */
export function identityQueryOf({ kind, credential }: PresentedCredential): {
  query: (typeof IDENTITY_QUERIES)[keyof typeof IDENTITY_QUERIES];
  headers: Record<string, string>;
} {
  switch (kind) {
    case 'session':
      return { query: IDENTITY_QUERIES.person, headers: { authorization: `Bearer ${credential}` } };
    case 'tickets':
    case 'board':
      return { query: IDENTITY_QUERIES.key, headers: { authorization: `Bearer ${credential}` } };
    case 'cv':
      return { query: IDENTITY_QUERIES.account, headers: { 'x-api-key': credential } };
  }
}

/** The parts of a GraphQL answer the identity is read from. */
export interface IdentityAnswer {
  data?: unknown;
  errors?: readonly { message: string; extensions?: { code?: unknown } }[];
}

/**
 * The budget identity the graph's answer to `identityQueryOf` gives a credential: a ticket key as
 * itself (a known key without `tickets:read` or without API access is still that key), a CV key as
 * its account, a session as its person; null when the graph refuses the credential. Throws when the
 * answer tells neither (the graph could not say), so that nothing is remembered of it.
 */
export function identityFromAnswer(
  { kind, credential }: PresentedCredential,
  answer: IdentityAnswer,
): string | null {
  const code = answer.errors?.[0]?.extensions?.code;
  const data = answer.data as
    { viewer?: { id?: string } | null; me?: { id?: string } | null } | null | undefined;
  if (kind === 'session') {
    if (data?.viewer === null) return null;
    if (data?.viewer?.id !== undefined) return personIdentity(data.viewer.id);
  } else if (code === 'UNAUTHENTICATED') {
    return null;
  } else if (kind === 'cv') {
    if (data?.me?.id !== undefined) return `account:${data.me.id}`;
  } else if (code === undefined || code === 'FORBIDDEN' || code === 'PAYMENT_REQUIRED') {
    return ticketKeyIdentity(credential);
  }
  throw new Error(
    `could not tell who a ${kind} credential is: ${answer.errors?.[0]?.message ?? 'no answer'}`,
  );
}
