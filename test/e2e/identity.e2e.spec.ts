import { createHash } from 'node:crypto';
import { internalCredentialHeaders } from '../../common/internal-credential';
import { SESSION_ID_HEADER, SESSION_USER_HEADER } from '../../contracts/identity/session';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { askGraph, bearer } from '../support/graph';
import { admin, startPlatform, type Platform } from '../support/platform';
import { LocalSmtpServer, type ReceivedMail } from '../support/smtp-server';
import { waitUntil } from '../support/wait';
import { SESSION_KEPT_MS } from '../../gateway/context';

const USER_FIELDS = 'id email name language verifiedAt';
const SIGN_UP = `mutation ($i: SignUpInput!) { signUp(input: $i) { token user { ${USER_FIELDS} } } }`;
const SIGN_IN = `mutation ($i: SignInInput!) { signIn(input: $i) { token user { ${USER_FIELDS} } } }`;
const VIEWER = `{ viewer { ${USER_FIELDS} sessions { id device current } } }`;

/** The token of a mailed link (`…#token=evt_…`). */
function linkToken(mail: ReceivedMail): string {
  const token = /#token=([A-Za-z0-9_-]+)/.exec(mail.text)?.[1];
  if (token === undefined) throw new Error(`no link in: ${mail.text}`);
  return token;
}

describe('people on the graph: sign-up, sign-in and sessions, with a real SMTP server', () => {
  let database: TestDatabase;
  let platform: Platform;
  let smtp: LocalSmtpServer;

  beforeAll(async () => {
    database = await createTestDatabase();
    smtp = await LocalSmtpServer.start();
    platform = await startPlatform(database, {
      // The tests pose as clients behind a proxy on loopback, each naming its own X-Forwarded-For.
      TRUSTED_PROXIES: '127.0.0.1',
      MAIL_DRIVER: 'smtp',
      SMTP_URL: smtp.url,
      SIGNUP_RATE_LIMIT: '1000',
      PUBLIC_WRITE_RATE_LIMIT: '1000',
    });
  });

  afterAll(async () => {
    await platform?.stop();
    await smtp?.stop();
    await database.drop();
  });

  // Each test is a client of its own (forwarded by the trusted proxy above), so the per-address
  // limits of one test do not spill into the next.
  let client = 0;
  beforeEach(() => {
    client += 1;
  });

  const graph = (
    query: string,
    variables: Record<string, unknown> = {},
    headers: Record<string, string> = {},
  ) =>
    askGraph(platform.gatewayUrl, query, variables, { 'x-forwarded-for': `203.0.113.${client}`, ...headers });
  const as = bearer;
  const mailsTo = (email: string) => smtp.received.filter((mail) => mail.to.includes(email));

  let counter = 0;
  async function signUp(overrides: Record<string, unknown> = {}) {
    counter += 1;
    const input = {
      email: `person${counter}@example.test`,
      password: 'correct horse battery',
      name: `Person ${counter}`,
      ...overrides,
    };
    const reply = await graph(SIGN_UP, { i: input });
    expect(reply.errors).toBeUndefined();
    const payload = reply.data!.signUp as { token: string; user: { id: string; email: string } };
    return { ...payload, email: input.email, password: input.password };
  }

  /** A new session of a person who has an account: its token. */
  async function signIn(email: string, password: string, device?: string): Promise<string> {
    const reply = await graph(SIGN_IN, {
      i: { email, password, ...(device === undefined ? {} : { device }) },
    });
    expect(reply.errors).toBeUndefined();
    return (reply.data!.signIn as { token: string }).token;
  }

  it('signs up, mails a verification link in the user’s language, and verifies the email once', async () => {
    const arabic = await signUp({ name: 'زينب' });
    expect(arabic.token).toMatch(/^ses_[A-Za-z0-9_-]{43}$/);
    expect(arabic.user).toMatchObject({ email: arabic.email, language: 'ar', verifiedAt: null });
    await smtp.waitFor(() => mailsTo(arabic.email).length === 1);
    const mail = mailsTo(arabic.email)[0]!;
    expect(mail.text).toContain('زينب');
    expect(mail.html).toContain('dir="rtl"');
    const english = await signUp({ language: 'en' });
    await smtp.waitFor(() => mailsTo(english.email).length === 1);
    expect(mailsTo(english.email)[0]!.subject).toMatch(/verify|confirm/i);

    const verified = await graph(`mutation ($t: String!) { verifyEmail(token: $t) { verifiedAt } }`, {
      t: linkToken(mail),
    });
    expect(verified.errors).toBeUndefined();
    expect(Date.parse((verified.data!.verifyEmail as { verifiedAt: string }).verifiedAt)).toBeGreaterThan(0);
    const again = await graph(`mutation ($t: String!) { verifyEmail(token: $t) { verifiedAt } }`, {
      t: linkToken(mail),
    });
    expect(again.errors?.[0]).toMatchObject({
      message: 'This link is invalid, already used or expired.',
      extensions: {
        code: 'BAD_USER_INPUT',
        errors: { token: ['This link is invalid, already used or expired.'] },
      },
    });
    const log = await graph('{ viewer { auditLog { items { action target } } } }', {}, as(arabic.token));
    expect(log.data).toEqual({
      viewer: { auditLog: { items: [{ action: 'email.verified', target: `user:${arabic.user.id}` }] } },
    });
  });

  it('refuses short, common and taken passwords and emails, naming the field', async () => {
    const taken = await signUp();
    const cases: [Record<string, unknown>, Record<string, string[]>][] = [
      [{ password: 'short' }, { password: ['The password field must be at least 10 characters.'] }],
      [
        { password: 'Password123' },
        { password: ['The password is too common; choose one that is harder to guess.'] },
      ],
      [{ email: 'not an email' }, { email: ['The email field must be a valid email address.'] }],
      [{ email: taken.email.toUpperCase() }, { email: ['The email has already been taken.'] }],
      [{ name: '  ' }, { name: ['The name field must be at least 1 characters.'] }],
    ];
    for (const [overrides, errors] of cases) {
      const reply = await graph(SIGN_UP, {
        i: { email: 'fresh@example.test', password: 'a fine long passphrase', name: 'Fresh', ...overrides },
      });
      expect(reply.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', errors });
    }
  });

  it('signs in by email in any case; an unknown email and a wrong password are the same answer', async () => {
    const user = await signUp();
    const ok = await graph(SIGN_IN, {
      i: { email: user.email.toUpperCase(), password: user.password, device: 'Till 2' },
    });
    expect(ok.errors).toBeUndefined();
    const session = (ok.data!.signIn as { token: string }).token;
    const viewer = await graph(VIEWER, {}, as(session));
    const seen = viewer.data!.viewer as { email: string; sessions: { device: string; current: boolean }[] };
    expect(seen.email).toBe(user.email);
    expect(seen.sessions.map((s) => [s.device, s.current]).sort()).toEqual([
      ['', false],
      ['Till 2', true],
    ]);

    const wrong = await graph(SIGN_IN, { i: { email: user.email, password: 'not the password' } });
    const unknown = await graph(SIGN_IN, {
      i: { email: 'nobody@example.test', password: 'not the password' },
    });
    expect(wrong.errors).toEqual(unknown.errors);
    expect(wrong.errors?.[0]).toMatchObject({
      message: 'The email or password is incorrect.',
      extensions: { code: 'UNAUTHENTICATED' },
    });
    // Both paths verify one argon2 hash: their times are alike. The fastest of many interleaved
    // tries is each path's own cost; a median, or the fastest of a few, still carries the stalls of
    // other suites sharing the two cores, which can spare one side's lucky try and not the other's.
    // Each pair comes from an address of its own and two people share the known side, so neither
    // the per-address nor the per-email limit (10 failures) answers in their place.
    const second = await signUp();
    const time = async (email: string, address: string) => {
      const started = performance.now();
      const reply = await graph(
        SIGN_IN,
        { i: { email, password: 'still not the password' } },
        { 'x-forwarded-for': address },
      );
      const took = performance.now() - started;
      expect(reply.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
      return took;
    };
    const known: number[] = [];
    const unknownTimes: number[] = [];
    for (let i = 0; i < 16; i += 1) {
      const address = `192.0.2.${i + 1}`;
      known.push(await time(i % 2 === 0 ? user.email : second.email, address));
      unknownTimes.push(await time(`nobody${i}@example.test`, address));
    }
    const ratio = Math.min(...known) / Math.min(...unknownTimes);
    expect(ratio).toBeGreaterThan(0.5);
    expect(ratio).toBeLessThan(2);
  });

  it('refuses sign-in for an email after 10 failures in 15 minutes, even with the right password', async () => {
    const user = await signUp();
    for (let i = 0; i < 10; i += 1) {
      const failed = await graph(SIGN_IN, { i: { email: user.email, password: `wrong ${i} password` } });
      expect(failed.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    }
    const limited = await graph(SIGN_IN, { i: { email: user.email, password: user.password } });
    expect(limited.status).toBe(429);
    expect(limited.errors?.[0]?.extensions).toMatchObject({ code: 'RATE_LIMITED' });
    const retryAfter = Number(limited.errors?.[0]?.extensions?.retryAfter);
    expect(retryAfter).toBeGreaterThan(800);
    expect(retryAfter).toBeLessThanOrEqual(900);
  });

  it('refuses sign-in from an address after 10 failures in 15 minutes, whatever the email', async () => {
    for (let i = 0; i < 10; i += 1) {
      const failed = await graph(SIGN_IN, {
        i: { email: `guess${i}@example.test`, password: 'a guessed password' },
      });
      expect(failed.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    }
    const user = await signUp();
    const limited = await graph(SIGN_IN, { i: { email: user.email, password: user.password } });
    expect(limited.errors?.[0]).toMatchObject({
      message: expect.stringMatching(/^Too many failed sign-ins\. Retry in \d+ seconds\.$/) as unknown,
      extensions: { code: 'RATE_LIMITED' },
    });
    // Another address is not held back by this one's failures.
    const elsewhere = await graph(
      SIGN_IN,
      { i: { email: user.email, password: user.password } },
      { 'x-forwarded-for': '198.51.100.9' },
    );
    expect(elsewhere.errors).toBeUndefined();
  });

  it('ends sessions: sign-out, another session, everywhere, and idle or absolute expiry', async () => {
    const user = await signUp();
    const second = await signIn(user.email, user.password, 'phone');
    const sessions = (
      (await graph(VIEWER, {}, as(user.token))).data!.viewer as { sessions: { id: string; device: string }[] }
    ).sessions;
    const phone = sessions.find((s) => s.device === 'phone')!;
    const revoked = await graph(
      `mutation ($id: ID!) { revokeSession(id: $id) }`,
      { id: phone.id },
      as(user.token),
    );
    expect(revoked.data).toEqual({ revokeSession: true });
    expect((await graph(VIEWER, {}, as(second))).data).toEqual({ viewer: null });
    const notMine = await graph(`mutation ($id: ID!) { revokeSession(id: $id) }`, { id: '1' }, as(second));
    expect(notMine.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');

    const signedOut = await graph(`mutation { signOut }`, {}, as(user.token));
    expect(signedOut.data).toEqual({ signOut: true });
    expect((await graph(VIEWER, {}, as(user.token))).data).toEqual({ viewer: null });

    const a = await signIn(user.email, user.password);
    const b = await signIn(user.email, user.password);
    expect((await graph(`mutation { signOutEverywhere }`, {}, as(a))).data).toEqual({ signOutEverywhere: 2 });
    expect((await graph(VIEWER, {}, as(b))).data).toEqual({ viewer: null });

    const idle = await signIn(user.email, user.password);
    const old = await signIn(user.email, user.password);
    // Time passed, written into the rows before the gateway first asks about either session.
    await database.query(
      `update identity.sessions set last_seen_at = now() - interval '31 days' where token_hash = $1`,
      [createHash('sha256').update(idle).digest()],
    );
    expect((await graph(VIEWER, {}, as(idle))).data).toEqual({ viewer: null });
    await database.query(
      `update identity.sessions set expires_at = now() - interval '1 second' where token_hash = $1`,
      [createHash('sha256').update(old).digest()],
    );
    expect((await graph(VIEWER, {}, as(old))).data).toEqual({ viewer: null });
  });

  it('keeps a session’s look-up at the gateway no longer than the session lasts', async () => {
    const user = await signUp();
    const ending = await signIn(user.email, user.password);
    await database.query(
      `update identity.sessions set expires_at = now() + interval '2 seconds' where token_hash = $1`,
      [createHash('sha256').update(ending).digest()],
    );
    expect((await graph(VIEWER, {}, as(ending))).data!.viewer).not.toBeNull();
    // Well inside SESSION_KEPT_MS, which would otherwise still answer from the look-up above.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect((await graph(VIEWER, {}, as(ending))).data).toEqual({ viewer: null });
  });

  it('changes a password: the current one is checked, and every other session ends', async () => {
    const user = await signUp();
    const other = await signIn(user.email, user.password);
    const CHANGE = `mutation ($i: ChangePasswordInput!) { changePassword(input: $i) }`;
    const wrong = await graph(
      CHANGE,
      { i: { currentPassword: 'not it at all', newPassword: 'a new long passphrase' } },
      as(user.token),
    );
    expect(wrong.errors?.[0]?.extensions?.errors).toEqual({
      currentPassword: ['The current password is incorrect.'],
    });
    const weak = await graph(
      CHANGE,
      { i: { currentPassword: user.password, newPassword: 'qwertyuiop' } },
      as(user.token),
    );
    expect(weak.errors?.[0]?.extensions?.errors).toEqual({
      newPassword: ['The new password is too common; choose one that is harder to guess.'],
    });
    const changed = await graph(
      CHANGE,
      { i: { currentPassword: user.password, newPassword: 'a new long passphrase' } },
      as(user.token),
    );
    expect(changed.data).toEqual({ changePassword: true });
    expect((await graph(VIEWER, {}, as(other))).data).toEqual({ viewer: null });
    expect((await graph(VIEWER, {}, as(user.token))).data!.viewer).not.toBeNull();
    const old = await graph(SIGN_IN, { i: { email: user.email, password: user.password } });
    expect(old.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    const anonymous = await graph(CHANGE, { i: { currentPassword: 'x', newPassword: 'y' } });
    expect(anonymous.errors?.[0]).toMatchObject({
      message: 'Sign in first.',
      extensions: { code: 'UNAUTHENTICATED' },
    });
  });

  it('resets a password by a single-use link that expires, telling no one whether an email exists', async () => {
    const user = await signUp({ language: 'en' });
    const REQUEST = `mutation ($e: String!) { requestPasswordReset(email: $e) }`;
    const RESET = `mutation ($i: ResetPasswordInput!) { resetPassword(input: $i) }`;
    expect((await graph(REQUEST, { e: 'nobody-here@example.test' })).data).toEqual({
      requestPasswordReset: true,
    });
    expect((await graph(REQUEST, { e: user.email })).data).toEqual({ requestPasswordReset: true });
    await smtp.waitFor(() => mailsTo(user.email).some((m) => m.text.includes('pwr_')));
    expect(mailsTo('nobody-here@example.test')).toEqual([]);
    const token = linkToken(mailsTo(user.email).find((m) => m.text.includes('pwr_'))!);

    const weak = await graph(RESET, { i: { token, password: 'password1234' } });
    expect(weak.errors?.[0]?.extensions?.errors).toEqual({
      password: ['The password is too common; choose one that is harder to guess.'],
    });
    expect((await graph(RESET, { i: { token, password: 'the reset passphrase' } })).data).toEqual({
      resetPassword: true,
    });
    expect((await graph(VIEWER, {}, as(user.token))).data).toEqual({ viewer: null });
    const signedIn = await graph(SIGN_IN, { i: { email: user.email, password: 'the reset passphrase' } });
    expect(signedIn.errors).toBeUndefined();
    const resetLog = await graph(
      '{ viewer { auditLog(first: 1) { items { action actor { type } details { name value } } } } }',
      {},
      as((signedIn.data!.signIn as { token: string }).token),
    );
    expect(resetLog.data).toEqual({
      viewer: {
        auditLog: {
          items: [
            {
              action: 'password.reset',
              actor: { type: 'user' },
              details: [{ name: 'sessions', value: '1' }],
            },
          ],
        },
      },
    });
    const twice = await graph(RESET, { i: { token, password: 'another passphrase' } });
    expect(twice.errors?.[0]?.extensions?.errors).toEqual({
      token: ['This link is invalid, already used or expired.'],
    });

    await graph(REQUEST, { e: user.email });
    await smtp.waitFor(() => mailsTo(user.email).filter((m) => m.text.includes('pwr_')).length === 2);
    const late = linkToken(mailsTo(user.email).filter((m) => m.text.includes('pwr_'))[1]!);
    await database.query(`update identity.one_time_tokens set expires_at = now() - interval '1 second'`);
    const expired = await graph(RESET, { i: { token: late, password: 'another passphrase' } });
    expect(expired.errors?.[0]?.extensions?.errors).toEqual({
      token: ['This link is invalid, already used or expired.'],
    });
  });

  it('keeps a person’s sign-in changes in their own log, the operator’s signing them out too', async () => {
    const user = await signUp();
    const signIn = async (device: string) =>
      (
        (await graph(SIGN_IN, { i: { email: user.email, password: user.password, device } })).data!
          .signIn as {
          token: string;
        }
      ).token;
    const phone = await signIn('phone');
    const phoneId = (
      (await graph(VIEWER, {}, as(phone))).data!.viewer as { sessions: { id: string; current: boolean }[] }
    ).sessions.find((session) => session.current)!.id;
    await graph(`mutation ($id: ID!) { revokeSession(id: $id) }`, { id: phoneId }, as(user.token));
    const CHANGE = `mutation ($i: ChangePasswordInput!) { changePassword(input: $i) }`;
    await signIn('tablet');
    const changed = await graph(
      CHANGE,
      { i: { currentPassword: user.password, newPassword: 'a fresh long passphrase' } },
      as(user.token),
    );
    expect(changed.data).toEqual({ changePassword: true });

    // The operator signs the person out everywhere: every session ends at once.
    const laptop = (
      (
        await graph(SIGN_IN, {
          i: { email: user.email, password: 'a fresh long passphrase', device: 'laptop' },
        })
      ).data!.signIn as { token: string }
    ).token;
    // Both looked up just now, so the gateway holds what identity said of them.
    expect((await graph(VIEWER, {}, as(user.token))).data!.viewer).not.toBeNull();
    expect((await graph(VIEWER, {}, as(laptop))).data!.viewer).not.toBeNull();
    const ended = await admin<{ user_id: number; sessions_ended: number }>(
      platform.config,
      'user',
      'end-sessions',
      '--email',
      user.email.toUpperCase(),
    );
    expect(ended).toEqual({ user_id: Number(user.user.id), sessions_ended: 2 });
    // Ended outside the gateway: its announcement, not SESSION_KEPT_MS running out, ends what was held.
    await waitUntil(
      async () => (await graph(VIEWER, {}, as(user.token))).data?.viewer === null,
      SESSION_KEPT_MS / 4,
      'the ended session refused at the gateway',
    );
    expect((await graph(VIEWER, {}, as(laptop))).data).toEqual({ viewer: null });

    const again = (
      (await graph(SIGN_IN, { i: { email: user.email, password: 'a fresh long passphrase' } })).data!
        .signIn as {
        token: string;
      }
    ).token;
    const LOG = `{ viewer { id auditLog { items { action target actor { type user { id email } } details { name value } clientAddress } endCursor } } }`;
    const log = (await graph(LOG, {}, as(again))).data!.viewer as {
      auditLog: {
        items: {
          action: string;
          target: string;
          actor: { type: string; user: { id: string; email: string } | null };
          details: { name: string; value: string | null }[];
          clientAddress: string | null;
        }[];
        endCursor: string | null;
      };
    };
    const self = { type: 'user', user: { id: user.user.id, email: user.email } };
    expect(log.auditLog).toEqual({
      items: [
        {
          action: 'sessions.ended',
          target: `user:${user.user.id}`,
          actor: { type: 'operator', user: null },
          details: [{ name: 'sessions', value: '2' }],
          clientAddress: null,
        },
        {
          action: 'password.changed',
          target: `user:${user.user.id}`,
          actor: self,
          details: [{ name: 'sessions', value: '1' }],
          clientAddress: `203.0.113.${client}`,
        },
        {
          action: 'session.revoked',
          target: `session:${phoneId}`,
          actor: self,
          details: [],
          clientAddress: `203.0.113.${client}`,
        },
      ],
      endCursor: null,
    });
    expect(JSON.stringify(log)).not.toMatch(/ses_|a fresh long passphrase/);

    // Another person's log is theirs alone, even when an entity fetch names them.
    const other = await signUp();
    const peek = await fetch(platform.config.subgraphUrls.identity, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...internalCredentialHeaders(platform.config.internalSecret),
        [SESSION_USER_HEADER]: other.user.id,
        [SESSION_ID_HEADER]: '1',
      },
      body: JSON.stringify({
        query: `query ($r: [_Any!]!) { _entities(representations: $r) { ... on User { auditLog { items { action } } } } }`,
        variables: { r: [{ __typename: 'User', id: user.user.id }] },
      }),
    });
    const peeked = (await peek.json()) as { errors?: { message: string; extensions?: { code?: string } }[] };
    expect(peeked.errors?.[0]).toMatchObject({
      message: 'User not found.',
      extensions: { code: 'NOT_FOUND' },
    });
    const unknown = await admin<unknown>(
      platform.config,
      'user',
      'end-sessions',
      '--email',
      'no-one@example.test',
    ).catch((error: unknown) => error);
    expect(String(unknown)).toContain('User not found.');
  });

  it('trusts only the gateway’s word on who is signed in', async () => {
    const user = await signUp();
    const forged = await graph(VIEWER, {}, { 'x-session-user': user.user.id, 'x-session-id': '1' });
    expect(forged.data).toEqual({ viewer: null });
    const unknown = await graph(VIEWER, {}, as(`ses_${'A'.repeat(43)}`));
    expect(unknown.data).toEqual({ viewer: null });
    const hidden = await graph(`{ sessionPrincipal(token: "${user.token}") { userId } }`);
    expect(hidden.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
    const rows = await database.query(`select token_hash from identity.sessions`);
    expect(JSON.stringify(rows)).not.toContain(user.token.slice(4, 20));
  });
});

describe('sign-ups per client address', () => {
  let database: TestDatabase;
  let platform: Platform;

  beforeAll(async () => {
    database = await createTestDatabase();
    platform = await startPlatform(database, { SIGNUP_RATE_LIMIT: '2' });
  });

  afterAll(async () => {
    await platform?.stop();
    await database.drop();
  });

  it('refuses the third sign-up of an hour from one address with RATE_LIMITED', async () => {
    const answers: { status: number; code?: unknown; retryAfter?: unknown }[] = [];
    for (let i = 0; i < 3; i += 1) {
      const reply = await askGraph(platform.gatewayUrl, SIGN_UP, {
        i: { email: `many${i}@example.test`, password: 'a fine long passphrase', name: 'Many' },
      });
      answers.push({ status: reply.status, ...reply.errors?.[0]?.extensions });
    }
    expect(answers.map((a) => a.status)).toEqual([200, 200, 429]);
    expect(answers[2]).toMatchObject({ code: 'RATE_LIMITED' });
    expect(Number(answers[2]!.retryAfter)).toBeGreaterThan(3500);
  });
});
