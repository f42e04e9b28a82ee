import { Directive, Field, ID, InputType, ObjectType, registerEnumType } from 'type-graphql';
import { auditGraphTypes } from '../../common/audit.graphql';
import type { VenueApiKey } from './membership.repository';
import { BranchType } from './venue.type';

export enum VenueRoleValue {
  OWNER = 'OWNER',
  MANAGER = 'MANAGER',
  STAFF = 'STAFF',
}

registerEnumType(VenueRoleValue, {
  name: 'VenueRole',
  description: 'What a person may do at a venue.',
  valuesConfig: {
    OWNER: { description: 'Everything, the plan and the members included.' },
    MANAGER: { description: 'Branches, API keys, webhooks, SMS and tickets.' },
    STAFF: { description: 'Tickets only: create, ready, ring, collected, cancel, read.' },
  },
});

/** A user as the tickets subgraph knows one: by id; the identity subgraph gives the rest. */
@Directive('@key(fields: "id", resolvable: false)')
@ObjectType('User')
export class UserReference {
  @Field(() => ID, { description: 'The user’s id.' })
  id!: string;
}

@ObjectType('VenueMember', { description: 'A person of a venue and their role there.' })
export class VenueMemberType {
  @Field(() => UserReference, { description: 'The person.' })
  user!: UserReference;

  @Field(() => VenueRoleValue, { description: 'Their role at the venue.' })
  role!: VenueRoleValue;

  @Field(() => Date, { description: 'When they joined the venue.' })
  createdAt!: Date;
}

@ObjectType('VenueApiKey', {
  description: 'An API key of one of the venue’s branches; never the key itself.',
})
export class VenueApiKeyType {
  @Field(() => ID, { description: 'The key’s id, for revokeApiKey.' })
  id!: string;

  @Field(() => String, { description: 'The name it was issued with.' })
  name!: string;

  @Field(() => String, { description: 'Its first 11 characters, to tell keys apart.' })
  prefix!: string;

  @Field(() => [String], { description: 'tickets:read and/or tickets:write.' })
  scopes!: string[];

  @Field(() => BranchType, { description: 'The branch whose tickets it reaches.' })
  branch!: BranchType;

  @Field(() => UserReference, {
    nullable: true,
    description: 'Who issued it; null for a key the operator issued.',
  })
  createdBy!: UserReference | null;

  @Field(() => Date, { nullable: true, description: 'Its last request, to the minute; null if never used.' })
  lastUsedAt!: Date | null;

  @Field(() => Date, { nullable: true, description: 'When it was revoked; null while it works.' })
  revokedAt!: Date | null;

  @Field(() => Date, { description: 'When it was issued.' })
  createdAt!: Date;
}

export function toVenueApiKeyType(key: VenueApiKey, branches: Map<number, BranchType>): VenueApiKeyType {
  return {
    id: String(key.id),
    name: key.name,
    prefix: key.prefix,
    scopes: key.scopes,
    branch: branches.get(key.branchId) ?? { id: String(key.branchId), name: '', venueId: 0 },
    createdBy: key.createdByUserId === null ? null : { id: String(key.createdByUserId) },
    lastUsedAt: key.lastUsedAt,
    revokedAt: key.revokedAt,
    createdAt: key.createdAt,
  };
}

@ObjectType('IssuedVenueApiKey', { description: 'A new key: its secret, shown this once, and the key.' })
export class IssuedVenueApiKeyType {
  @Field(() => String, {
    description: 'The key (`tk_…`). Only its hash is stored; it cannot be shown again.',
  })
  secret!: string;

  @Field(() => VenueApiKeyType, { description: 'The key as the venue lists it.' })
  apiKey!: VenueApiKeyType;
}

@InputType('CreateVenueInput', { description: 'A new venue; its creator becomes its owner.' })
export class CreateVenueInput {
  @Field(() => String, { description: '1 to 120 characters.' })
  name!: string;

  @Field(() => String, {
    nullable: true,
    description: 'ar (the default) or en: the customer page’s and texts’ language.',
  })
  language?: string | null;

  @Field(() => String, { nullable: true, description: 'An IANA time zone; Asia/Baghdad by default.' })
  timezone?: string | null;
}

@InputType('CreateBranchInput', { description: 'A new branch of a venue.' })
export class CreateBranchInput {
  @Field(() => ID, { description: 'The venue.' })
  venueId!: string;

  @Field(() => String, { description: '1 to 120 characters.' })
  name!: string;
}

@InputType('RenameBranchInput', { description: 'A branch’s new name.' })
export class RenameBranchInput {
  @Field(() => ID, { description: 'The branch.' })
  branchId!: string;

  @Field(() => String, { description: '1 to 120 characters.' })
  name!: string;
}

@InputType('IssueApiKeyInput', { description: 'A new API key for a branch.' })
export class IssueApiKeyInput {
  @Field(() => ID, { description: 'The branch whose tickets the key reaches.' })
  branchId!: string;

  @Field(() => String, { description: '1 to 120 characters, such as "POS till 1".' })
  name!: string;

  @Field(() => [String], {
    nullable: true,
    description: 'tickets:read and/or tickets:write; both by default.',
  })
  scopes?: string[] | null;
}

@InputType('SetVenueSmsInput', { description: 'Whether a venue sends the one SMS on ready.' })
export class SetVenueSmsInput {
  @Field(() => ID, { description: 'The venue.' })
  venueId!: string;

  @Field(() => Boolean, { description: 'On or off.' })
  enabled!: boolean;
}

@InputType('InviteMemberInput', { description: 'Whom to invite to a venue, and as what.' })
export class InviteMemberInput {
  @Field(() => ID, { description: 'The venue.' })
  venueId!: string;

  @Field(() => String, { description: 'The address the invitation goes to; only its user can accept it.' })
  email!: string;

  @Field(() => VenueRoleValue, { description: 'The role the invitation gives.' })
  role!: VenueRoleValue;
}

@InputType('ChangeMemberRoleInput', { description: 'A member’s new role.' })
export class ChangeMemberRoleInput {
  @Field(() => ID, { description: 'The venue.' })
  venueId!: string;

  @Field(() => ID, { description: 'The member’s user id.' })
  userId!: string;

  @Field(() => VenueRoleValue, { description: 'The new role.' })
  role!: VenueRoleValue;
}

@InputType('RemoveMemberInput', { description: 'A member to take off a venue.' })
export class RemoveMemberInput {
  @Field(() => ID, { description: 'The venue.' })
  venueId!: string;

  @Field(() => ID, { description: 'The member’s user id; one’s own to leave the venue.' })
  userId!: string;
}

/** A venue's audit log as the graph pages it; the shape is every log's (common/audit.graphql.ts). */
export const { AuditLogPageType } = auditGraphTypes(UserReference);
export type AuditLogPageType = InstanceType<typeof AuditLogPageType>;
