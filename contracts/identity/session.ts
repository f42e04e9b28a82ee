import { bearerKey } from '../authorization';

/**
 * What the gateway tells every subgraph about the person behind a request. The gateway resolves a
 * `Authorization: Bearer ses_…` token once per request (the identity subgraph's `sessionPrincipal`)
 * and sets these itself; whatever a client sends under these names is dropped at the gateway, and
 * subgraphs answer only the gateway (the internal credential), so a subgraph can trust them.
 */
export const SESSION_USER_HEADER = 'x-session-user';
export const SESSION_ID_HEADER = 'x-session-id';
/** The client's address as the gateway saw it, for limits kept per address. */
export const CLIENT_ADDRESS_HEADER = 'x-client-address';

/** The prefix of a session token, which tells it from an API key in the same header. */
export const SESSION_TOKEN_PREFIX = 'ses_';

const SESSION_TOKEN = /^ses_[A-Za-z0-9_-]{1,100}$/;

/** Whether a Bearer credential, as read, is a session token. */
export function isSessionToken(token: string): boolean {
  return SESSION_TOKEN.test(token);
}

/** The session token of an Authorization header, or undefined when it carries something else. */
export function sessionTokenOf(authorization: string | undefined): string | undefined {
  const token = bearerKey(authorization);
  return token !== undefined && isSessionToken(token) ? token : undefined;
}

/**
 * The branch a signed-in person works at for this request: a key is bound to its branch, a person
 * names one (any branch of a venue they belong to) for the ticket operations the keys use.
 */
export const BRANCH_HEADER = 'x-branch-id';
