import type { EntityManager } from '../../../common/database';
import { ForbiddenError, NotFoundError, UnauthenticatedError } from '../../../common/errors';
import { InflightJoin } from '../../../common/inflight-join';
import { parseRecordId } from '../../../common/input.rules';
import { say, type Message } from '../../../common/messages';
import { AuditLog, type Actor, type AuditDetails } from '../../../common/audit-log';
import type { Branch } from './branch.entity';
import { MembershipRepository, type VenueRole } from './membership.repository';
import { VENUE_AUDIT } from './venue-audit';
import { VenueService } from './venue.service';

/** What each role may do at its venue (docs/API-DECISIONS.md, "Roles"). */
export type VenueAction = 'read' | 'manage' | 'own';

const ALLOWED: Record<VenueAction, readonly VenueRole[]> = {
  read: ['OWNER', 'MANAGER', 'STAFF'],
  manage: ['OWNER', 'MANAGER'],
  own: ['OWNER'],
};

/**
 * The signed-in person of a request as a venue sees them: whether their role allows an action, and
 * the audit log entry of each change they make. Every management part of the subgraph (venues,
 * members, keys, boards, webhooks) asks here, so the roles mean the same everywhere.
 */
export class VenueRoles {
  private readonly members: MembershipRepository;
  // A request hears every change it makes itself: its joins need no access announcements.
  private readonly rolesInFlight = new InflightJoin<VenueRole | null>(() => true);

  constructor(
    private readonly em: EntityManager,
    private readonly userId: number | null,
    /** The caller's address as the gateway saw it, for the audit log. */
    private readonly clientAddress: string | null,
  ) {
    this.members = new MembershipRepository(em);
  }

  /** The signed-in user, or UNAUTHENTICATED. */
  user(): number {
    if (this.userId === null) throw new UnauthenticatedError(say('identity.sign_in_required'));
    return this.userId;
  }

  /**
   * The caller's role where `action` is allowed; a stranger gets NOT_FOUND saying `notFound`, so a
   * thing of another venue reads as one that does not exist.
   */
  async requireOr(venueId: number, action: VenueAction, notFound: Message): Promise<VenueRole> {
    const role = await this.callerRole(venueId, this.user());
    if (role === null) throw new NotFoundError(notFound);
    if (!ALLOWED[action].includes(role)) throw new ForbiddenError(say('venue.role_forbidden', { role }));
    return role;
  }

  /**
   * The caller's role at the venue, when it allows `action`. A venue the caller is not a member of
   * does not exist for them (NOT_FOUND); a role that does not allow it is FORBIDDEN.
   */
  require(venueId: number, action: VenueAction): Promise<VenueRole> {
    return this.requireOr(venueId, action, say('venue.not_found'));
  }

  /** Any user's role at a venue: the platform's own question (billing's plan changes). */
  async roleOf(venueId: string, userId: string): Promise<VenueRole | null> {
    const venue = parseRecordId(venueId);
    const user = parseRecordId(userId);
    return venue === null || user === null ? null : this.members.roleOf(venue, user);
  }

  async roleAt(venueId: number): Promise<VenueRole | null> {
    return this.userId === null ? null : this.callerRole(venueId, this.userId);
  }

  /**
   * The caller's role at a venue. The fields of one venue that ask at once (its viewerRole,
   * branches and members) share one read while it is under way; a question asked after it settled
   * reads again, so nothing this request changed is answered from an older read.
   */
  private callerRole(venueId: number, userId: number): Promise<VenueRole | null> {
    return this.rolesInFlight.join(
      String(venueId),
      () => this.members.roleOf(venueId, userId),
      () => undefined,
    ).value;
  }

  /** A venue id the caller may read, from its wire form; NOT_FOUND otherwise. */
  async venueId(id: string): Promise<number> {
    const venueId = parseRecordId(id);
    if (venueId === null) throw new NotFoundError(say('venue.not_found'));
    await this.require(venueId, 'read');
    return venueId;
  }

  /** A venue id the caller manages (owner or manager), from its wire form; NOT_FOUND otherwise. */
  async managed(id: string): Promise<number> {
    const venueId = parseRecordId(id);
    if (venueId === null) throw new NotFoundError(say('venue.not_found'));
    await this.require(venueId, 'manage');
    return venueId;
  }

  /** A branch of a venue the caller manages (owner or manager); NOT_FOUND to anyone else. */
  async managedBranch(id: string): Promise<Branch> {
    const branchId = parseRecordId(id);
    const branch = branchId === null ? null : await this.branchOrNull(branchId);
    if (branch === null) throw new NotFoundError(say('venue.branch_not_found'));
    await this.requireOr(branch.venueId, 'manage', say('venue.branch_not_found'));
    return branch;
  }

  /** Keeps a change in the venue's audit log, as the signed-in user's. */
  async audit(
    venueId: number,
    action: string,
    target: string,
    details: AuditDetails = {},
    em: EntityManager = this.em,
  ): Promise<void> {
    await new AuditLog(em, VENUE_AUDIT).record({
      subjectId: venueId,
      actor: { type: 'user', id: this.user() },
      action,
      target,
      details,
      clientAddress: this.clientAddress,
    });
  }

  /** Keeps a change made by someone other than the signed-in person (a board device pairing). */
  async auditAs(
    venueId: number,
    actor: Actor,
    action: string,
    target: string,
    details: AuditDetails,
    clientAddress: string | null,
  ): Promise<void> {
    await new AuditLog(this.em, VENUE_AUDIT).record({
      subjectId: venueId,
      actor,
      action,
      target,
      details,
      clientAddress,
    });
  }

  private branchOrNull(branchId: number): Promise<Branch | null> {
    return new VenueService(this.em).getBranch(branchId).catch((error: unknown) => {
      if (error instanceof NotFoundError) return null;
      throw error;
    });
  }
}
