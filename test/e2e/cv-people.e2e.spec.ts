import { internalCredentialHeaders } from '../../common/internal-credential';
import { signExportLink } from '../../contracts/cv/export-link';
import { SESSION_USER_HEADER } from '../../contracts/identity/session';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { askGraph, bearer, signUpPerson, type SignedUp } from '../support/graph';
import { admin, platformTemplateId, startPlatform, type Platform } from '../support/platform';

const CREATE_ACCOUNT = `mutation ($i: CreateCvAccountInput) { createCvAccount(input: $i) { id name email } }`;
const CREATE_CV = `mutation ($i: CreateCvInput!) { createCv(input: $i) { id title } }`;
const CREATE_KEY = `mutation ($i: CreateAccountApiKeyInput!) {
  createAccountApiKey(input: $i) { secret apiKey { id name prefix revokedAt } }
}`;

describe('CV accounts of signed-in people', () => {
  let database: TestDatabase;
  let platform: Platform;

  beforeAll(async () => {
    database = await createTestDatabase();
    platform = await startPlatform(database, { PUBLIC_WRITE_RATE_LIMIT: '1000' });
  });

  afterAll(async () => {
    await platform?.stop();
    await database.drop();
  });

  const graph = (
    query: string,
    variables: Record<string, unknown> = {},
    headers: Record<string, string> = {},
  ) => askGraph(platform.gatewayUrl, query, variables, headers);
  const session = bearer;

  async function data<T>(query: string, variables: Record<string, unknown>, token: string): Promise<T> {
    const reply = await graph(query, variables, session(token));
    expect(reply.errors).toBeUndefined();
    return reply.data as T;
  }

  let people = 0;
  function person(): Promise<SignedUp> {
    people += 1;
    return signUpPerson(platform.gatewayUrl, {
      email: `cv-person${people}@example.test`,
      name: `Person ${people}`,
    });
  }

  /** A person with their own account, as a web app would set one up. */
  async function personWithAccount() {
    const who = await person();
    const { createCvAccount } = await data<{ createCvAccount: { id: string } }>(
      CREATE_ACCOUNT,
      {},
      who.token,
    );
    return { ...who, accountId: createCvAccount.id };
  }

  const classic = () => platformTemplateId(database, 'classic').then(String);

  it('opens one account per person, on the free plan, and refuses a second with CONFLICT', async () => {
    const who = await person();
    const none = await graph('{ viewer { id cvAccount { id } } }', {}, session(who.token));
    expect(none.data).toEqual({ viewer: { id: who.id, cvAccount: null } });
    const me = await graph('{ me { id } }', {}, session(who.token));
    expect(me.errors?.[0]).toMatchObject({
      message: 'You have no CV account yet. Create one with createCvAccount.',
      extensions: { code: 'UNAUTHENTICATED' },
    });

    const { createCvAccount } = await data<{ createCvAccount: Record<string, string> }>(
      CREATE_ACCOUNT,
      { i: { name: 'My CVs' } },
      who.token,
    );
    expect(createCvAccount).toEqual({ id: expect.any(String) as unknown, name: 'My CVs', email: who.email });
    const second = await graph(CREATE_ACCOUNT, { i: { name: 'Another' } }, session(who.token));
    expect(second.errors?.[0]).toMatchObject({
      message: 'You already have a CV account.',
      extensions: { code: 'CONFLICT' },
    });

    const viewer = await data<{ viewer: { cvAccount: Record<string, unknown> } }>(
      '{ viewer { cvAccount { id name apiKey { name } plan { key } usage { cvs downloadsThisMonth } } } }',
      {},
      who.token,
    );
    expect(viewer.viewer.cvAccount).toEqual({
      id: createCvAccount.id,
      name: 'My CVs',
      apiKey: null,
      plan: { key: 'free' },
      usage: { cvs: 0, downloadsThisMonth: 0 },
    });

    // Without a name the account is called as the person is.
    const unnamed = await person();
    const named = await data<{ createCvAccount: { name: string } }>(CREATE_ACCOUNT, {}, unnamed.token);
    expect(named.createCvAccount.name).toBe(unnamed.name);

    const anonymous = await graph(CREATE_ACCOUNT, {});
    expect(anonymous.errors?.[0]).toMatchObject({
      message: 'Sign in first.',
      extensions: { code: 'UNAUTHENTICATED' },
    });
  });

  it('creates, lists and updates CVs with the session as with a key, within the plan’s cv_limit', async () => {
    const who = await personWithAccount();
    const templateId = await classic();
    const first = await data<{ createCv: { id: string; title: string } }>(
      CREATE_CV,
      { i: { title: 'Engineer', locale: 'en', templateId } },
      who.token,
    );
    await data(CREATE_CV, { i: { title: 'Manager', locale: 'ar', templateId } }, who.token);
    const list = await data<{ cvs: { title: string }[] }>('{ cvs { title } }', {}, who.token);
    expect(list.cvs.map((cv) => cv.title)).toEqual(['Manager', 'Engineer']);

    const updated = await data<{ updateCv: { title: string; personal: { fullName: string } } }>(
      'mutation ($id: ID!, $i: UpdateCvInput!) { updateCv(id: $id, input: $i) { title personal { fullName } } }',
      { id: first.createCv.id, i: { title: 'Senior engineer', personal: { fullName: 'Layla Hassan' } } },
      who.token,
    );
    expect(updated.updateCv).toEqual({ title: 'Senior engineer', personal: { fullName: 'Layla Hassan' } });

    // The free plan holds two CVs, whichever credential asks.
    const third = await graph(
      CREATE_CV,
      { i: { title: 'Third', locale: 'en', templateId } },
      session(who.token),
    );
    expect(third.errors?.[0]).toMatchObject({
      message: 'Your plan allows 2 CVs. Delete one or upgrade your plan to create another.',
      extensions: { code: 'FORBIDDEN' },
    });
    const usage = await data<{ me: { usage: { cvs: number } } }>('{ me { usage { cvs } } }', {}, who.token);
    expect(usage.me.usage.cvs).toBe(2);

    // Its user moves the account to pro; the new limit holds on the next request.
    const CHANGE = 'mutation ($i: ChangePlanInput!) { changePlan(input: $i) { key } }';
    const stranger = await personWithAccount();
    const notTheirs = await graph(
      CHANGE,
      { i: { accountId: who.accountId, plan: 'pro' } },
      session(stranger.token),
    );
    expect(notTheirs.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    const ticketPlan = await graph(
      CHANGE,
      { i: { accountId: who.accountId, plan: 'growth' } },
      session(who.token),
    );
    expect(Object.keys(ticketPlan.errors?.[0]?.extensions?.errors ?? {})).toEqual(['plan']);
    expect(await data(CHANGE, { i: { accountId: who.accountId, plan: 'pro' } }, who.token)).toEqual({
      changePlan: { key: 'pro' },
    });
    await data(CREATE_CV, { i: { title: 'Third', locale: 'en', templateId } }, who.token);
  });

  it('keeps one person’s CVs and account from every other person', async () => {
    const owner = await personWithAccount();
    const other = await personWithAccount();
    const stranger = await person();
    const { createCv } = await data<{ createCv: { id: string } }>(
      CREATE_CV,
      { i: { title: 'Private', locale: 'en', templateId: await classic() } },
      owner.token,
    );
    const read = 'query ($id: ID!) { cv(id: $id) { title } }';

    const byOther = await graph(read, { id: createCv.id }, session(other.token));
    expect(byOther.errors?.[0]).toMatchObject({
      message: 'This CV belongs to another account.',
      extensions: { code: 'FORBIDDEN' },
    });
    const update = await graph(
      'mutation ($id: ID!) { deleteCv(id: $id) }',
      { id: createCv.id },
      session(other.token),
    );
    expect(update.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const byStranger = await graph(read, { id: createCv.id }, session(stranger.token));
    expect(byStranger.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    const link = await graph(
      'query ($id: ID!) { cvExportUrl(id: $id, format: PDF) { url } }',
      { id: createCv.id },
      session(other.token),
    );
    expect(link.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');

    // Another person's User answers no account, as the gateway would fetch it for a panel.
    const entities = await fetch(platform.config.subgraphUrls.cv, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...internalCredentialHeaders(platform.config.internalSecret),
        [SESSION_USER_HEADER]: other.id,
      },
      body: JSON.stringify({
        query:
          'query ($r: [_Any!]!) { _entities(representations: $r) { ... on User { id cvAccount { id } } } }',
        variables: {
          r: [
            { __typename: 'User', id: owner.id },
            { __typename: 'User', id: other.id },
          ],
        },
      }),
    });
    expect(await entities.json()).toEqual({
      data: {
        _entities: [
          { id: owner.id, cvAccount: null },
          { id: other.id, cvAccount: { id: other.accountId } },
        ],
      },
    });
  });

  it('issues account keys that work over REST until they are revoked', async () => {
    const who = await personWithAccount();
    const { createAccountApiKey } = await data<{
      createAccountApiKey: { secret: string; apiKey: { id: string; name: string; prefix: string } };
    }>(CREATE_KEY, { i: { name: 'Laptop script' } }, who.token);
    expect(createAccountApiKey.secret).toMatch(/^cv_[A-Za-z0-9_-]{32}$/);
    expect(createAccountApiKey.apiKey).toMatchObject({
      name: 'Laptop script',
      prefix: createAccountApiKey.secret.slice(0, 11),
      revokedAt: null,
    });

    const rest = () =>
      fetch(`${platform.restUrl}/me`, {
        headers: { 'x-api-key': createAccountApiKey.secret, accept: 'application/json' },
      });
    const me = await rest();
    expect(me.status).toBe(200);
    expect(((await me.json()) as { data: { name: string; api_key: unknown } }).data).toMatchObject({
      name: who.name,
      api_key: { name: 'Laptop script', prefix: createAccountApiKey.apiKey.prefix },
    });

    const listed = await data<{ viewer: { cvAccount: { id: string; apiKeys: { name: string }[] } } }>(
      '{ viewer { cvAccount { id apiKeys { name } } } }',
      {},
      who.token,
    );
    expect(listed.viewer.cvAccount).toEqual({ id: who.accountId, apiKeys: [{ name: 'Laptop script' }] });

    // The key reads its account's keys, but cannot issue more.
    const byKey = await graph(
      '{ me { apiKey { id createdAt revokedAt } apiKeys { name lastUsedAt } } }',
      {},
      { 'x-api-key': createAccountApiKey.secret },
    );
    expect(byKey.data).toEqual({
      me: {
        apiKey: {
          id: createAccountApiKey.apiKey.id,
          createdAt: expect.any(String) as unknown,
          revokedAt: null,
        },
        apiKeys: [{ name: 'Laptop script', lastUsedAt: expect.any(String) as unknown }],
      },
    });
    const issuedByKey = await graph(
      CREATE_KEY,
      { i: { name: 'Copy' } },
      { 'x-api-key': createAccountApiKey.secret },
    );
    expect(issuedByKey.errors?.[0]).toMatchObject({
      message: 'Only the account’s owner, signed in, manages its API keys.',
      extensions: { code: 'FORBIDDEN' },
    });

    const other = await personWithAccount();
    const revokeByOther = await graph(
      'mutation ($id: ID!) { revokeAccountApiKey(id: $id) { id } }',
      { id: createAccountApiKey.apiKey.id },
      session(other.token),
    );
    expect(revokeByOther.errors?.[0]).toMatchObject({
      message: 'API key not found.',
      extensions: { code: 'NOT_FOUND' },
    });
    expect((await rest()).status).toBe(200);

    const revoked = await data<{ revokeAccountApiKey: { revokedAt: string | null } }>(
      'mutation ($id: ID!) { revokeAccountApiKey(id: $id) { revokedAt } }',
      { id: createAccountApiKey.apiKey.id },
      who.token,
    );
    expect(revoked.revokeAccountApiKey.revokedAt).not.toBeNull();
    expect((await rest()).status).toBe(401);
  });

  it('keeps the account’s every change in its audit log, the operator’s too, never a secret', async () => {
    const who = await personWithAccount();
    const issued = await data<{ createAccountApiKey: { secret: string; apiKey: { id: string } } }>(
      CREATE_KEY,
      { i: { name: 'Shop laptop' } },
      who.token,
    );
    await data(
      'mutation ($id: ID!) { revokeAccountApiKey(id: $id) { id } }',
      { id: issued.createAccountApiKey.apiKey.id },
      who.token,
    );
    // Revoking twice keeps the first time, and the log keeps the one revocation.
    await data(
      'mutation ($id: ID!) { revokeAccountApiKey(id: $id) { id } }',
      { id: issued.createAccountApiKey.apiKey.id },
      who.token,
    );
    await data(
      'mutation ($i: ChangePlanInput!) { changePlan(input: $i) { key } }',
      { i: { accountId: who.accountId, plan: 'pro' } },
      who.token,
    );
    const byOperator = await admin<{ id: number; key: string }>(
      platform.config,
      'account-key',
      'create',
      '--account',
      who.accountId,
      '--name',
      'Support',
    );
    await admin(platform.config, 'account', 'set-plan', '--id', who.accountId, '--plan', 'business');

    type Event = {
      action: string;
      target: string;
      actor: { type: string; user: { id: string; name: string } | null };
      details: { name: string; value: string | null }[];
      clientAddress: string | null;
    };
    const LOG = `query ($after: String) { viewer { cvAccount { auditLog(first: 4, after: $after) {
      items { action target actor { type user { id name } } details { name value } clientAddress }
      endCursor
    } } } }`;
    const page = async (after: string | null) =>
      (
        await data<{ viewer: { cvAccount: { auditLog: { items: Event[]; endCursor: string | null } } } }>(
          LOG,
          { after },
          who.token,
        )
      ).viewer.cvAccount.auditLog;
    const first = await page(null);
    expect(first.endCursor).not.toBeNull();
    const second = await page(first.endCursor);
    expect(second.endCursor).toBeNull();
    const events = [...first.items, ...second.items];

    const person = { type: 'user', user: { id: who.id, name: who.name } };
    const operator = { type: 'operator', user: null };
    expect(events.map(({ action, target, actor }) => ({ action, target, actor }))).toEqual([
      { action: 'plan.changed', target: `account:${who.accountId}`, actor: operator },
      { action: 'api_key.issued', target: `api_key:${byOperator.id}`, actor: operator },
      { action: 'plan.changed', target: `account:${who.accountId}`, actor: person },
      { action: 'api_key.revoked', target: `api_key:${issued.createAccountApiKey.apiKey.id}`, actor: person },
      { action: 'api_key.issued', target: `api_key:${issued.createAccountApiKey.apiKey.id}`, actor: person },
      { action: 'account.created', target: `account:${who.accountId}`, actor: person },
    ]);
    expect(events[0]!.details).toEqual([{ name: 'plan', value: 'business' }]);
    expect(events[2]!.details).toEqual([{ name: 'plan', value: 'pro' }]);
    expect(events[4]!.details).toEqual([
      { name: 'name', value: 'Shop laptop' },
      { name: 'prefix', value: issued.createAccountApiKey.secret.slice(0, 11) },
    ]);
    // The person's changes carry where they came from; the operator's have no address.
    expect(events.map((event) => event.clientAddress !== null)).toEqual([
      false,
      false,
      true,
      true,
      true,
      true,
    ]);
    const printed = JSON.stringify(events);
    expect(printed).not.toContain(issued.createAccountApiKey.secret);
    expect(printed).not.toContain(byOperator.key);

    // A key of the account reads the account, not its log; another person sees no account at all.
    const byKey = await graph(
      '{ me { auditLog { items { action } } } }',
      {},
      { 'x-api-key': byOperator.key },
    );
    expect(byKey.errors?.[0]).toMatchObject({
      message: 'Only the account’s owner, signed in, reads its audit log.',
      extensions: { code: 'FORBIDDEN' },
    });
    const bad = await graph(
      '{ viewer { cvAccount { auditLog(after: "not a cursor") { items { action } } } } }',
      {},
      session(who.token),
    );
    expect(bad.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
  });

  it('hands a browser a signed download link that works for 60 seconds, without a key', async () => {
    const who = await personWithAccount();
    const { createCv } = await data<{ createCv: { id: string } }>(
      CREATE_CV,
      { i: { title: 'Linked', locale: 'en', templateId: await classic() } },
      who.token,
    );
    const before = Date.now();
    const { cvExportUrl } = await data<{ cvExportUrl: { url: string; expiresAt: string } }>(
      'query ($id: ID!) { cvExportUrl(id: $id, format: PDF) { url expiresAt } }',
      { id: createCv.id },
      who.token,
    );
    const publicUrl = new URL(cvExportUrl.url);
    expect(`${publicUrl.origin}${publicUrl.pathname}`).toBe(
      `${platform.config.publicBaseUrl}/api/v1/cvs/${createCv.id}/pdf`,
    );
    expect(publicUrl.searchParams.get('account')).toBe(who.accountId);
    const lifetime = new Date(cvExportUrl.expiresAt).getTime() - before;
    expect(lifetime).toBeGreaterThan(58_000);
    expect(lifetime).toBeLessThanOrEqual(61_000);

    const onAdapter = (url: URL) =>
      `${platform.restUrl}${url.pathname.replace(/^\/api\/v1/, '')}${url.search}`;
    const pdf = await fetch(onAdapter(publicUrl));
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    expect(pdf.headers.get('content-disposition')).toContain('attachment');
    expect(
      Buffer.from(await pdf.arrayBuffer())
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-');
    const usage = await data<{ me: { usage: { downloadsThisMonth: number } } }>(
      '{ me { usage { downloadsThisMonth } } }',
      {},
      who.token,
    );
    expect(usage.me.usage.downloadsThisMonth).toBe(1);

    const refused = async (url: URL) => {
      const response = await fetch(onAdapter(url), { headers: { accept: 'application/json' } });
      return { status: response.status, body: (await response.json()) as { message: string } };
    };
    const expires = Math.floor(Date.now() / 1000) - 1;
    const expired = new URL(publicUrl);
    expired.searchParams.set('expires', String(expires));
    expired.searchParams.set(
      'signature',
      signExportLink(platform.config.internalSecret, {
        cvId: createCv.id,
        format: 'pdf',
        accountId: who.accountId,
        expires,
      }),
    );
    expect(await refused(expired)).toEqual({
      status: 403,
      body: { message: 'This download link has expired; ask for a new one.', errors: {} },
    });
    const forged = new URL(publicUrl);
    const signature = publicUrl.searchParams.get('signature')!;
    forged.searchParams.set('signature', `${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`);
    expect((await refused(forged)).body.message).toBe('This download link is not valid.');
    // A link names its format: the same signature does not open the HTML export.
    const otherFormat = new URL(publicUrl);
    otherFormat.pathname = otherFormat.pathname.replace(/pdf$/, 'html');
    expect((await refused(otherFormat)).status).toBe(403);

    const after = await data<{ me: { usage: { downloadsThisMonth: number } } }>(
      '{ me { usage { downloadsThisMonth } } }',
      {},
      who.token,
    );
    expect(after.me.usage.downloadsThisMonth).toBe(1);
  });
});
