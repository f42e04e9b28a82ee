import { createTestDatabase, type TestDatabase } from '../support/database';
import { newCvAccount, type Platform, platformTemplateId, startPlatform } from '../support/platform';

interface Reply {
  status: number;
  body: {
    data?: Record<string, unknown> & Record<string, unknown>[];
    message?: string;
    errors?: Record<string, string[]>;
  };
}

describe('POST /cvs and GET /cvs: creation within the plan, newest first', () => {
  let database: TestDatabase;
  let platform: Platform;

  beforeAll(async () => {
    database = await createTestDatabase();
    platform = await startPlatform(database, { PUBLIC_BASE_URL: 'https://cv.example.test' });
  });

  afterAll(async () => {
    await platform?.stop();
    await database.drop();
  });

  const newAccount = (plan: string) => newCvAccount(platform.config, { plan });

  const call = async (
    method: string,
    path: string,
    key: string | null,
    body?: unknown,
    language?: string,
  ): Promise<Reply> => {
    const response = await fetch(`${platform.restUrl}${path}`, {
      method,
      headers: {
        'content-type': 'application/json',
        ...(key ? { 'x-api-key': key } : {}),
        ...(language ? { 'accept-language': language } : {}),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as Reply['body'] };
  };

  const templateId = (slug: string) => platformTemplateId(database, slug);

  it('creates a CV with its UUID and links, and lists the account’s CVs newest first', async () => {
    const { key } = await newAccount('pro');
    const classic = await templateId('classic');
    const first = await call('POST', '/cvs', key, {
      title: 'Engineer CV',
      locale: 'ar',
      template_id: classic,
    });
    expect(first.status).toBe(201);
    const cv = first.body.data!;
    expect(cv.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(cv).toMatchObject({ title: 'Engineer CV', locale: 'ar', template_id: classic });
    expect(cv.links).toEqual({
      self: `https://cv.example.test/api/v1/cvs/${String(cv.id)}`,
      pdf: `https://cv.example.test/api/v1/cvs/${String(cv.id)}/pdf`,
      html: `https://cv.example.test/api/v1/cvs/${String(cv.id)}/html`,
      share: expect.stringMatching(/^https:\/\/cv\.example\.test\/cv\/[A-Za-z0-9_-]{32}$/) as unknown,
    });
    const second = await call('POST', '/cvs', key, {
      title: 'Manager CV',
      locale: 'en',
      template_id: classic,
    });
    const list = await call('GET', '/cvs', key);
    expect(list.body.data!.map((c) => c.title)).toEqual(['Manager CV', 'Engineer CV']);
    expect(list.body.data![0]!.id).toBe(second.body.data!.id);
    const [row] = await database.query('select settings, section_order from cv.cvs where id = $1', [cv.id]);
    expect(row!.settings).toEqual({ primary_color: '#1f4e79', theme: 'light', font_family: 'naskh' });
    expect((row!.section_order as string[])[0]).toBe('experience');
    const me = await call('GET', '/me', key);
    expect((me.body.data as unknown as { usage: { cvs: number } }).usage.cvs).toBe(2);
    // Another account sees none of them.
    expect((await call('GET', '/cvs', (await newAccount('pro')).key)).body.data).toEqual([]);
  });

  it('names every bad field with 422, after the key is judged', async () => {
    const { key } = await newAccount('pro');
    expect(await call('POST', '/cvs', key, {})).toEqual({
      status: 422,
      body: {
        message: 'The title field is required. (and 2 more errors)',
        errors: {
          title: ['The title field is required.'],
          locale: ['The locale field is required.'],
          template_id: ['The template id field is required.'],
        },
      },
    });
    const wrong = await call('POST', '/cvs', key, {
      title: 'x'.repeat(256),
      locale: 'fr',
      template_id: 999999,
    });
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors).toEqual({
      title: ['The title field must not be greater than 255 characters.'],
      locale: ['The selected locale is invalid.'],
      template_id: ['The selected template id is invalid.'],
    });
    expect(
      (await call('POST', '/cvs', key, { title: 5, locale: 'ar', template_id: '1' })).body.errors,
    ).toEqual({
      title: ['The title field must be a string.'],
      template_id: ['The template id field must be an integer.'],
    });
    expect((await call('POST', '/cvs', 'cv_nope', {})).status).toBe(401);
  });

  it('refuses a premium template on the free plan with 403 naming why', async () => {
    const { key } = await newAccount('free');
    const refused = await call('POST', '/cvs', key, {
      title: 'T',
      locale: 'en',
      template_id: await templateId('studio'),
    });
    expect(refused).toEqual({
      status: 403,
      body: { message: 'This template needs a plan with premium templates.', errors: {} },
    });
  });

  it('holds cv_limit under 10 parallel creates at limit − 1: exactly one is made', async () => {
    const { key } = await newAccount('free');
    const classic = await templateId('classic');
    expect(
      (await call('POST', '/cvs', key, { title: 'One', locale: 'ar', template_id: classic })).status,
    ).toBe(201);
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        call('POST', '/cvs', key, { title: `Try ${i}`, locale: 'ar', template_id: classic }),
      ),
    );
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    const refused = answers.filter((a) => a.status === 403);
    expect(refused).toHaveLength(9);
    expect(refused[0]!.body.message).toBe(
      'Your plan allows 2 CVs. Delete one or upgrade your plan to create another.',
    );
    expect((await call('GET', '/cvs', key)).body.data).toHaveLength(2);
    const arabic = await call('POST', '/cvs', key, { title: 'T', locale: 'ar', template_id: classic }, 'ar');
    expect(arabic.status).toBe(403);
    expect(arabic.body.message).toMatch(/^تسمح خطتك بـ 2/);
  });

  it('deletes a CV of the account: another account’s is 403, an unknown one 404, and the limit frees up', async () => {
    const owner = await newAccount('free');
    const stranger = await newAccount('pro');
    const classic = await templateId('classic');
    const made = [];
    for (const title of ['A', 'B']) {
      made.push(
        (await call('POST', '/cvs', owner.key, { title, locale: 'en', template_id: classic })).body.data!,
      );
    }
    const id = String(made[0]!.id);
    expect(await call('DELETE', `/cvs/${id}`, stranger.key)).toEqual({
      status: 403,
      body: { message: 'This CV belongs to another account.', errors: {} },
    });
    const graph = await fetch(platform.gatewayUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': stranger.key },
      body: JSON.stringify({ query: 'query ($id: ID!) { cv(id: $id) { title } }', variables: { id } }),
    });
    expect(
      ((await graph.json()) as { errors: { extensions: { code: string } }[] }).errors[0]!.extensions.code,
    ).toBe('FORBIDDEN');
    expect(
      (await call('POST', '/cvs', owner.key, { title: 'C', locale: 'en', template_id: classic })).status,
    ).toBe(403);
    // Section rows go with their CV.
    await database.query(
      `insert into cv.cv_items (cv_id, section, position, fields) values ($1, 'skills', 0, '{"name": "SQL"}')`,
      [id],
    );
    expect(await call('DELETE', `/cvs/${id.toUpperCase()}`, owner.key)).toEqual({
      status: 200,
      body: { data: { id, deleted: true } },
    });
    expect((await call('GET', '/cvs', owner.key)).body.data!.map((c) => c.title)).toEqual(['B']);
    expect(await call('DELETE', `/cvs/${id}`, owner.key)).toEqual({
      status: 404,
      body: { message: 'CV not found.', errors: {} },
    });
    expect((await call('DELETE', '/cvs/not-a-uuid', owner.key)).status).toBe(404);
    expect(
      (await call('POST', '/cvs', owner.key, { title: 'C', locale: 'en', template_id: classic })).status,
    ).toBe(201);
    expect(await database.query('select count(*)::int as n from cv.cv_items where cv_id = $1', [id])).toEqual(
      [{ n: 0 }],
    );
  });
});
