import { startRestAdapter } from '../../rest-adapter/rest-adapter';
import { cvCaller, newAccountKey, newCvAccount, type Platform, startPlatform } from '../support/platform';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { awayFromWindowEdge } from '../support/wait';

const QUOTA = 5;

describe('the CV API’s request rate: per account, across its keys, in Redis', () => {
  let database: TestDatabase;
  let platform: Platform;
  let call: ReturnType<typeof cvCaller>;

  beforeAll(async () => {
    database = await createTestDatabase();
    platform = await startPlatform(database, { CV_RATE_LIMIT: String(QUOTA) });
    call = cvCaller(platform);
  });

  afterAll(async () => {
    await platform?.stop();
    await database.drop();
  });

  it('counts every key of an account together, answers 429 with Retry-After past the quota, and spares other accounts', async () => {
    const account = await newCvAccount(platform.config, { plan: 'pro' });
    const second = await newAccountKey(platform.config, account.id);
    const other = await newCvAccount(platform.config, { plan: 'pro' });
    await awayFromWindowEdge(60);
    const first = await call('GET', '/me', account.key);
    expect(first.status).toBe(200);
    // The platform's first sight of a key also counts the client address, for its look-up.
    expect(first.headers.get('ratelimit-policy')).toBe(`"public";q=300;w=60, "cv";q=${QUOTA};w=60`);
    expect(first.headers.get('ratelimit')).toMatch(
      new RegExp(`^"public";r=\\d+;t=\\d+, "cv";r=${QUOTA - 1};t=\\d+$`),
    );
    for (let i = 1; i < QUOTA; i += 1) {
      const reply = await call('GET', '/cvs', i % 2 === 0 ? account.key : second.key);
      expect(reply.status).toBe(200);
    }
    const refused = await call('GET', '/templates', second.key, undefined, { 'accept-language': 'ar' });
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ message: 'محاولات كثيرة جداً. أعد المحاولة لاحقاً.', errors: {} });
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused.headers.get('ratelimit')).toMatch(/^"cv";r=0;t=\d+$/);
    expect((await call('GET', '/me', account.key)).status).toBe(429);
    expect((await call('GET', '/me', other.key)).status).toBe(200);
    // The plan catalogue needs no key and is not the account's to spend.
    expect((await fetch(`${platform.restUrl}/plans`)).status).toBe(200);
  });

  it('is shared by adapter replicas: a second adapter process sees the first one’s count', async () => {
    const account = await newCvAccount(platform.config, { plan: 'pro' });
    const replica = await startRestAdapter({
      ...platform.config,
      ports: { ...platform.config.ports, rest: 0 },
    });
    try {
      await awayFromWindowEdge(60);
      for (let i = 0; i < QUOTA; i += 1) expect((await call('GET', '/me', account.key)).status).toBe(200);
      const elsewhere = await fetch(`http://127.0.0.1:${replica.port}/api/v1/me`, {
        headers: { 'x-api-key': account.key },
      });
      expect(elsewhere.status).toBe(429);
    } finally {
      await replica.stop();
    }
  });
});
