import { Directive, Field, ID, InputType, ObjectType, registerEnumType } from 'type-graphql';
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

@ObjectType('AuditActor', { description: 'Who made a change.' })
export class AuditActorType {
  @Field(() => String, { description: 'user, key or operator (the platform’s CLI).' })
  type!: string;

  @Field(() => UserReference, { nullable: true, description: 'The person, when a person made it.' })
  user!: UserReference | null;

  @Field(() => ID, { nullable: true, description: 'The API key, when a key made it.' })
  apiKeyId!: string | null;
}

@ObjectType('AuditDetail', { description: 'One value that describes a change; never a secret.' })
export class AuditDetailType {
  @Field(() => String, { description: 'What the value is, such as name, role or plan.' })
  name!: string;

  @Field(() => String, { nullable: true, description: 'The value as text; null for none.' })
  value!: string | null;
}

@ObjectType('AuditEvent', { description: 'One management change of a venue.' })
export class AuditEventType {
  @Field(() => ID, { description: 'The event’s id.' })
  id!: string;

  @Field(() => String, {
    description:
      'What happened: venue.created, branch.created, branch.renamed, api_key.issued, api_key.revoked, sms.changed, plan.changed, member.invited, member.joined, member.role_changed, member.removed, member.left, webhook.added, webhook.events_changed, webhook.secret_rotated, webhook.deleted, webhook.redelivered, webhook.pinged.',
  })
  action!: string;

  @Field(() => String, { description: 'What it happened to, such as api_key:12, user:7 or email:a@b.iq.' })
  target!: string;

  @Field(() => AuditActorType, { description: 'Who did it.' })
  actor!: AuditActorType;

  @Field(() => [AuditDetailType], { description: 'The values that describe it.' })
  details!: AuditDetailType[];

  @Field(() => String, {
    nullable: true,
    description: 'The client address it came from; null for the operator.',
  })
  clientAddress!: string | null;

  @Field(() => Date, { description: 'When it happened.' })
  createdAt!: Date;
}

@ObjectType('AuditLogPage', { description: 'A page of a venue’s audit log, newest first.' })
export class AuditLogPageType {
  @Field(() => [AuditEventType], { description: 'The events of this page.' })
  items!: AuditEventType[];

  @Field(() => String, {
    nullable: true,
    description: 'Pass as `after` for the next page; null on the last page.',
  })
  endCursor!: string | null;
}
