import { Directive, Field, ID, InputType, Int, ObjectType } from 'type-graphql';
import type { SessionRow, UserRow } from './identity.repository';
import { auditGraphTypes } from '../../common/audit.graphql';

@Directive('@key(fields: "id")')
@ObjectType('User', { description: 'A person who signs in: to run venues, to write CVs, or both.' })
export class UserType {
  @Field(() => ID, { description: 'The user’s id.' })
  id!: string;

  @Field(() => String, { description: 'Where mail to the user goes; unique without regard to case.' })
  email!: string;

  @Field(() => String, { description: 'The name the user goes by.' })
  name!: string;

  @Field(() => String, { description: 'The language of the user’s mails and texts: ar or en.' })
  language!: string;

  @Field(() => Date, { description: 'When the user signed up.' })
  createdAt!: Date;

  @Field(() => Date, {
    nullable: true,
    description: 'When the user followed the verification link; null until then.',
  })
  verifiedAt!: Date | null;
}

export function toUserType(user: UserRow): UserType {
  return {
    id: String(user.id),
    email: user.email,
    name: user.name,
    language: user.language,
    createdAt: user.createdAt,
    verifiedAt: user.verifiedAt,
  };
}

@ObjectType('Session', { description: 'A signed-in device of the user.' })
export class SessionType {
  @Field(() => ID, { description: 'The session’s id, for revokeSession.' })
  id!: string;

  @Field(() => String, { description: 'The device label given at sign-in; empty when none was.' })
  device!: string;

  @Field(() => Date, { description: 'When the user signed in.' })
  createdAt!: Date;

  @Field(() => Date, { description: 'The last request of the session, to the minute.' })
  lastSeenAt!: Date;

  @Field(() => Date, {
    description: 'When the session ends whatever happens; it ends sooner after 30 days without a request.',
  })
  expiresAt!: Date;

  @Field(() => Boolean, { description: 'Whether this is the session of the request asking.' })
  current!: boolean;
}

export function toSessionType(session: SessionRow, currentId: number | null): SessionType {
  return {
    id: String(session.id),
    device: session.device,
    createdAt: session.createdAt,
    lastSeenAt: session.lastSeenAt,
    expiresAt: session.expiresAt,
    current: session.id === currentId,
  };
}

@ObjectType('AuthPayload', { description: 'A new session: its token, shown this once, and its user.' })
export class AuthPayloadType {
  @Field(() => String, {
    description: 'Send as `Authorization: Bearer ses_…`. Only its hash is stored; it cannot be shown again.',
  })
  token!: string;

  @Field(() => UserType, { description: 'The signed-in user.' })
  user!: UserType;
}

@Directive('@inaccessible')
@ObjectType('SessionPrincipal', {
  description: 'Whom a session token stands for; the gateway’s own question.',
})
export class SessionPrincipalType {
  @Field(() => ID, { description: 'The user of the session.' })
  userId!: string;

  @Field(() => ID, { description: 'The session.' })
  sessionId!: string;

  @Field(() => Int, {
    description:
      'Seconds until the session ends if it is not used again: its absolute end or its idle end, whichever is sooner.',
  })
  secondsLeft!: number;
}

@InputType('SignUpInput', { description: 'A new user.' })
export class SignUpInput {
  @Field(() => String, {
    description: 'A valid address, at most 254 characters; a verification link goes there.',
  })
  email!: string;

  @Field(() => String, { description: 'At least 10 characters, and not one of the commonest passwords.' })
  password!: string;

  @Field(() => String, { description: '1 to 120 characters.' })
  name!: string;

  @Field(() => String, { nullable: true, description: 'ar (the default) or en.' })
  language?: string | null;
}

@InputType('SignInInput', { description: 'An email and its password.' })
export class SignInInput {
  @Field(() => String, { description: 'The address signed up with, in any case.' })
  email!: string;

  @Field(() => String, { description: 'The password.' })
  password!: string;

  @Field(() => String, { nullable: true, description: 'A label for the session, such as "Kitchen tablet".' })
  device?: string | null;
}

@InputType('ResetPasswordInput', { description: 'The token of a reset link and the new password.' })
export class ResetPasswordInput {
  @Field(() => String, { description: 'The token from the link of the reset mail (single use, one hour).' })
  token!: string;

  @Field(() => String, { description: 'At least 10 characters, and not one of the commonest passwords.' })
  password!: string;
}

@InputType('ChangePasswordInput', { description: 'The password now and the one to have instead.' })
export class ChangePasswordInput {
  @Field(() => String, { description: 'The password the user signs in with now.' })
  currentPassword!: string;

  @Field(() => String, { description: 'At least 10 characters, and not one of the commonest passwords.' })
  newPassword!: string;
}

/** A person's sign-in log as the graph pages it; the shape is every log's (common/audit.graphql.ts). */
export const { AuditLogPageType } = auditGraphTypes(UserType);
export type AuditLogPageType = InstanceType<typeof AuditLogPageType>;
