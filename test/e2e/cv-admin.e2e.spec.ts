import { testConfig, createTestDatabase, type TestDatabase } from '../support/database';
import { admin } from '../support/platform';
import type { Config } from '../../common/config';

describe('CV accounts, keys and templates through the admin CLI, on real Postgres', () => {
  let database: TestDatabase;
  let config: Config;

  beforeAll(async () => {
    database = await createTestDatabase();
    config = testConfig(database);
  });

  afterAll(async () => {
    await database.drop();
  });

  it('seeds six platform templates, two of them premium', async () => {
    const rows = await database.query(
      'select slug, layout, is_premium from cv.templates where company_id is null order by id',
    );
    expect(rows.map((r) => r.slug)).toEqual([
      'classic',
      'sidebar',
      'minimal',
      'scholar',
      'executive',
      'studio',
    ]);
    expect(rows.filter((r) => r.is_premium === true).map((r) => r.slug)).toEqual(['executive', 'studio']);
  });

  it('creates a company, an account on a plan, and moves the plan in billing', async () => {
    const company = await admin<{ id: number; name: string }>(
      config,
      'company',
      'create',
      '--name',
      'Rafidain HR',
    );
    expect(company).toEqual({ id: expect.any(Number) as unknown, name: 'Rafidain HR' });
    const account = await admin<{ id: number; plan: string; company_id: number }>(
      config,
      'account',
      'create',
      '--name',
      'Sara Ali',
      '--email',
      'Sara@Example.com',
      '--plan',
      'pro',
      '--company',
      String(company.id),
    );
    expect(account).toMatchObject({
      name: 'Sara Ali',
      email: 'Sara@Example.com',
      plan: 'pro',
      company_id: company.id,
    });
    const plan = async () =>
      (
        await database.query(
          `select plan_key from billing.subscriptions where subject_type = 'account' and subject_id = $1`,
          [account.id],
        )
      )[0]?.plan_key;
    expect(await plan()).toBe('pro');
    await admin(config, 'account', 'set-plan', '--id', String(account.id), '--plan', 'business');
    expect(await plan()).toBe('business');

    const free = await admin<{ plan: string; company_id: null }>(
      config,
      'account',
      'create',
      '--name',
      'Omar',
      '--email',
      'omar@example.com',
    );
    expect(free).toMatchObject({ plan: 'free', company_id: null });
  });

  it('refuses a taken email, a bad email, an unknown company and a ticket plan, naming the field', async () => {
    await admin(config, 'account', 'create', '--name', 'Huda', '--email', 'huda@example.com');
    await expect(
      admin(config, 'account', 'create', '--name', 'H', '--email', 'HUDA@example.com'),
    ).rejects.toThrow(/The email has already been taken\./);
    await expect(
      admin(config, 'account', 'create', '--name', 'H', '--email', 'not-an-email'),
    ).rejects.toThrow(/email/);
    await expect(
      admin(config, 'account', 'create', '--name', 'H', '--email', 'h2@example.com', '--company', '99999'),
    ).rejects.toThrow(/Company 99999 not found\./);
    await expect(
      admin(config, 'account', 'create', '--name', 'H', '--email', 'h3@example.com', '--plan', 'growth'),
    ).rejects.toThrow(/plan/);
  });

  it('issues a key shown once and stored only as its hash, and revokes it', async () => {
    const account = await admin<{ id: number }>(
      config,
      'account',
      'create',
      '--name',
      'K',
      '--email',
      'k@example.com',
    );
    const issued = await admin<{ id: number; key: string; prefix: string; name: string }>(
      config,
      'account-key',
      'create',
      '--account',
      String(account.id),
      '--name',
      'HR portal',
    );
    expect(issued.key).toMatch(/^cv_[A-Za-z0-9_-]{32}$/);
    expect(issued.prefix).toBe(issued.key.slice(0, 11));
    expect(issued.name).toBe('HR portal');
    const [row] = await database.query(
      `select encode(key_hash, 'hex') as hash, prefix from cv.account_api_keys where id = $1`,
      [issued.id],
    );
    expect(row!.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(await database.query('select * from cv.account_api_keys'))).not.toContain(
      issued.key,
    );
    const revoked = await admin<{ revoked_at: string }>(
      config,
      'account-key',
      'revoke',
      '--id',
      String(issued.id),
    );
    expect(revoked.revoked_at).toMatch(/^\d{4}-/);
    await expect(admin(config, 'account-key', 'create', '--account', '99999')).rejects.toThrow(
      /Account 99999 not found\./,
    );
  });

  it("creates a company's template, refusing a taken slug and an unknown layout", async () => {
    const company = await admin<{ id: number }>(config, 'company', 'create', '--name', 'Tigris Co');
    const made = await admin<Record<string, unknown>>(
      config,
      'template',
      'create',
      '--company',
      String(company.id),
      '--slug',
      'tigris-brand',
      '--name',
      'Tigris brand',
      '--layout',
      'sidebar',
      '--premium',
    );
    expect(made).toMatchObject({
      company_id: company.id,
      slug: 'tigris-brand',
      layout: 'sidebar',
      is_premium: true,
    });
    await expect(
      admin(
        config,
        'template',
        'create',
        '--company',
        String(company.id),
        '--slug',
        'tigris-brand',
        '--name',
        'X',
        '--layout',
        'sidebar',
      ),
    ).rejects.toThrow(/The slug has already been taken\./);
    // A platform slug is free for a company's own template.
    await admin(
      config,
      'template',
      'create',
      '--company',
      String(company.id),
      '--slug',
      'classic',
      '--name',
      'Ours',
      '--layout',
      'single-column',
    );
    await expect(
      admin(
        config,
        'template',
        'create',
        '--company',
        String(company.id),
        '--slug',
        'x',
        '--name',
        'X',
        '--layout',
        'grid',
      ),
    ).rejects.toThrow(/layout/);
  });
});
