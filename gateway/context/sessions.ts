import type { Config } from '../../common/config';
import { UnavailableError } from '../../common/errors';
import { SubgraphClient } from '../../common/subgraph-call';
import type { InflightJoin } from '../../common/inflight-join';
import { SESSION_ID_HEADER, SESSION_USER_HEADER, sessionTokenOf } from '../../contracts/identity/session';

const SESSION_PRINCIPAL = `query SessionPrincipal($token: String!) {
  sessionPrincipal(token: $token) { userId sessionId secondsLeft }
}`;

export type Principal = { userId: string; sessionId: string; secondsLeft: number } | null;

/**
 * How long a session's look-up answers later requests with the same token. A panel sends an
 * operation every few seconds while someone works in it, each of which would otherwise cost a
 * request to identity and its statement before planning could start.
 */
export const SESSION_KEPT_MS = 10_000;

/**
 * Resolves a request's `Bearer ses_…` at the gateway and tells the subgraphs who it is
 * (contracts/identity/session.ts). A look-up already under way for the same token is joined rather
 * than repeated (a panel's page sends several operations at once), and a live session's answer is
 * kept for SESSION_KEPT_MS, never past the session's own end, under the rule subgraph fetches
 * share by (common/inflight-join.ts): only while access announcements are heard, and nothing from
 * before the last one. Every way a session ends is announced (a sign-out, signing out everywhere,
 * a revoked session, a password changed or reset, the operator's end of a person's sessions), and
 * an identity mutation sent through this gateway drops what it keeps as soon as it is answered
 * (`forgetKept`), so a sign-out holds here on the very next request, announcement or not.
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

  /**
   * The headers naming the session's user, or none for a request without a live session. `fresh`
   * asks identity whatever is under way or kept: a live socket's recheck after an announcement.
   */
  async headersFor(
    authorization: string | undefined,
    requestId?: string,
    fresh = false,
  ): Promise<Record<string, string>> {
    const token = sessionTokenOf(authorization);
    if (token === undefined) return {};
    const principal = await this.lookUp(token, requestId, fresh);
    if (principal === null) return {};
    return { [SESSION_USER_HEADER]: principal.userId, [SESSION_ID_HEADER]: principal.sessionId };
  }

  /** A session may have ended through this gateway: nothing looked up before now is used again. */
  forgetKept(): void {
    this.lookUps?.forgetUnderWay();
  }

  private lookUp(token: string, requestId: string | undefined, fresh: boolean): Promise<Principal> {
    if (this.lookUps === undefined || fresh) return this.principalOf(token, requestId);
    return this.lookUps.join(
      token,
      () => this.principalOf(token, requestId),
      () => undefined,
      (principal) => (principal === null ? 0 : Math.min(SESSION_KEPT_MS, principal.secondsLeft * 1000)),
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
