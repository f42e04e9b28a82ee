import { hashSecret, newSecret } from '../../../common/api-keys';
import type { EntityManager } from '../../../common/database';
import { NotFoundError, UnauthenticatedError, ValidationError } from '../../../common/errors';
import { parseRecordId } from '../../../common/input.rules';
import { say, text } from '../../../common/messages';
import { mailFromMessages, type Mailer } from '../../../common/mail';
import type { AccessChange } from '../../../contracts/tickets/access-change';
import type { PeopleClient } from '../../../contracts/identity/people.client';
import {
  InvitationRepository,
  MembershipRepository,
  type Membership,
  type VenueRole,
} from './membership.repository';
import { claimPersonVenue, claimVenueRoom } from './venue-caps';
import type { VenueRoles } from './venue-roles';
import type { Venue } from './venue.entity';
import { VenueService } from './venue.service';

/** Higher roles first: the lower number wins when two would apply. */
const RANK: Record<VenueRole, number> = { OWNER: 0, MANAGER: 1, STAFF: 2 };

/** An address with one @ and a dot in its domain: the mail server decides the rest. */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Invitations are redeemed within this many days. */
export const INVITATION_DAYS = 7;

/** What a venue's members reach outside its own tables. */
export interface VenueMembersPorts {
  people: PeopleClient;
  mailer: Mailer;
  /** Where invitation links lead: the panel's pages. */
  appBaseUrl: string;
  requestId: string;
  /** Tells every tickets process and the gateway to drop what they cached of a person. */
  announce: (change: AccessChange) => Promise<void>;
}

/** A venue's people: who they are, invitations to join, roles, and leaving. */
export class VenueMembers {
  private readonly members: MembershipRepository;
  private readonly venues: VenueService;

  constructor(
    private readonly em: EntityManager,
    private readonly roles: VenueRoles,
    private readonly outside: VenueMembersPorts,
  ) {
    this.members = new MembershipRepository(em);
    this.venues = new VenueService(em);
  }

  async membersOf(venueId: number): Promise<Membership[]> {
    await this.roles.require(venueId, 'manage');
    return this.members.ofVenue(venueId);
  }

  /**
   * Mails a single-use link (INVITATION_DAYS) to join the venue in a role. Owners only; the mail is
   * in the venue's language, since the invited person may have no account yet. Members and pending
   * invitations together stay within VENUE_CAPS.members.
   */
  async inviteMember(input: { venueId: string; email: string; role: VenueRole }): Promise<boolean> {
    const venueId = parseRecordId(input.venueId);
    if (venueId === null) throw new NotFoundError(say('venue.not_found'));
    await this.roles.require(venueId, 'own');
    const email = input.email.trim();
    if (email.length > 254 || !EMAIL.test(email)) {
      throw new ValidationError({ email: [say('field.email', { field: 'email' })] });
    }
    const venue = await this.venues.get(venueId);
    const inviter = await this.outside.people.person(this.roles.user(), this.outside.requestId);
    const token = newSecret('inv_');
    await this.em.transactional(async (em) => {
      const invitations = new InvitationRepository(em);
      // An accepted invitation turns into the member it counted for, so only inviting claims room.
      await claimVenueRoom(em, venueId, 'members', 'venueId', () => invitations.placesHeld(venueId));
      await invitations.create({
        venueId,
        email,
        role: input.role,
        tokenHash: hashSecret(token),
        invitedBy: this.roles.user(),
        days: INVITATION_DAYS,
      });
    });
    await this.roles.audit(venueId, 'member.invited', `email:${email}`, { role: input.role });
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
    const userId = this.roles.user();
    const person = await this.outside.people.person(userId, this.outside.requestId);
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
      if (current === null) await claimPersonVenue(em, userId);
      if (current === null || RANK[invitation.role] < RANK[current]) {
        await members.add(invitation.venueId, userId, invitation.role);
      }
      await this.roles.audit(
        invitation.venueId,
        'member.joined',
        `user:${userId}`,
        { role: invitation.role },
        em,
      );
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
      await this.roles.audit(venueId, 'member.role_changed', `user:${userId}`, { role: input.role }, em);
    });
    return (await this.members.ofVenue(venueId)).find((m) => m.userId === userId)!;
  }

  /** Owners remove anyone; anyone may leave. The venue keeps at least one owner. */
  async removeMember(input: { venueId: string; userId: string }): Promise<boolean> {
    const venueId = parseRecordId(input.venueId);
    const userId = parseRecordId(input.userId);
    if (venueId === null) throw new NotFoundError(say('venue.not_found'));
    if (userId !== this.roles.user()) await this.roles.require(venueId, 'own');
    else await this.roles.require(venueId, 'read');
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
      const action = userId === this.roles.user() ? 'member.left' : 'member.removed';
      await this.roles.audit(venueId, action, `user:${userId}`, {}, em);
    });
    // A staff board open as them at this venue closes at once, not at their next action.
    await this.outside.announce({ userId });
    return true;
  }

  private async ownedMember(venue: string, user: string): Promise<{ venueId: number; userId: number }> {
    const venueId = parseRecordId(venue);
    if (venueId === null) throw new NotFoundError(say('venue.not_found'));
    await this.roles.require(venueId, 'own');
    const userId = parseRecordId(user);
    if (userId === null) throw new NotFoundError(say('venue.member_not_found'));
    return { venueId, userId };
  }
}
