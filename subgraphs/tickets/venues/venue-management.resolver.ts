import { Arg, Directive, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import { AssumedSize } from '../../../common/cost.graphql';
import { auditLogResolver } from '../../../common/audit.graphql';
import {
  AuditLogPageType,
  CreateBranchInput,
  CreateVenueInput,
  RenameBranchInput,
  SetVenueSmsInput,
  SetVenueWaitAlertInput,
  SetVenueWhatsAppInput,
  VenueRoleValue,
} from './venue-management.type';
import { VENUE_CAPS, VENUES_PER_PERSON } from './venue-caps';
import { VenueManagement } from './venue-management.service';
import { VenueRoles } from './venue-roles';
import { BranchType, toBranchType, toVenueType, VenueType } from './venue.type';

/** The control panel's venue operations, for signed-in people (roles in VenueRoles). */
@Resolver(() => VenueType)
export class VenueManagementResolver {
  constructor(
    private readonly management: VenueManagement,
    private readonly roles: VenueRoles,
  ) {}

  @AssumedSize(VENUES_PER_PERSON)
  @Query(() => [VenueType], { description: 'The venues the signed-in user belongs to, by id.' })
  async myVenues(): Promise<VenueType[]> {
    return (await this.management.myVenues()).map(({ venue }) => toVenueType(venue));
  }

  @Query(() => VenueType, {
    description: 'One of the signed-in user’s venues; any other id is NOT_FOUND.',
  })
  async venue(@Arg('id', () => ID, { description: 'The venue’s id.' }) id: string): Promise<VenueType> {
    return toVenueType(await this.management.venue(id));
  }

  @Directive('@inaccessible')
  @Query(() => VenueRoleValue, {
    nullable: true,
    description: 'A user’s role at a venue, for billing’s plan changes; hidden from the public graph.',
  })
  venueRole(
    @Arg('venueId', () => ID, { description: 'The venue.' }) venueId: string,
    @Arg('userId', () => ID, { description: 'The user.' }) userId: string,
  ): Promise<VenueRoleValue | null> {
    return this.roles.roleOf(venueId, userId) as Promise<VenueRoleValue | null>;
  }

  @FieldResolver(() => VenueRoleValue, {
    nullable: true,
    description: 'The signed-in user’s role at the venue; null when read with an API key.',
  })
  async viewerRole(@Root() venue: VenueType): Promise<VenueRoleValue | null> {
    return (await this.roles.roleAt(Number(venue.id))) as VenueRoleValue | null;
  }

  @FieldResolver(() => Boolean, {
    description:
      'Whether the venue sends the ready alert on WhatsApp to customers who opt in: its switch is on and the platform has WhatsApp configured.',
  })
  whatsappEnabled(@Root() venue: VenueType): boolean {
    return venue.whatsappStored && this.management.whatsappConfigured;
  }

  @AssumedSize(VENUE_CAPS.branches)
  @FieldResolver(() => [BranchType], {
    description: `The venue’s branches, oldest first (at most ${VENUE_CAPS.branches}). Any member.`,
  })
  async branches(@Root() venue: VenueType): Promise<BranchType[]> {
    return (await this.management.branches(Number(venue.id))).map((b) => ({
      id: String(b.id),
      name: b.name,
      venueId: b.venueId,
    }));
  }

  @Directive('@inaccessible')
  @Mutation(() => Boolean, {
    description: 'Keeps a plan change billing made in the venue’s audit log; hidden from the public graph.',
  })
  recordPlanChange(
    @Arg('venueId', () => ID, { description: 'The venue.' }) venueId: string,
    @Arg('userId', () => ID, { description: 'The owner who changed it.' }) userId: string,
    @Arg('plan', () => String, { description: 'The new plan.' }) plan: string,
    @Arg('clientAddress', () => String, { nullable: true, description: 'Where the change came from.' })
    clientAddress: string | null,
  ): Promise<boolean> {
    return this.management.recordPlanChange(venueId, userId, plan, clientAddress);
  }

  @Mutation(() => VenueType, {
    description: 'Creates a venue owned by the signed-in user, on the starter plan.',
  })
  async createVenue(
    @Arg('input', () => CreateVenueInput, { description: 'The venue’s name, language and time zone.' })
    input: CreateVenueInput,
  ): Promise<VenueType> {
    return toVenueType(await this.management.createVenue(input));
  }

  @Mutation(() => BranchType, {
    description: `Adds a branch to a venue. Owners and managers; past ${VENUE_CAPS.branches} branches, BAD_USER_INPUT on venueId.`,
  })
  async createBranch(
    @Arg('input', () => CreateBranchInput, { description: 'The venue and the new branch’s name.' })
    input: CreateBranchInput,
  ): Promise<BranchType> {
    return toBranchType(await this.management.createBranch(input));
  }

  @Mutation(() => BranchType, { description: 'Renames a branch. Owners and managers.' })
  async renameBranch(
    @Arg('input', () => RenameBranchInput, { description: 'The branch and its new name.' })
    input: RenameBranchInput,
  ): Promise<BranchType> {
    const branch = await this.management.renameBranch(input);
    return { id: String(branch.id), name: branch.name, venueId: branch.venueId };
  }

  @Mutation(() => VenueType, {
    description: 'Turns the venue’s one SMS on ready on or off. Owners and managers.',
  })
  async setVenueSms(
    @Arg('input', () => SetVenueSmsInput, { description: 'The venue, and SMS on or off.' })
    input: SetVenueSmsInput,
  ): Promise<VenueType> {
    return toVenueType(await this.management.setSms(input));
  }

  @Mutation(() => VenueType, {
    description:
      'Turns the ready alert on WhatsApp on or off. Owners and managers; on needs a plan with WhatsApp (PAYMENT_REQUIRED) and the platform’s WhatsApp configuration (BAD_USER_INPUT); audit-logged.',
  })
  async setVenueWhatsApp(
    @Arg('input', () => SetVenueWhatsAppInput, { description: 'The venue, and WhatsApp on or off.' })
    input: SetVenueWhatsAppInput,
  ): Promise<VenueType> {
    return toVenueType(await this.management.setWhatsApp(input));
  }

  @Mutation(() => VenueType, {
    description:
      'Sets the minutes past which the staff board highlights the wait. Owners and managers; audit-logged.',
  })
  async setVenueWaitAlert(
    @Arg('input', () => SetVenueWaitAlertInput, { description: 'The venue and the minutes.' })
    input: SetVenueWaitAlertInput,
  ): Promise<VenueType> {
    return toVenueType(await this.management.setWaitAlert(input));
  }
}

/** `Venue.auditLog`, read through VenueManagement, which lets owners and managers read it. */
export const VenueAuditLogResolver = auditLogResolver({
  owner: VenueType,
  page: AuditLogPageType,
  description: 'Every management change of the venue, newest first. Owners and managers.',
  user: (_venue, id) => ({ id: String(id) }),
});
