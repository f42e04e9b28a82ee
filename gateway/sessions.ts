import type { Config } from '../common/config';
import { UnavailableError } from '../common/errors';
import { SubgraphClient } from '../common/subgraph-call';
import { SESSION_ID_HEADER, SESSION_USER_HEADER, sessionTokenOf } from '../contracts/identity/session';

const SESSION_PRINCIPAL = `query SessionPrincipal($token: String!) {
  sessionPrincipal(token: $token) { userId sessionId }
}`;

type Principal = { userId: string; sessionId: string } | null;

/**
 * Resolves a request's `Bearer ses_…` once, at the gateway, and tells the subgraphs who it is
 * (contracts/identity/session.ts). Not cached: signing out takes effect on the next request. A
 * look-up already under way for the same token is joined rather than repeated: a panel's page
 * sends several operations at once, and each of them would otherwise ask identity the same thing.
 */
export class SessionResolver {
  private readonly identity: SubgraphClient;
  private readonly inFlight = new Map<string, Promise<Principal>>();

  constructor(config: Pick<Config, 'subgraphUrls' | 'internalSecret'>) {
    this.identity = SubgraphClient.of(config, 'identity');
  }

  /** The headers naming the session's user, or none for a request without a live session. */
  async headersFor(authorization: string | undefined, requestId?: string): Promise<Record<string, string>> {
    const token = sessionTokenOf(authorization);
    if (token === undefined) return {};
    let lookup = this.inFlight.get(token);
    if (lookup === undefined) {
      lookup = this.principalOf(token, requestId);
      this.inFlight.set(token, lookup);
      const forget = () => this.inFlight.delete(token);
      lookup.then(forget, forget);
    }
    const principal = await lookup;
    if (principal === null) return {};
    return { [SESSION_USER_HEADER]: principal.userId, [SESSION_ID_HEADER]: principal.sessionId };
  }

  private async principalOf(token: string, requestId: string | undefined): Promise<Principal> {
    try {
      const answer = await this.identity.call<{ sessionPrincipal: Principal }>(
        'resolving a session',
        SESSION_PRINCIPAL,
        { token },
        { requestId },
      );
      return answer.sessionPrincipal;
    } catch {
      throw new UnavailableError('Sign-in is unavailable for a moment. Retry shortly.', 5);
    }
  }
}
