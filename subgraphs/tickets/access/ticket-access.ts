import { ForbiddenError, PaymentRequiredError, UnauthenticatedError } from '../../../common/errors';
import type { TicketScope } from './api-key.entity';
import type { AccessCache } from './access-cache';
import { hashApiKey } from '../../../common/api-keys';
import { bearerKey } from '../../../contracts/authorization';
import type { ApiKeyService, Principal } from './api-key.service';
import type { VenueEntitlements, VenuePlanClient } from './venue-plan.client';

/**
 * The credentials a request may carry: a branch key, a ticket's own token for that one ticket, or
 * a signed-in member's session (resolved by the gateway) with the branch they work at.
 */
export interface TicketCredentials {
  authorization: string | undefined;
  ticketToken: string | undefined;
  sessionUserId: number | null;
  branchId: number | null;
  /** The request came through the REST API (REST_DOOR_HEADER), which a board device's key does not open. */
  restDoor?: boolean;
  /** The gateway checks a live socket's credential again (ACCESS_RECHECK_HEADER): nothing cached counts. */
  recheck?: boolean;
}

/**
 * What only a POS integration uses: its own order ids. A board device's key, which any plan has,
 * does the board's work (create, move, ring and list by the platform's ids) and no more, so it
 * cannot stand in for the API a plan may not include. Retry keys are the board's too: a board
 * replays what it did offline with one per operation (docs/API-DECISIONS.md, "The board offline").
 */
export type IntegrationFeature = 'externalId';

const PLAN_WITHOUT_API = 'Your plan does not include API access. Upgrade to Growth or above.';

/** What TicketAccess asks of the venues for a signed-in member. */
export interface MemberLookup {
  branchVenue(branchId: number): Promise<number | null>;
  roleOf(venueId: number, userId: number): Promise<string | null>;
}

/**
 * Decides who may do what, once per request: an unknown or revoked key is 401, a venue whose plan
 * lacks the API is 402, a key without the needed scope is 403.
 */
export class TicketAccess {
  private principal?: Promise<Principal>;

  constructor(
    private readonly credentials: TicketCredentials,
    private readonly apiKeys: ApiKeyService,
    private readonly plans: VenuePlanClient,
    private readonly cache: AccessCache,
    private readonly requestId?: string,
    private readonly members?: MemberLookup,
  ) {}

  /**
   * The ticket token a request reads by instead of a key. A key wins when both are sent, so a token
   * can never widen what a key's request sees.
   */
  get ticketToken(): string | undefined {
    return this.credentials.authorization === undefined ? this.credentials.ticketToken : undefined;
  }

  /** @param feature an integration's own feature the operation uses, which a board device may not */
  async require(scope: TicketScope, feature?: IntegrationFeature): Promise<Principal> {
    const principal = await (this.principal ??= this.authenticate());
    if (!principal.scopes.includes(scope)) throw new ForbiddenError(`This API key lacks the ${scope} scope.`);
    if (principal.board === true && feature !== undefined) {
      throw new ForbiddenError(
        `A board device’s key cannot use ${feature}: that is the POS API’s, which needs an API key of the branch.`,
      );
    }
    return principal;
  }

  /**
   * The calling board device's id; null for any other caller (a key, a signed-in member, a
   * ticket's token, no credential). A revoked or unknown key is UNAUTHENTICATED, so a board learns
   * that its device was revoked.
   */
  async boardDeviceId(): Promise<number | null> {
    if (this.credentials.sessionUserId !== null) return null;
    if (bearerKey(this.credentials.authorization) === undefined) return null;
    const principal = await (this.principal ??= this.authenticate());
    return principal.board === true ? principal.keyId : null;
  }

  /**
   * Whether the caller may read the branch: a signed-in member of its venue (any role, without
   * naming a branch to work at), or a key or board device of that very branch with tickets:read.
   * A caller with no credential is UNAUTHENTICATED, as for any ticket operation.
   */
  async canSeeBranch(branchId: number): Promise<boolean> {
    const userId = this.credentials.sessionUserId;
    if (userId !== null && this.members !== undefined) {
      const venueId = await this.members.branchVenue(branchId);
      return venueId !== null && (await this.members.roleOf(venueId, userId)) !== null;
    }
    const principal = await this.require('tickets:read');
    return principal.branchId === branchId;
  }

  private async authenticate(): Promise<Principal> {
    if (this.credentials.sessionUserId !== null) return this.member(this.credentials.sessionUserId);
    const key = bearerKey(this.credentials.authorization);
    if (key === undefined) throw new UnauthenticatedError('Unauthenticated.');
    const principal = await this.principalOf(key);
    if (principal === null) throw new UnauthenticatedError('Unauthenticated.');
    // The board is the product itself, whatever the plan; the REST API is not, even with its key.
    if (principal.board === true && this.credentials.restDoor === true) {
      throw new PaymentRequiredError(PLAN_WITHOUT_API);
    }
    const entitlements = principal.board === true ? null : await this.entitlementsOf(principal.venueId);
    if (entitlements !== null && !entitlements.apiAccess) throw new PaymentRequiredError(PLAN_WITHOUT_API);
    if (principal.keyId !== null) await this.apiKeys.touch(principal.keyId);
    return principal;
  }

  /**
   * A signed-in member works at the branch they name (BRANCH_HEADER), with both scopes: every role
   * may do tickets. The panel is the product itself, so it does not need the plan's API access.
   */
  private async member(userId: number): Promise<Principal> {
    const branchId = this.credentials.branchId;
    if (branchId === null || this.members === undefined) {
      throw new UnauthenticatedError('Name the branch you work at in the X-Branch-Id header.');
    }
    const venueId = await this.members.branchVenue(branchId);
    const role = venueId === null ? null : await this.members.roleOf(venueId, userId);
    if (venueId === null || role === null) throw new ForbiddenError('You do not work at this branch.');
    return { keyId: null, userId, branchId, venueId, scopes: ['tickets:read', 'tickets:write'] };
  }

  private async principalOf(key: string): Promise<Principal | null> {
    const hash = hashApiKey(key);
    const cacheKey = hash.toString('hex');
    const cached = this.credentials.recheck === true ? undefined : this.cache.principal(cacheKey);
    if (cached !== undefined) return cached;
    const generation = this.cache.currentGeneration;
    const principal = await this.apiKeys.authenticateHash(hash);
    if (principal !== null) this.cache.rememberPrincipal(cacheKey, principal, generation);
    return principal;
  }

  private async entitlementsOf(venueId: number): Promise<VenueEntitlements> {
    const cached = this.credentials.recheck === true ? undefined : this.cache.entitlementsOf(venueId);
    if (cached !== undefined) return cached;
    const generation = this.cache.currentGeneration;
    const entitlements = await this.plans.entitlementsOf(venueId, this.requestId);
    this.cache.rememberEntitlements(venueId, entitlements, generation);
    return entitlements;
  }
}
