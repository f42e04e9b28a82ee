import { Arg, FieldResolver, Mutation, Resolver, Root } from 'type-graphql';
import { AssumedSize } from '../../../common/cost.graphql';
import {
  ChangeMemberRoleInput,
  InviteMemberInput,
  RemoveMemberInput,
  VenueMemberType,
  VenueRoleValue,
} from './venue-management.type';
import { VENUE_CAPS } from './venue-caps';
import { VenueMembers } from './venue-members.service';
import { toVenueType, VenueType } from './venue.type';

/** A venue's people on the graph: who they are, invitations, roles and leaving. */
@Resolver(() => VenueType)
export class VenueMembersResolver {
  constructor(private readonly management: VenueMembers) {}

  @AssumedSize(VENUE_CAPS.members)
  @FieldResolver(() => [VenueMemberType], {
    description: `The venue’s people and roles; with its pending invitations, at most ${VENUE_CAPS.members}. Owners and managers.`,
  })
  async members(@Root() venue: VenueType): Promise<VenueMemberType[]> {
    return (await this.management.membersOf(Number(venue.id))).map((m) => ({
      user: { id: String(m.userId) },
      role: m.role as VenueRoleValue,
      createdAt: m.createdAt,
    }));
  }

  @Mutation(() => Boolean, {
    description: `Mails an invitation to join the venue (a single-use link, seven days). Owners only; past ${VENUE_CAPS.members} members and pending invitations, BAD_USER_INPUT on venueId.`,
  })
  inviteMember(
    @Arg('input', () => InviteMemberInput, { description: 'The venue, the address to invite and the role.' })
    input: InviteMemberInput,
  ): Promise<boolean> {
    return this.management.inviteMember(input);
  }

  @Mutation(() => VenueType, {
    description: 'Joins the venue of an invitation sent to the signed-in user’s address.',
  })
  async acceptInvitation(
    @Arg('token', () => String, { description: 'The token from the invitation’s link.' }) token: string,
  ): Promise<VenueType> {
    return toVenueType(await this.management.acceptInvitation(token));
  }

  @Mutation(() => VenueMemberType, {
    description: 'Changes a member’s role; a venue keeps an owner. Owners only.',
  })
  async changeMemberRole(
    @Arg('input', () => ChangeMemberRoleInput, { description: 'The venue, the member and the new role.' })
    input: ChangeMemberRoleInput,
  ): Promise<VenueMemberType> {
    const member = await this.management.changeMemberRole(input);
    return {
      user: { id: String(member.userId) },
      role: member.role as VenueRoleValue,
      createdAt: member.createdAt,
    };
  }

  @Mutation(() => Boolean, {
    description: 'Takes a member off the venue (owners), or leaves it (anyone); a venue keeps an owner.',
  })
  removeMember(
    @Arg('input', () => RemoveMemberInput, { description: 'The venue and the member.' })
    input: RemoveMemberInput,
  ): Promise<boolean> {
    return this.management.removeMember(input);
  }
}
