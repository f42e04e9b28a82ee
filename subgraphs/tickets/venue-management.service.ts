import { hashSecret, newSecret } from '../../common/api-keys';
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
import { say, text, type Message } from '../../common/messages';
import type { SubgraphClient } from '../../common/subgraph-call';
import type { AccessChange } from '../../contracts/tickets/access-change';
import { mailFromMessages, type Mailer } from '../../common/mail';
import type { PeopleClient } from '../../contracts/identity/people.client';
import type { TicketScope } from './api-key.entity';
import { ApiKeyService, parseScopes, type IssuedKey } from './api-key.service';
import type { Branch } from './branch.entity';
import {
  InvitationRepository,
  MembershipRepository,
  type Membership,
  type VenueApiKey,
  type VenueRole,
} from './membership.repository';
import { AuditLog, type Actor, type AuditDetails, type AuditEvent } from '../../common/audit-log';
import { VENUE_AUDIT } from './venue-audit';
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

/** Higher roles first: the lower number wins when two would apply. */
const RANK: Record<VenueRole, number> = { OWNER: 0, MANAGER: 1, STAFF: 2 };

/** An address with one @ and a dot in its domain: the mail server decides the rest. */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** A new venue starts on the cheapest ticket plan; its owner changes it. */
export const FIRST_PLAN = 'starter';

const START_SUBSCRIPTION = `mutation StartSubscription($id: ID!, $plan: String!) {
  startSubscription(subjectType: "venue", subjectId: $id, plan: $plan)
}`;

/** What venue management reaches outside its own tables. */
export interface VenueManagementPorts {
  billing: SubgraphClient;
  people: PeopleClient;
  mailer: Mailer;
  /** Where invitation links lead: the panel's pages. */
  appBaseUrl: string;
  requestId: string;
  /** Tells every tickets process and the gateway to drop what they cached of a key or venue. */
  announce: (change: AccessChange) => Promise<void>;
  /** The caller's address as the gateway saw it, for the audit log. */
  clientAddress: string | null;
}

/** Invitations are redeemed within this many days. */
export const INVITATION_DAYS = 7;

/** Venues as their people manage them: the signed-in user's side of the tickets subgraph. */
export class VenueManagement {
  private readonly members: MembershipRepository;
  private readonly venues: VenueService;
  private readonly keys: ApiKeyService;

  private readonly billing: SubgraphClient;
  private readonly requestId: string;

  constructor(
    private readonly em: EntityManager,
    private readonly userId: number | null,
    private readonly outside: VenueManagementPorts,
  ) {
    this.billing = outside.billing;
    this.requestId = outside.requestId;
    this.members = new MembershipRepository(em);
    this.venues = new VenueService(em);
    this.keys = new ApiKeyService(em);
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
      clientAddress: this.outside.clientAddress,
    });
  }

  /** The venue's audit log, newest first, by pages. Owners and managers. */
  async auditLog(venueId: number, first: number, before: number | null): Promise<AuditEvent[]> {
    await this.require(venueId, 'manage');
    return new AuditLog(this.em, VENUE_AUDIT).page(venueId, first, before);
  }

  /** A plan change billing made for the owner, kept in the venue's log: the platform's own call. */
  async recordPlanChange(
    venueId: string,
    userId: string,
    plan: string,
    clientAddress: string | null,
  ): Promise<boolean> {
    const venue = parseRecordId(venueId);
    const user = parseRecordId(userId);
    if (venue === null || user === null) throw new NotFoundError(say('venue.not_found'));
    await this.auditAs(
      venue,
      { type: 'user', id: user },
      'plan.changed',
      `venue:${venue}`,
      { plan },
      clientAddress,
    );
    return true;
  }

  /** The signed-in user, or UNAUTHENTICATED. */
  user(): number {
    if (this.userId === null) throw new UnauthenticatedError(say('identity.sign_in_required'));
    return this.userId;
  }

  /** The signed-in person's id; UNAUTHENTICATED without one. */
  signedInUser(): number {
    return this.user();
  }

  /**
   * The caller's role where `action` is allowed; a stranger gets NOT_FOUND saying `notFound`, so a
   * thing of another venue reads as one that does not exist.
   */
  async requireOr(venueId: number, action: VenueAction, notFound: Message): Promise<VenueRole> {
    const role = await this.members.roleOf(venueId, this.user());
    if (role === null) throw new NotFoundError(notFound);
    if (!ALLOWED[action].includes(role)) throw new ForbiddenError(say('venue.role_forbidden', { role }));
    return role;
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
      await this.audit(created.id, 'venue.created', `venue:${created.id}`, { name: created.name }, em);
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
    const branch = await this.venues.createBranch(venueId, input.name);
    await this.audit(venueId, 'branch.created', `branch:${branch.id}`, { name: branch.name });
    return branch;
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
    await this.audit(branch.venueId, 'branch.renamed', `branch:${branch.id}`, { name });
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
    await this.audit(branch.venueId, 'api_key.issued', `api_key:${issued.id}`, {
      name: issued.name,
      prefix: issued.prefix,
      branch_id: branch.id,
      scopes: issued.scopes.join(','),
    });
    return { issued, venueId: branch.venueId };
  }

  /** Revokes a key of a venue the caller manages; returns it and its venue, to read it back. */
  async revokeApiKey(id: string): Promise<{ keyId: number; venueId: number }> {
    const keyId = parseRecordId(id);
    const venueId = keyId === null ? null : await this.members.venueOfKey(keyId);
    if (keyId === null || venueId === null) throw new NotFoundError(say('venue.key_not_found'));
    await this.requireOr(venueId, 'manage', say('venue.key_not_found'));
    await this.keys.revoke(keyId);
    await this.outside.announce({ keyId, venueId });
    await this.audit(venueId, 'api_key.revoked', `api_key:${keyId}`);
    return { keyId, venueId };
  }

  async setSms(input: { venueId: string; enabled: boolean }): Promise<Venue> {
    const venueId = await this.managed(input.venueId);
    const venue = await this.venues.setSms(venueId, input.enabled);
    await this.audit(venueId, 'sms.changed', `venue:${venueId}`, { enabled: input.enabled });
    return venue;
  }

  /**
   * Mails a single-use link (INVITATION_DAYS) to join the venue in a role. Owners only; the mail is
   * in the venue's language, since the invited person may have no account yet.
   */
  async inviteMember(input: { venueId: string; email: string; role: VenueRole }): Promise<boolean> {
    const venueId = parseRecordId(input.venueId);
    if (venueId === null) throw new NotFoundError(say('venue.not_found'));
    await this.require(venueId, 'own');
    const email = input.email.trim();
    if (email.length > 254 || !EMAIL.test(email)) {
      throw new ValidationError({ email: [say('field.email', { field: 'email' })] });
    }
    const venue = await this.venues.get(venueId);
    const inviter = await this.outside.people.person(this.user(), this.requestId);
    const token = newSecret('inv_');
    await new InvitationRepository(this.em).create({
      venueId,
      email,
      role: input.role,
      tokenHash: hashSecret(token),
      invitedBy: this.user(),
      days: INVITATION_DAYS,
    });
    await this.audit(venueId, 'member.invited', `email:${email}`, { role: input.role });
    const language = venue.language;
    await this.outside.mailer.send({
      to: email,
      language,
      ...mailFromMessages('invite', language, {
        venue: venue.name,
        role: text(`venue.role.${input.role}`, language),
        inviter: inviter?.name ?? venue.name,
        // In the fragment, so no server between the mail and the panel logs the token.
        url: `${this.outside.appBaseUrl}/venues/accept-invitation#token=${token}`,
      }),
    });
    return true;
  }

  /** Joins the venue of an invitation sent to the signed-in user's own address. */
  async acceptInvitation(token: string): Promise<Venue> {
    const userId = this.user();
    const person = await this.outside.people.person(userId, this.requestId);
    if (person === null) throw new UnauthenticatedError(say('identity.sign_in_required'));
    const venueId = await this.em.transactional(async (em) => {
      const invitations = new InvitationRepository(em);
      const invitation = await invitations.redeem(hashSecret(token), userId);
      if (invitation === null) throw new ValidationError({ token: [say('identity.token_invalid')] });
      if (invitation.email.toLowerCase() !== person.email.toLowerCase()) {
        throw new ValidationError({ token: [say('venue.invitation_other_email')] });
      }
      const members = new MembershipRepository(em);
      // Someone already at the venue keeps the higher of the two roles.
      const current = await members.roleOf(invitation.venueId, userId);
      if (current === null || RANK[invitation.role] < RANK[current]) {
        await members.add(invitation.venueId, userId, invitation.role);
      }
      await this.audit(invitation.venueId, 'member.joined', `user:${userId}`, { role: invitation.role }, em);
      return invitation.venueId;
    });
    return this.venues.get(venueId);
  }

  /** Owners only; the venue keeps at least one owner. */
  async changeMemberRole(input: { venueId: string; userId: string; role: VenueRole }): Promise<Membership> {
    const { venueId, userId } = await this.ownedMember(input.venueId, input.userId);
    await this.em.transactional(async (em) => {
      const invitations = new InvitationRepository(em);
      await invitations.lockMembers(venueId);
      if (input.role !== 'OWNER' && (await invitations.ownersBesides(venueId, userId)) === 0) {
        throw new ValidationError({ role: [say('venue.last_owner')] });
      }
      if (!(await invitations.setRole(venueId, userId, input.role))) {
        throw new NotFoundError(say('venue.member_not_found'));
      }
      await this.audit(venueId, 'member.role_changed', `user:${userId}`, { role: input.role }, em);
    });
    return (await this.members.ofVenue(venueId)).find((m) => m.userId === userId)!;
  }

  /** Owners remove anyone; anyone may leave. The venue keeps at least one owner. */
  async removeMember(input: { venueId: string; userId: string }): Promise<boolean> {
    const venueId = parseRecordId(input.venueId);
    const userId = parseRecordId(input.userId);
    if (venueId === null) throw new NotFoundError(say('venue.not_found'));
    if (userId !== this.user()) await this.require(venueId, 'own');
    else await this.require(venueId, 'read');
    if (userId === null) throw new NotFoundError(say('venue.member_not_found'));
    await this.em.transactional(async (em) => {
      const invitations = new InvitationRepository(em);
      await invitations.lockMembers(venueId);
      if ((await invitations.ownersBesides(venueId, userId)) === 0) {
        const role = await new MembershipRepository(em).roleOf(venueId, userId);
        if (role === 'OWNER') throw new ValidationError({ userId: [say('venue.last_owner')] });
      }
      if (!(await invitations.remove(venueId, userId)))
        throw new NotFoundError(say('venue.member_not_found'));
      const action = userId === this.user() ? 'member.left' : 'member.removed';
      await this.audit(venueId, action, `user:${userId}`, {}, em);
    });
    // A staff board open as them at this venue closes at once, not at their next action.
    await this.outside.announce({ userId });
    return true;
  }

  private async ownedMember(venue: string, user: string): Promise<{ venueId: number; userId: number }> {
    const venueId = parseRecordId(venue);
    if (venueId === null) throw new NotFoundError(say('venue.not_found'));
    await this.require(venueId, 'own');
    const userId = parseRecordId(user);
    if (userId === null) throw new NotFoundError(say('venue.member_not_found'));
    return { venueId, userId };
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

  /** A branch of a venue the caller manages (owner or manager); NOT_FOUND to anyone else. */
  async managedBranch(id: string): Promise<Branch> {
    const branchId = parseRecordId(id);
    const branch = branchId === null ? null : await this.branchOrNull(branchId);
    if (branch === null) throw new NotFoundError(say('venue.branch_not_found'));
    await this.requireOr(branch.venueId, 'manage', say('venue.branch_not_found'));
    return branch;
  }
}
