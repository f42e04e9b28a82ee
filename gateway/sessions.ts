import type { Config } from '../common/config';
import { UnavailableError } from '../common/errors';
import { SubgraphClient } from '../common/subgraph-call';
import { SESSION_ID_HEADER, SESSION_USER_HEADER, sessionTokenOf } from '../contracts/identity/session';

const SESSION_PRINCIPAL = `query SessionPrincipal($token: String!) {
  sessionPrincipal(token: $token) { userId sessionId }
}`;

/**
 * Resolves a request's `Bearer ses_…` once, at the gateway, and tells the subgraphs who it is
 * (contracts/identity/session.ts). Not cached: signing out takes effect on the next request.
 */
export class SessionResolver {
  private readonly identity: SubgraphClient;

  constructor(config: Pick<Config, 'subgraphUrls' | 'internalSecret'>) {
    this.identity = SubgraphClient.of(config, 'identity');
  }

  /** The headers naming the session's user, or none for a request without a live session. */
  async headersFor(authorization: string | undefined, requestId?: string): Promise<Record<string, string>> {
    const token = sessionTokenOf(authorization);
    if (token === undefined) return {};
    let answer: { sessionPrincipal: { userId: string; sessionId: string } | null };
    try {
      answer = await this.identity.call<typeof answer>(
        'resolving a session',
        SESSION_PRINCIPAL,
        { token },
        { requestId },
      );
    } catch {
      throw new UnavailableError('Sign-in is unavailable for a moment. Retry shortly.', 5);
    }
    const principal = answer.sessionPrincipal;
    if (principal === null) return {};
    return { [SESSION_USER_HEADER]: principal.userId, [SESSION_ID_HEADER]: principal.sessionId };
  }
}
