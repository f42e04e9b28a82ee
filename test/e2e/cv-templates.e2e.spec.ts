import { createTestDatabase, type TestDatabase } from '../support/database';
import { admin, newCvAccount, startPlatform, type Platform } from '../support/platform';

interface TemplateResource {
  id: number;
  slug: string;
  is_premium: boolean;
  is_company_template: boolean;
  available: boolean;
  preview_url: string;
}

describe('GET /templates and /templates/{id}: platform and company templates, availability by plan, caching', () => {
  let database: TestDatabase;
  let platform: Platform;
  let freeKey: string;
  let proKey: string;
  let freeAccount: number;
  let companyTemplate: number;
  let otherCompanyTemplate: number;

  const accountKey = (email: string, plan: string, company?: number) =>
    newCvAccount(platform.config, { email, plan, ...(company === undefined ? {} : { company }) });

  beforeAll(async () => {
    database = await createTestDatabase();
    platform = await startPlatform(database, { PUBLIC_BASE_URL: 'https://cv.example.test' });
    const company = await admin<{ id: number }>(
      platform.config,
      'company',
      'create',
      '--name',
      'Babylon Bank',
    );
    const other = await admin<{ id: number }>(platform.config, 'company', 'create', '--name', 'Other Co');
    companyTemplate = (
      await admin<{ id: number }>(
        platform.config,
        'template',
        'create',
        '--company',
        String(company.id),
        '--slug',
        'babylon',
        '--name',
        'Babylon',
        '--layout',
        'two-column',
      )
    ).id;
    otherCompanyTemplate = (
      await admin<{ id: number }>(
        platform.config,
        'template',
        'create',
        '--company',
        String(other.id),
        '--slug',
        'other',
        '--name',
        'Other',
        '--layout',
        'sidebar',
      )
    ).id;
    const free = await accountKey('free@example.com', 'free', company.id);
    freeKey = free.key;
    freeAccount = free.id;
    proKey = (await accountKey('pro@example.com', 'pro')).key;
  });

  afterAll(async () => {
    await platform?.stop();
    await database.drop();
  });

  const get = async (path: string, key: string | null, headers: Record<string, string> = {}) => {
    const response = await fetch(`${platform.restUrl}${path}`, {
      headers: { ...(key ? { 'x-api-key': key } : {}), ...headers },
    });
    const text = await response.text();
    return {
      status: response.status,
      headers: response.headers,
      body:
        text === ''
          ? null
          : (JSON.parse(text) as {
              data: TemplateResource[] & TemplateResource;
              message?: string;
              errors?: unknown;
            }),
    };
  };

  it('lists the platform templates then the company’s own, premium ones unavailable on the free plan', async () => {
    const answer = await get('/templates', freeKey);
    expect(answer.status).toBe(200);
    const list = answer.body!.data;
    expect(list.map((t) => t.slug)).toEqual([
      'classic',
      'sidebar',
      'minimal',
      'scholar',
      'executive',
      'studio',
      'babylon',
    ]);
    expect(list.filter((t) => !t.available).map((t) => t.slug)).toEqual(['executive', 'studio']);
    expect(list.find((t) => t.slug === 'babylon')).toMatchObject({
      is_company_template: true,
      available: true,
    });
    for (const t of list) expect(t.preview_url).toBe(`https://cv.example.test/templates/${t.id}/preview`);
    expect(Object.keys(list[0]!)).toEqual([
      'id',
      'slug',
      'name',
      'description',
      'category',
      'layout',
      'is_premium',
      'is_company_template',
      'available',
      'preview_url',
    ]);

    const pro = (await get('/templates', proKey)).body!.data;
    expect(pro.map((t) => t.slug)).not.toContain('babylon');
    expect(pro.every((t) => t.available)).toBe(true);
  });

  it('follows a plan change at once', async () => {
    const before = (await get('/templates', freeKey)).body!.data;
    expect(before.find((t) => t.slug === 'studio')!.available).toBe(false);
    await admin(platform.config, 'account', 'set-plan', '--id', String(freeAccount), '--plan', 'business');
    const after = (await get('/templates', freeKey)).body!.data;
    expect(after.find((t) => t.slug === 'studio')!.available).toBe(true);
    await admin(platform.config, 'account', 'set-plan', '--id', String(freeAccount), '--plan', 'free');
  });

  it('reads one template; another company’s or an unknown id is 404, no key is 401', async () => {
    const one = await get(`/templates/${companyTemplate}`, freeKey);
    expect(one.body!.data).toMatchObject({ id: companyTemplate, slug: 'babylon' });
    for (const id of [String(otherCompanyTemplate), '999999', 'abc']) {
      expect(await get(`/templates/${id}`, freeKey).then((r) => [r.status, r.body])).toEqual([
        404,
        { message: 'Template not found.', errors: {} },
      ]);
    }
    expect((await get('/templates/1', freeKey, { 'accept-language': 'ar' })).status).toBe(200);
    expect(
      (await get(`/templates/${otherCompanyTemplate}`, freeKey, { 'accept-language': 'ar' })).body!.message,
    ).toBe('القالب غير موجود.');
    expect((await get('/templates', null)).status).toBe(401);
  });

  it('sends ETag and Cache-Control on plans and templates and answers 304 to a matching If-None-Match', async () => {
    for (const [path, key, cache] of [
      ['/plans', null, 'public, max-age=3600'],
      ['/templates', freeKey, 'private, max-age=300'],
      ['/templates/1', freeKey, 'private, max-age=300'],
    ] as const) {
      const first = await get(path, key);
      const etag = first.headers.get('etag');
      expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
      expect(first.headers.get('cache-control')).toBe(cache);
      const again = await get(path, key, { 'if-none-match': etag! });
      expect(again.status).toBe(304);
      expect(again.body).toBeNull();
      expect(again.headers.get('etag')).toBe(etag);
      expect((await get(path, key, { 'if-none-match': `W/${etag!}, "other"` })).status).toBe(304);
      expect((await get(path, key, { 'if-none-match': '"stale"' })).status).toBe(200);
    }
  });
});
