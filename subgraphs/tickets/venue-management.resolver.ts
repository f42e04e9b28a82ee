import { Arg, Directive, FieldResolver, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { AuditAfterArg, AuditFirstArg, auditPage } from '../../common/audit.graphql';
import {
  AuditLogPageType,
  ChangeMemberRoleInput,
  InviteMemberInput,
  RemoveMemberInput,
  CreateBranchInput,
  CreateVenueInput,
  IssuedVenueApiKeyType,
  IssueApiKeyInput,
  RenameBranchInput,
  SetVenueSmsInput,
  toVenueApiKeyType,
  VenueApiKeyType,
  VenueMemberType,
  VenueRoleValue,
} from './venue-management.type';
import { VenueManagement } from './venue-management.service';
import { BranchType, toBranchType, toVenueType, VenueType } from './venue.type';

/** How many members or keys a venue lists unless asked for more; the gateway weighs a list by it. */
const LIST_DEFAULT = 50;
const LIST_MAX = 100;

function bounded(first: number): number {
  return Math.min(Math.max(first, 0), LIST_MAX);
}

/** The control panel's venue operations, for signed-in people (roles in VenueManagement). */
@Resolver(() => VenueType)
export class VenueManagementResolver {
  constructor(private readonly management: VenueManagement) {}

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
    return this.management.roleOf(venueId, userId) as Promise<VenueRoleValue | null>;
  }

  @FieldResolver(() => VenueRoleValue, {
    nullable: true,
    description: 'The signed-in user’s role at the venue; null when read with an API key.',
  })
  async viewerRole(@Root() venue: VenueType): Promise<VenueRoleValue | null> {
    return (await this.management.roleAt(Number(venue.id))) as VenueRoleValue | null;
  }

  @FieldResolver(() => [BranchType], { description: 'The venue’s branches, oldest first. Any member.' })
  async branches(@Root() venue: VenueType): Promise<BranchType[]> {
    return (await this.management.branches(Number(venue.id))).map((b) => ({
      id: String(b.id),
      name: b.name,
      venueId: b.venueId,
    }));
  }

  @FieldResolver(() => [VenueMemberType], {
    description: 'The venue’s people and roles. Owners and managers.',
  })
  async members(@Root() venue: VenueType): Promise<VenueMemberType[]> {
    return (await this.management.membersOf(Number(venue.id))).map((m) => ({
      user: { id: String(m.userId) },
      role: m.role as VenueRoleValue,
      createdAt: m.createdAt,
    }));
  }

  @FieldResolver(() => [VenueApiKeyType], {
    description:
      'The API keys of the venue’s branches, revoked ones included, the oldest first. Owners and managers.',
  })
  async apiKeys(
    @Root() venue: VenueType,
    @Arg('first', () => Int, { defaultValue: LIST_DEFAULT, description: `At most ${LIST_MAX}.` })
    first: number,
  ): Promise<VenueApiKeyType[]> {
    return (await this.keysOf(Number(venue.id))).slice(0, bounded(first));
  }

  @FieldResolver(() => AuditLogPageType, {
    description: 'Every management change of the venue, newest first. Owners and managers.',
  })
  auditLog(
    @Root() venue: VenueType,
    @AuditFirstArg() first: number,
    @AuditAfterArg() after: string | null | undefined,
  ): Promise<AuditLogPageType> {
    return auditPage(
      first,
      after,
      (size, before) => this.management.auditLog(Number(venue.id), size, before),
      (id) => ({ id: String(id) }),
    );
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

  @Mutation(() => BranchType, { description: 'Adds a branch to a venue. Owners and managers.' })
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

  @Mutation(() => IssuedVenueApiKeyType, {
    description: 'Issues an API key for a branch; its secret is shown this once. Owners and managers.',
  })
  async issueApiKey(
    @Arg('input', () => IssueApiKeyInput, { description: 'The branch, the key’s name and its scopes.' })
    input: IssueApiKeyInput,
  ): Promise<IssuedVenueApiKeyType> {
    const { issued, venueId } = await this.management.issueApiKey(input);
    return { secret: issued.key, apiKey: await this.keyOf(venueId, issued.id) };
  }

  @Mutation(() => VenueApiKeyType, {
    description: 'Revokes an API key at once; it answers 401 from its next request. Owners and managers.',
  })
  async revokeApiKey(
    @Arg('id', () => ID, { description: 'The key’s id.' }) id: string,
  ): Promise<VenueApiKeyType> {
    const { keyId, venueId } = await this.management.revokeApiKey(id);
    return this.keyOf(venueId, keyId);
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

  @Mutation(() => Boolean, {
    description: 'Mails an invitation to join the venue (a single-use link, seven days). Owners only.',
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

  private async keysOf(venueId: number): Promise<VenueApiKeyType[]> {
    const keys = await this.management.apiKeysOf(venueId);
    const branches = new Map(
      (await this.management.branches(venueId)).map((b) => [
        b.id,
        { id: String(b.id), name: b.name, venueId },
      ]),
    );
    return keys.map((key) => toVenueApiKeyType(key, branches));
  }

  private async keyOf(venueId: number, keyId: number): Promise<VenueApiKeyType> {
    return (await this.keysOf(venueId)).find((key) => key.id === String(keyId))!;
  }
}
