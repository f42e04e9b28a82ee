/**
 * How every door and every subgraph reads the `Authorization` header: RFC 7235 §2.1 with RFC
 * 6750's Bearer scheme. The scheme's case does not matter, nor how many spaces follow it, nor
 * whitespace around the whole (RFC 9110 §5.5), which a proxy or a graphql-ws `connection_init` may
 * leave where Node's HTTP parser would have trimmed it; the credential is one token68. One reading
 * for every purpose (authentication, budgets, caches, in-flight sharing, revocation fingerprints),
 * so no respelling of one credential is ever taken for another.
 */
const BEARER = /^[ \t]*bearer[ \t]+([A-Za-z0-9\-._~+/]+=*)[ \t]*$/i;

/** The credential an Authorization header presents, or undefined when it presents none it can read. */
export function bearerKey(authorization: string | undefined): string | undefined {
  if (authorization === undefined) return undefined;
  return BEARER.exec(authorization)?.[1];
}

/** What an Authorization header holds: nothing, a Bearer credential, or something that does not parse. */
export type AuthorizationReading =
  { kind: 'none' } | { kind: 'bearer'; token: string; header: string } | { kind: 'malformed' };

/**
 * An Authorization header as the platform passes it on. Absent or blank is none; a Bearer
 * credential comes back in its one spelling (`Bearer <token>`), the only one any process keys on;
 * anything else is refused as UNAUTHENTICATED by the door that reads it, after its client address
 * has been counted, never as a credential of its own.
 */
export function readAuthorization(authorization: string | undefined): AuthorizationReading {
  if (authorization === undefined || authorization.trim() === '') return { kind: 'none' };
  const token = bearerKey(authorization);
  return token === undefined ? { kind: 'malformed' } : { kind: 'bearer', token, header: `Bearer ${token}` };
}
