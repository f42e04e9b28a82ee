import type { EntityManager } from '../../common/database';
import {
  ForbiddenError,
  NotFoundError,
  UnauthenticatedError,
  UnavailableError,
  ValidationError,
  type FieldMessages,
} from '../../common/errors';
import { parseRecordId } from '../../common/input.rules';
import { say } from '../../common/messages';
import type { SubgraphClient } from '../../common/subgraph-call';
import type { AccessChange } from '../../contracts/tickets/access-change';
import type { TicketScope } from './api-key.entity';
import { ApiKeyService, parseScopes, type IssuedKey } from './api-key.service';
import type { Branch } from './branch.entity';
import {
  MembershipRepository,
  type Membership,
  type VenueApiKey,
  type VenueRole,
} from './membership.repository';
import { checkName } from './ticket.rules';
import type { Venue } from './venue.entity';
import { VenueService } from './venue.service';

/** What each role may do at its venue (docs/API-DECISIONS.md, "Roles"). */
export type VenueAction = 'read' | 'manage' | 'own';

const ALLOWED: Record<VenueAction, readonly VenueRole[]> = {
  read: ['OWNER', 'MANAGER', 'STAFF'],
  manage: ['OWNER', 'MANAGER'],
  own: ['OWNER'],
};

/** A new venue starts on the cheapest ticket plan; its owner changes it. */
export const FIRST_PLAN = 'starter';

const START_SUBSCRIPTION = `mutation StartSubscription($id: ID!, $plan: String!) {
  startSubscription(subjectType: "venue", subjectId: $id, plan: $plan)
}`;

/** Venues as their people manage them: the signed-in user's side of the tickets subgraph. */
export class VenueManagement {
  private readonly members: MembershipRepository;
  private readonly venues: VenueService;
  private readonly keys: ApiKeyService;

  constructor(
    private readonly em: EntityManager,
    private readonly userId: number | null,
    private readonly billing: SubgraphClient,
    private readonly requestId: string,
    /** Tells every tickets process and the gateway to drop what they cached of a key or venue. */
    private readonly announce: (change: AccessChange) => Promise<void>,
  ) {
    this.members = new MembershipRepository(em);
    this.venues = new VenueService(em);
    this.keys = new ApiKeyService(em);
  }

  /** The signed-in user, or UNAUTHENTICATED. */
  user(): number {
    if (this.userId === null) throw new UnauthenticatedError(say('identity.sign_in_required'));
    return this.userId;
  }

  /**
   * The caller's role at the venue, when it allows `action`. A venue the caller is not a member of
   * does not exist for them (NOT_FOUND); a role that does not allow it is FORBIDDEN.
   */
  async require(venueId: number, action: VenueAction): Promise<VenueRole> {
    const role = await this.members.roleOf(venueId, this.user());
    if (role === null) throw new NotFoundError(say('venue.not_found'));
    if (!ALLOWED[action].includes(role)) throw new ForbiddenError(say('venue.role_forbidden', { role }));
    return role;
  }

  /** Any user's role at a venue: the platform's own question (billing's plan changes). */
  async roleOf(venueId: string, userId: string): Promise<VenueRole | null> {
    const venue = parseRecordId(venueId);
    const user = parseRecordId(userId);
    return venue === null || user === null ? null : this.members.roleOf(venue, user);
  }

  async roleAt(venueId: number): Promise<VenueRole | null> {
    return this.userId === null ? null : this.members.roleOf(venueId, this.userId);
  }

  async venueId(id: string): Promise<number> {
    const venueId = parseRecordId(id);
    if (venueId === null) throw new NotFoundError(say('venue.not_found'));
    await this.require(venueId, 'read');
    return venueId;
  }

  /**
   * The venue with the caller as its owner, on the first plan. The venue and the membership are
   * one transaction; if billing cannot take the subscription, both are undone.
   */
  async createVenue(input: {
    name: string;
    language?: string | null;
    timezone?: string | null;
  }): Promise<Venue> {
    const userId = this.user();
    const errors: FieldMessages = {};
    if (
      input.language !== undefined &&
      input.language !== null &&
      input.language !== 'ar' &&
      input.language !== 'en'
    ) {
      errors.language = [say('field.selected_invalid', { field: 'language' })];
    }
    if (Object.keys(errors).length > 0) throw new ValidationError(errors);
    const venue = await this.em.transactional(async (em) => {
      const created = await new VenueService(em).create({
        name: input.name,
        ...(input.language ? { language: input.language as 'ar' | 'en' } : {}),
        ...(input.timezone ? { timezone: input.timezone } : {}),
      });
      await new MembershipRepository(em).add(created.id, userId, 'OWNER');
      return created;
    });
    try {
      await this.billing.call(
        'starting the venue’s plan',
        START_SUBSCRIPTION,
        { id: String(venue.id), plan: FIRST_PLAN },
        { requestId: this.requestId },
      );
    } catch {
      await this.em.execute('delete from tickets.venues where id = ?', [venue.id]);
      throw new UnavailableError('Billing could not start the venue’s plan. Retry shortly.', 5);
    }
    return venue;
  }

  async myVenues(): Promise<{ venue: Venue; role: VenueRole }[]> {
    const memberships = await this.members.ofUser(this.user());
    return Promise.all(
      memberships.map(async (m) => ({ venue: await this.venues.get(m.venueId), role: m.role })),
    );
  }

  async venue(id: string): Promise<Venue> {
    return this.venues.get(await this.venueId(id));
  }

  async branches(venueId: number): Promise<{ id: number; name: string; venueId: number }[]> {
    await this.require(venueId, 'read');
    return this.members.branchesOf(venueId);
  }

  async membersOf(venueId: number): Promise<Membership[]> {
    await this.require(venueId, 'manage');
    return this.members.ofVenue(venueId);
  }

  async apiKeysOf(venueId: number): Promise<VenueApiKey[]> {
    await this.require(venueId, 'manage');
    return this.members.apiKeysOf(venueId);
  }

  async createBranch(input: { venueId: string; name: string }): Promise<Branch> {
    const venueId = await this.managed(input.venueId);
    return this.venues.createBranch(venueId, input.name);
  }

  async renameBranch(input: {
    branchId: string;
    name: string;
  }): Promise<{ id: number; name: string; venueId: number }> {
    const branch = await this.managedBranch(input.branchId);
    const errors: FieldMessages = {};
    const name = checkName(errors, 'name', input.name);
    if (Object.keys(errors).length > 0) throw new ValidationError(errors);
    await this.members.renameBranch(branch.id, name);
    return { ...branch, name };
  }

  async issueApiKey(input: {
    branchId: string;
    name: string;
    scopes?: string[] | null;
  }): Promise<{ issued: IssuedKey; venueId: number }> {
    const branch = await this.managedBranch(input.branchId);
    const scopes: readonly TicketScope[] | undefined =
      input.scopes === undefined || input.scopes === null ? undefined : parseScopes(input.scopes.join(','));
    const issued = await this.keys.issue(branch.id, input.name, scopes);
    await this.members.setKeyCreator(issued.id, this.user());
    return { issued, venueId: branch.venueId };
  }

  /** Revokes a key of a venue the caller manages; returns it and its venue, to read it back. */
  async revokeApiKey(id: string): Promise<{ keyId: number; venueId: number }> {
    const keyId = parseRecordId(id);
    const venueId = keyId === null ? null : await this.members.venueOfKey(keyId);
    if (keyId === null || venueId === null) throw new NotFoundError(say('venue.key_not_found'));
    const role = await this.members.roleOf(venueId, this.user());
    if (role === null) throw new NotFoundError(say('venue.key_not_found'));
    if (!ALLOWED.manage.includes(role)) throw new ForbiddenError(say('venue.role_forbidden', { role }));
    await this.keys.revoke(keyId);
    await this.announce({ keyId });
    return { keyId, venueId };
  }

  async setSms(input: { venueId: string; enabled: boolean }): Promise<Venue> {
    return this.venues.setSms(await this.managed(input.venueId), input.enabled);
  }

  private branchOrNull(branchId: number): Promise<Branch | null> {
    return this.venues.getBranch(branchId).catch((error: unknown) => {
      if (error instanceof NotFoundError) return null;
      throw error;
    });
  }

  private async managed(id: string): Promise<number> {
    const venueId = parseRecordId(id);
    if (venueId === null) throw new NotFoundError(say('venue.not_found'));
    await this.require(venueId, 'manage');
    return venueId;
  }

  private async managedBranch(id: string): Promise<Branch> {
    const branchId = parseRecordId(id);
    const branch = branchId === null ? null : await this.branchOrNull(branchId);
    if (branch === null) throw new NotFoundError(say('venue.branch_not_found'));
    const role = await this.members.roleOf(branch.venueId, this.user());
    if (role === null) throw new NotFoundError(say('venue.branch_not_found'));
    if (!ALLOWED.manage.includes(role)) throw new ForbiddenError(say('venue.role_forbidden', { role }));
    return branch;
  }
}
