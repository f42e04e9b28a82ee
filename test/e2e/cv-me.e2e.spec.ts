import { createTestDatabase, type TestDatabase } from '../support/database';
import { admin, newCvAccount, startPlatform, type Platform } from '../support/platform';

describe('GET /me and `me`: the account of an X-API-Key, with billing’s plan, subscription and usage', () => {
  let database: TestDatabase;
  let platform: Platform;
  let key: string;
  let keyId: number;
  let accountId: number;

  beforeAll(async () => {
    database = await createTestDatabase();
    platform = await startPlatform(database);
    const account = await newCvAccount(platform.config, {
      plan: 'pro',
      name: 'Layla Hassan',
      email: 'layla@example.com',
      keyName: 'HR portal',
    });
    accountId = account.id;
    key = account.key;
    keyId = account.keyId;
  });

  afterAll(async () => {
    await platform?.stop();
    await database.drop();
  });

  const me = async (headers: Record<string, string>) => {
    const response = await fetch(`${platform.restUrl}/me`, {
      headers: { accept: 'application/json', ...headers },
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  it('answers every field of the Account resource inside data', async () => {
    const answer = await me({ 'x-api-key': key });
    expect(answer).toEqual({
      status: 200,
      body: {
        data: {
          id: accountId,
          name: 'Layla Hassan',
          email: 'layla@example.com',
          plan: {
            key: 'pro',
            name: 'Pro',
            cv_limit: 25,
            download_limit: 100,
            premium_templates: true,
            watermark: false,
          },
          subscription: { status: 'active', ends_at: null },
          usage: { cvs: 0, downloads_this_month: 0 },
          api_key: { name: 'HR portal', prefix: key.slice(0, 11) },
        },
      },
    });
    const [row] = await database.query('select last_used_at from cv.account_api_keys where id = $1', [keyId]);
    expect(row!.last_used_at).not.toBeNull();
  });

  it('is 401 with the document’s error shape for a missing, wrong or revoked key, in English or Arabic', async () => {
    expect(await me({})).toEqual({ status: 401, body: { message: 'Unauthenticated.', errors: {} } });
    expect(await me({ 'x-api-key': 'cv_wrong' })).toEqual({
      status: 401,
      body: { message: 'Unauthenticated.', errors: {} },
    });
    const arabic = await me({ 'accept-language': 'ar' });
    expect(arabic.status).toBe(401);
    expect(arabic.body.message).toMatch(/^غير مصادق/);

    const doomed = await newCvAccount(platform.config);
    expect((await me({ 'x-api-key': doomed.key })).status).toBe(200);
    await admin(platform.config, 'account-key', 'revoke', '--id', String(doomed.keyId));
    expect((await me({ 'x-api-key': doomed.key })).status).toBe(401);
  });

  it('serves the same account as one graph through the gateway', async () => {
    const response = await fetch(platform.gatewayUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({
        query: '{ me { id email cvCount plan { key } usage { cvs downloadsThisMonth } } }',
      }),
    });
    expect(await response.json()).toEqual({
      data: {
        me: {
          id: String(accountId),
          email: 'layla@example.com',
          cvCount: 0,
          plan: { key: 'pro' },
          usage: { cvs: 0, downloadsThisMonth: 0 },
        },
      },
    });
  });
});
