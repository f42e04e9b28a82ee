import { createHash } from 'node:crypto';
import { OPERATOR, type Actor, type AuditDetails, type AuditEvent } from '../../common/audit-log';
import { hashSecret, newSecret } from '../../common/api-keys';
import {
  RateLimiterMemory,
  RateLimiterRedis,
  type RateLimiterAbstract,
  type RateLimiterRes,
} from 'rate-limiter-flexible';
import { z } from 'zod';
import {
  NotFoundError,
  RateLimitedError,
  UnauthenticatedError,
  ValidationError,
  type FieldMessages,
} from '../../common/errors';
import type { TextLanguage } from '../../common/language';
import type { Logger } from '../../common/logger';
import { mailFromMessages, type Mailer } from '../../common/mail';
import { say } from '../../common/messages';
import type { Redis } from '../../common/redis';
import { fieldErrorsOf, rule } from '../../common/validation';
import { SESSION_TOKEN_PREFIX } from '../../contracts/identity/session';
import type { IdentityRepository, SessionRow, UserRow } from './identity.repository';
import { hashPassword, passwordMatches, passwordProblems } from './passwords';

/** Sessions end after this long without a request, and in any case after SESSION_ABSOLUTE_DAYS. */
export const SESSION_IDLE_DAYS = 30;
export const SESSION_ABSOLUTE_DAYS = 90;
/**
 * The live sessions one person keeps at most, which `User.sessions` declares as its size: a
 * phone, a laptop, a few browsers, and the counter tablets a shared staff account opens the board
 * on. A sign-in past it ends the person's least recently used session rather than being refused,
 * so a new device never locks its owner out (docs/API-DECISIONS.md, "Caps on what callers make").
 */
export const SESSIONS_PER_PERSON = 30;
/** Verification and reset links work once, within this time. */
export const ONE_TIME_MINUTES = 60;
/** Failed sign-ins allowed per email and per client address in SIGN_IN_WINDOW_SECONDS. */
export const SIGN_IN_FAILURES = 10;
export const SIGN_IN_WINDOW_SECONDS = 15 * 60;

const signUpInput = z.object({
  email: z
    .string()
    .trim()
    .max(254)
    .pipe(z.email(rule('field.email'))),
  name: z.string().trim().min(1).max(120),
  language: z.enum(['ar', 'en']).default('ar'),
  password: z.string(),
});

const signInInput = z.object({
  email: z.string().trim().max(254),
  password: z.string().max(1000),
  device: z.string().trim().max(200).default(''),
});

/** The limits sign-in and sign-up keep per client address and per email, in Redis. */
export class SignInLimits {
  private readonly failures: RateLimiterAbstract;
  private readonly signUps: RateLimiterAbstract;

  constructor(redis: Redis, prefix: string, signUpsPerHour: number) {
    // Without Redis the limits hold per process rather than not at all.
    this.failures = new RateLimiterRedis({
      storeClient: redis,
      keyPrefix: `${prefix}identity:sign-in-failures`,
      points: SIGN_IN_FAILURES,
      duration: SIGN_IN_WINDOW_SECONDS,
      insuranceLimiter: new RateLimiterMemory({ points: SIGN_IN_FAILURES, duration: SIGN_IN_WINDOW_SECONDS }),
    });
    this.signUps = new RateLimiterRedis({
      storeClient: redis,
      keyPrefix: `${prefix}identity:sign-ups`,
      points: signUpsPerHour,
      duration: 3600,
      insuranceLimiter: new RateLimiterMemory({ points: signUpsPerHour, duration: 3600 }),
    });
  }

  /** The seconds to wait when the email or the address has failed too often, else undefined. */
  async blockedFor(keys: readonly string[]): Promise<number | undefined> {
    const states = await Promise.all(keys.map((key) => this.failures.get(key)));
    const waits = states
      .filter((state): state is RateLimiterRes => state !== null && state.consumedPoints >= SIGN_IN_FAILURES)
      .map((state) => Math.max(1, Math.ceil(state.msBeforeNext / 1000)));
    return waits.length === 0 ? undefined : Math.max(...waits);
  }

  async failed(keys: readonly string[]): Promise<void> {
    // Past the limit consume rejects; the count is what matters, not the answer.
    await Promise.all(keys.map((key) => this.failures.consume(key).catch(() => undefined)));
  }

  async succeeded(emailKey: string): Promise<void> {
    await this.failures.delete(emailKey);
  }

  /** Counts a sign-up from the address; the seconds to wait when it is one too many. */
  async signUp(addressKey: string): Promise<number | undefined> {
    try {
      await this.signUps.consume(addressKey);
      return undefined;
    } catch (refusal) {
      if (refusal instanceof Error) throw refusal;
      return Math.max(1, Math.ceil((refusal as RateLimiterRes).msBeforeNext / 1000));
    }
  }
}

/** Who a request is, as the gateway resolved its session (`x-session-user`, `x-session-id`). */
export interface SessionPrincipal {
  userId: number;
  sessionId: number;
}

/** A session as the gateway is told of it: whose it is, and how long it lasts if not used again. */
export interface LiveSessionPrincipal extends SessionPrincipal {
  /** Until its absolute end or its idle end, whichever comes first, counted from its last sighting. */
  secondsLeft: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;

export interface IdentityContext {
  /** Told after a person's sessions end, so what runs live on them (a staff board) stops at once. */
  sessionsEnded(userId: number): Promise<void>;
  /** Where the links in mails lead: the panel's pages. */
  appBaseUrl: string;
  /** The caller's address as the gateway saw it, for the per-address limits. */
  clientAddress: string;
  principal: SessionPrincipal | null;
  language: TextLanguage;
}

/** Sign-up, sign-in, sessions and the links mailed to people. */
export class IdentityService {
  constructor(
    private readonly users: IdentityRepository,
    private readonly limits: SignInLimits,
    private readonly mailer: Mailer,
    private readonly logger: Logger,
    private readonly context: IdentityContext,
  ) {}

  async signUp(input: {
    email: string;
    password: string;
    name: string;
    language?: string | null;
  }): Promise<{ token: string; user: UserRow }> {
    const parsed = signUpInput.safeParse(
      { ...input, language: input.language ?? undefined },
      { reportInput: true },
    );
    const errors: FieldMessages = parsed.success ? {} : fieldErrorsOf(parsed.error);
    Object.assign(errors, passwordProblems(input.password));
    if (!parsed.success || Object.keys(errors).length > 0) throw new ValidationError(errors);
    const wait = await this.limits.signUp(`address:${this.context.clientAddress}`);
    if (wait !== undefined) throw new RateLimitedError(wait, say('identity.too_many_sign_ups', { wait }));
    const { email, name, language } = parsed.data;
    const passwordHash = await hashPassword(input.password);
    const user = await this.users.createUser({ email, name, language, passwordHash });
    if (user === null) throw new ValidationError({ email: [say('field.taken', { field: 'email' })] });
    const token = await this.openSession(user.id, '');
    // The account exists whether or not the mail goes out now; `resendVerificationEmail` sends it again.
    this.sendLinkLater(user, 'verify');
    return { token, user };
  }

  /** Another verification mail for the signed-in user, unless the address is verified already. */
  async resendVerificationEmail(): Promise<boolean> {
    const user = await this.users.userById(this.require().userId);
    if (user === null || user.verifiedAt !== null) return false;
    await this.sendLink(user, 'verify');
    return true;
  }

  /**
   * The same refusal, after the same work (one argon2 verification), whether the email is unknown
   * or the password wrong; failures count per email and per address.
   */
  async signIn(input: { email: string; password: string; device?: string | null }): Promise<{
    token: string;
    user: UserRow;
  }> {
    const parsed = signInInput.safeParse(
      { ...input, device: input.device ?? undefined },
      { reportInput: true },
    );
    if (!parsed.success) throw new ValidationError(fieldErrorsOf(parsed.error));
    const { email, password, device } = parsed.data;
    const emailKey = `email:${createHash('sha256').update(email.toLowerCase()).digest('hex')}`;
    const keys = [emailKey, `address:${this.context.clientAddress}`];
    const wait = await this.limits.blockedFor(keys);
    if (wait !== undefined) throw new RateLimitedError(wait, say('identity.too_many_sign_ins', { wait }));
    const user = await this.users.userByEmail(email);
    if (!(await passwordMatches(user?.passwordHash ?? null, password)) || user === null) {
      await this.limits.failed(keys);
      throw new UnauthenticatedError(say('identity.sign_in_failed'));
    }
    await this.limits.succeeded(emailKey);
    return { token: await this.openSession(user.id, device), user };
  }

  /** The signed-in user, or null for a request without a live session. */
  async viewer(): Promise<UserRow | null> {
    const principal = this.context.principal;
    return principal === null ? null : this.users.userById(principal.userId);
  }

  async sessions(userId: number): Promise<SessionRow[]> {
    this.requireSelf(userId);
    return this.users.liveSessionsOf(userId, SESSION_IDLE_DAYS);
  }

  currentSessionId(): number | null {
    return this.context.principal?.sessionId ?? null;
  }

  async signOut(): Promise<boolean> {
    const principal = this.require();
    const ended = await this.users.revokeSession(principal.userId, principal.sessionId);
    await this.ended(principal.userId);
    return ended;
  }

  /** A failed announcement must not undo a sign-out: the session is gone either way. */
  private async ended(userId: number): Promise<void> {
    await this.context
      .sessionsEnded(userId)
      .catch((error: unknown) =>
        this.logger.warn({ err: error, userId }, 'could not announce ended sessions'),
      );
  }

  async signOutEverywhere(): Promise<number> {
    const userId = this.require().userId;
    const ended = await this.users.revokeSessionsOf(userId, null);
    await this.record(this.users, userId, this.self(), 'sessions.ended', `user:${userId}`, {
      sessions: ended,
    });
    await this.ended(userId);
    return ended;
  }

  async revokeSession(sessionId: number): Promise<boolean> {
    const principal = this.require();
    if (!(await this.users.revokeSession(principal.userId, sessionId)))
      throw new NotFoundError(say('identity.session_not_found'));
    await this.record(this.users, principal.userId, this.self(), 'session.revoked', `session:${sessionId}`);
    await this.ended(principal.userId);
    return true;
  }

  /**
   * The operator ends every session of a person (a stolen laptop, a departed employee): kept in
   * the person's log as the operator's doing, so they can see who signed them out.
   */
  async endSessionsOf(email: string): Promise<{ userId: number; sessions: number }> {
    const user = await this.users.userByEmail(email.trim());
    if (user === null) throw new NotFoundError(say('identity.user_not_found'));
    const ended = await this.users.transaction(async (users) => {
      const sessions = await users.revokeSessionsOf(user.id, null);
      await this.record(users, user.id, OPERATOR, 'sessions.ended', `user:${user.id}`, { sessions });
      return { userId: user.id, sessions };
    });
    await this.ended(user.id);
    return ended;
  }

  /** The signed-in person's log, newest first, by pages. */
  auditLog(userId: number, first: number, before: number | null): Promise<AuditEvent[]> {
    this.requireSelf(userId);
    return this.users.audit.page(userId, first, before);
  }

  async verifyEmail(token: string): Promise<UserRow> {
    const userId = await this.users.transaction(async (users) => {
      const verified = await users.consumeOneTimeToken('verify', hashSecret(token));
      if (verified === null) throw new ValidationError({ token: [say('identity.token_invalid')] });
      await users.markVerified(verified);
      await this.record(
        users,
        verified,
        { type: 'user', id: verified },
        'email.verified',
        `user:${verified}`,
      );
      return verified;
    });
    return (await this.users.userById(userId))!;
  }

  /**
   * Answers the same whether or not the email has an account; the mail goes out after the answer,
   * so its time tells nothing either.
   */
  async requestPasswordReset(email: string): Promise<true> {
    const user = await this.users.userByEmail(email.trim());
    if (user !== null) this.sendLinkLater(user, 'reset');
    return true;
  }

  /** A reset ends every session: whoever knew the old password is signed out. */
  async resetPassword(input: { token: string; password: string }): Promise<true> {
    const problems = passwordProblems(input.password);
    if (Object.keys(problems).length > 0) throw new ValidationError(problems);
    const passwordHash = await hashPassword(input.password);
    const resetUser = await this.users.transaction(async (users) => {
      const userId = await users.consumeOneTimeToken('reset', hashSecret(input.token));
      if (userId === null) throw new ValidationError({ token: [say('identity.token_invalid')] });
      await users.setPassword(userId, passwordHash);
      const sessions = await users.revokeSessionsOf(userId, null);
      await this.record(users, userId, { type: 'user', id: userId }, 'password.reset', `user:${userId}`, {
        sessions,
      });
      return userId;
    });
    await this.ended(resetUser);
    return true;
  }

  /** Ends every other session: the one that changed it stays signed in. */
  async changePassword(input: { currentPassword: string; newPassword: string }): Promise<true> {
    const principal = this.require();
    const user = await this.users.userById(principal.userId);
    if (user === null) throw new UnauthenticatedError(say('identity.sign_in_required'));
    const problems = passwordProblems(input.newPassword, 'new password');
    if (Object.keys(problems).length > 0)
      throw new ValidationError({ newPassword: Object.values(problems).flat() });
    if (!(await passwordMatches(user.passwordHash, input.currentPassword))) {
      throw new ValidationError({ currentPassword: [say('identity.current_password_wrong')] });
    }
    await this.users.transaction(async (users) => {
      await users.setPassword(user.id, await hashPassword(input.newPassword));
      const sessions = await users.revokeSessionsOf(user.id, principal.sessionId);
      await this.record(users, user.id, this.self(), 'password.changed', `user:${user.id}`, { sessions });
    });
    await this.ended(user.id);
    return true;
  }

  /** The live session of a token, for the gateway; null for anything else. */
  async sessionPrincipal(token: string): Promise<LiveSessionPrincipal | null> {
    if (!token.startsWith(SESSION_TOKEN_PREFIX) || token.length > 200) return null;
    const session = await this.users.liveSession(hashSecret(token), SESSION_IDLE_DAYS);
    if (session === null) return null;
    // The sighting as read, not as this look-up may have just moved it: never later than the truth.
    const endsAt = Math.min(
      session.expiresAt.getTime(),
      session.lastSeenAt.getTime() + SESSION_IDLE_DAYS * DAY_MS,
    );
    const secondsLeft = Math.max(0, Math.floor((endsAt - Date.now()) / 1000));
    return { userId: session.userId, sessionId: session.id, secondsLeft };
  }

  require(): SessionPrincipal {
    if (this.context.principal === null) throw new UnauthenticatedError(say('identity.sign_in_required'));
    return this.context.principal;
  }

  /** A user's private fields are the user's own. */
  requireSelf(userId: number): void {
    if (this.require().userId !== userId) throw new NotFoundError(say('identity.user_not_found'));
  }

  private self(): Actor {
    return { type: 'user', id: this.require().userId };
  }

  /** Keeps a change in the person's log, from the caller's address (none for the operator). */
  private record(
    users: IdentityRepository,
    userId: number,
    actor: Actor,
    action: string,
    target: string,
    details: AuditDetails = {},
  ): Promise<void> {
    return users.audit.record({
      subjectId: userId,
      actor,
      action,
      target,
      details,
      clientAddress: actor.type === 'operator' ? null : this.context.clientAddress,
    });
  }

  /**
   * A new session, within SESSIONS_PER_PERSON: the person's least recently used ones end to make
   * room, each kept in their log as `session.replaced` with its device, and announced as every
   * ended session is, so it stops on every door at once.
   */
  private async openSession(userId: number, device: string): Promise<string> {
    const token = newSecret(SESSION_TOKEN_PREFIX);
    const replaced = await this.users.transaction(async (users) => {
      await users.lockUser(userId);
      const ended = await users.endLeastRecentlyUsed(userId, SESSIONS_PER_PERSON - 1, SESSION_IDLE_DAYS);
      await users.createSession({
        userId,
        tokenHash: hashSecret(token),
        device,
        absoluteDays: SESSION_ABSOLUTE_DAYS,
      });
      const self: Actor = { type: 'user', id: userId };
      for (const session of ended) {
        await this.record(users, userId, self, 'session.replaced', `session:${session.id}`, {
          device: session.device,
        });
      }
      return ended.length;
    });
    if (replaced > 0) await this.ended(userId);
    return token;
  }

  private sendLinkLater(user: UserRow, kind: 'verify' | 'reset'): void {
    void this.sendLink(user, kind).catch((error: unknown) =>
      this.logger.error({ err: error, userId: user.id, kind }, 'a mail to a user could not be sent'),
    );
  }

  private async sendLink(user: UserRow, kind: 'verify' | 'reset'): Promise<void> {
    const token = newSecret(kind === 'verify' ? 'evt_' : 'pwr_');
    if (kind === 'reset') await this.users.retireOneTimeTokens(user.id, 'reset');
    await this.users.createOneTimeToken(user.id, kind, hashSecret(token), ONE_TIME_MINUTES);
    const page = kind === 'verify' ? 'verify-email' : 'reset-password';
    // In the fragment, so no server between the mail and the panel logs the token.
    const url = `${this.context.appBaseUrl}/account/${page}#token=${token}`;
    await this.mailer.send({
      to: user.email,
      language: user.language,
      ...mailFromMessages(kind, user.language, { name: user.name, url }),
    });
  }
}
