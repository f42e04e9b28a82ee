import { Directive, Field, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import { WAIT_ALERT_MINUTES } from './venue.rules';
import { auditGraphTypes } from '../../../common/audit.graphql';

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

@InputType('SetVenueWaitAlertInput', { description: 'When a venue’s staff board highlights the wait.' })
export class SetVenueWaitAlertInput {
  @Field(() => ID, { description: 'The venue.' })
  venueId!: string;

  @Field(() => Int, {
    description: `Minutes, ${WAIT_ALERT_MINUTES.min} to ${WAIT_ALERT_MINUTES.max}: a waiting ticket this old is highlighted.`,
  })
  minutes!: number;
}

@InputType('SetVenueSmsInput', { description: 'Whether a venue sends the one SMS on ready.' })
export class SetVenueSmsInput {
  @Field(() => ID, { description: 'The venue.' })
  venueId!: string;

  @Field(() => Boolean, { description: 'On or off.' })
  enabled!: boolean;
}

@InputType('SetVenueWhatsAppInput', { description: 'Whether a venue sends the ready alert on WhatsApp.' })
export class SetVenueWhatsAppInput {
  @Field(() => ID, { description: 'The venue.' })
  venueId!: string;

  @Field(() => Boolean, {
    description:
      'On or off. On needs a plan with WhatsApp (else PAYMENT_REQUIRED) and the platform’s WhatsApp configuration (else BAD_USER_INPUT on enabled).',
  })
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
