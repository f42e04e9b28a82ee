import { Arg, Directive, FieldResolver, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { AssumedSize } from '../../common/cost.graphql';
import { auditLogResolver } from '../../common/audit.graphql';
import { parseRecordId } from '../../common/input.rules';
import { NotFoundError } from '../../common/errors';
import { say } from '../../common/messages';
import { IdentityService, SESSIONS_PER_PERSON } from './identity.service';
import {
  AuditLogPageType,
  AuthPayloadType,
  ChangePasswordInput,
  ResetPasswordInput,
  SessionPrincipalType,
  SessionType,
  SignInInput,
  SignUpInput,
  toSessionType,
  toUserType,
  UserType,
} from './user.type';

@Resolver(() => UserType)
export class IdentityResolver {
  constructor(private readonly identity: IdentityService) {}

  @Query(() => UserType, { nullable: true, description: 'The signed-in user; null without a live session.' })
  async viewer(): Promise<UserType | null> {
    const user = await this.identity.viewer();
    return user === null ? null : toUserType(user);
  }

  @Directive('@inaccessible')
  @Query(() => SessionPrincipalType, {
    nullable: true,
    description: 'Whom a session token stands for: asked by the gateway, hidden from the public graph.',
  })
  async sessionPrincipal(
    @Arg('token', () => String, { description: 'A `ses_` token.' }) token: string,
  ): Promise<SessionPrincipalType | null> {
    const principal = await this.identity.sessionPrincipal(token);
    return principal === null
      ? null
      : {
          userId: String(principal.userId),
          sessionId: String(principal.sessionId),
          secondsLeft: principal.secondsLeft,
        };
  }

  @AssumedSize(SESSIONS_PER_PERSON)
  @FieldResolver(() => [SessionType], {
    description: `The user’s live sessions (at most ${SESSIONS_PER_PERSON}: a sign-in past it ends the least recently used), the most recently used first; only the user may read them.`,
  })
  async sessions(@Root() user: UserType): Promise<SessionType[]> {
    const sessions = await this.identity.sessions(Number(user.id));
    const current = this.identity.currentSessionId();
    return sessions.map((session) => toSessionType(session, current));
  }

  @Mutation(() => AuthPayloadType, {
    description:
      'Creates a user and signs them in; a verification link is mailed. 20 sign-ups an hour per client address.',
  })
  async signUp(
    @Arg('input', () => SignUpInput, { description: 'The new user’s email, password, name and language.' })
    input: SignUpInput,
  ): Promise<AuthPayloadType> {
    const { token, user } = await this.identity.signUp(input);
    return { token, user: toUserType(user) };
  }

  @Mutation(() => AuthPayloadType, {
    description: `Opens a session; a person keeps at most ${SESSIONS_PER_PERSON}, so one past them ends their least recently used. An unknown email and a wrong password get the same UNAUTHENTICATED answer; after 10 failures in 15 minutes for an email or an address, RATE_LIMITED.`,
  })
  async signIn(
    @Arg('input', () => SignInInput, { description: 'The email, its password and a label for the session.' })
    input: SignInInput,
  ): Promise<AuthPayloadType> {
    const { token, user } = await this.identity.signIn(input);
    return { token, user: toUserType(user) };
  }

  @Mutation(() => UserType, { description: 'Marks the user’s email as verified by the token of its link.' })
  async verifyEmail(
    @Arg('token', () => String, { description: 'The token from the verification link.' }) token: string,
  ): Promise<UserType> {
    return toUserType(await this.identity.verifyEmail(token));
  }

  @Mutation(() => Boolean, {
    description:
      'Mails the signed-in user another verification link; false when the email is verified already.',
  })
  resendVerificationEmail(): Promise<boolean> {
    return this.identity.resendVerificationEmail();
  }

  @Mutation(() => Boolean, {
    description:
      'Mails a reset link (single use, one hour) when the email has an account. Always true, so it tells no one whether it has.',
  })
  requestPasswordReset(
    @Arg('email', () => String, { description: 'The address of the account.' }) email: string,
  ): Promise<boolean> {
    return this.identity.requestPasswordReset(email);
  }

  @Mutation(() => Boolean, {
    description: 'Sets a new password by a reset link’s token and ends every session.',
  })
  resetPassword(
    @Arg('input', () => ResetPasswordInput, { description: 'The reset link’s token and the new password.' })
    input: ResetPasswordInput,
  ): Promise<boolean> {
    return this.identity.resetPassword(input);
  }

  @Mutation(() => Boolean, { description: 'Changes the password and ends every other session.' })
  changePassword(
    @Arg('input', () => ChangePasswordInput, { description: 'The password now and the new one.' })
    input: ChangePasswordInput,
  ): Promise<boolean> {
    return this.identity.changePassword(input);
  }

  @Mutation(() => Boolean, { description: 'Ends the session of this request.' })
  signOut(): Promise<boolean> {
    return this.identity.signOut();
  }

  @Mutation(() => Int, {
    description: 'Ends every session of the user, this one included; returns how many.',
  })
  signOutEverywhere(): Promise<number> {
    return this.identity.signOutEverywhere();
  }

  @Mutation(() => Boolean, { description: 'Ends one of the user’s sessions, such as a lost phone’s.' })
  revokeSession(@Arg('id', () => ID, { description: 'The session’s id.' }) id: string): Promise<boolean> {
    const sessionId = parseRecordId(id);
    if (sessionId === null) throw new NotFoundError(say('identity.session_not_found'));
    return this.identity.revokeSession(sessionId);
  }
}

/** `User.auditLog`, read through IdentityService, which lets only the user read it. */
export const UserAuditLogResolver = auditLogResolver({
  owner: UserType,
  page: AuditLogPageType,
  description:
    'Changes to the user’s sign-in, newest first: sessions ended (by the user or by the operator), password changed or reset, email verified. Only the user may read it.',
  // Only the user reads their log, so the only person who can appear in it is the user.
  user: (user, id) => (String(id) === user.id ? user : null),
});
