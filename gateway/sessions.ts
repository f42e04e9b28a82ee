import type { Config } from '../common/config';
import { UnavailableError } from '../common/errors';
import { SubgraphClient } from '../common/subgraph-call';
import type { InflightJoin } from '../common/inflight-join';
import { SESSION_ID_HEADER, SESSION_USER_HEADER, sessionTokenOf } from '../contracts/identity/session';

const SESSION_PRINCIPAL = `query SessionPrincipal($token: String!) {
  sessionPrincipal(token: $token) { userId sessionId }
}`;

export type Principal = { userId: string; sessionId: string } | null;

/**
 * Resolves a request's `Bearer ses_…` once, at the gateway, and tells the subgraphs who it is
 * (contracts/identity/session.ts). Not cached: signing out takes effect on the next request. A
 * look-up already under way for the same token is joined rather than repeated (a panel's page
 * sends several operations at once, each of which would otherwise ask identity the same thing),
 * under the rule subgraph fetches share by (common/inflight-join.ts): only while access
 * announcements are heard, and never a look-up sent before the last one.
 */
export class SessionResolver {
  private readonly identity: SubgraphClient;

  /** `lookUps`: where concurrent look-ups of one token join; without it each is sent. */
  constructor(
    config: Pick<Config, 'subgraphUrls' | 'internalSecret'>,
    private readonly lookUps?: InflightJoin<Principal>,
  ) {
    this.identity = SubgraphClient.of(config, 'identity');
  }

  /** The headers naming the session's user, or none for a request without a live session. */
  async headersFor(authorization: string | undefined, requestId?: string): Promise<Record<string, string>> {
    const token = sessionTokenOf(authorization);
    if (token === undefined) return {};
    const principal = await this.lookUp(token, requestId);
    if (principal === null) return {};
    return { [SESSION_USER_HEADER]: principal.userId, [SESSION_ID_HEADER]: principal.sessionId };
  }

  private lookUp(token: string, requestId: string | undefined): Promise<Principal> {
    if (this.lookUps === undefined) return this.principalOf(token, requestId);
    return this.lookUps.join(
      token,
      () => this.principalOf(token, requestId),
      () => undefined,
    ).value;
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
