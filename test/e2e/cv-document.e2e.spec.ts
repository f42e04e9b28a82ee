import sharp from 'sharp';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { fullCvPayload } from '../../subgraphs/cv/render/sample-cv';
import {
  admin,
  cvCaller,
  newCvAccount,
  payloadOf,
  type Platform,
  platformTemplateId,
  startPlatform,
} from '../support/platform';

type Cv = Record<string, unknown> & {
  id: string;
  template_id: number;
  personal: Record<string, unknown>;
  settings: Record<string, unknown>;
  sections: Record<string, Record<string, unknown>[]>;
  custom_sections: unknown[];
  section_order: string[];
  hidden_sections: string[];
  photo: null | Record<string, unknown>;
  links: Record<string, string>;
};

describe('GET and PUT /cvs/{uuid}: the full payload, partial updates and validation by path', () => {
  let database: TestDatabase;
  let platform: Platform;
  let call: ReturnType<typeof cvCaller>;

  beforeAll(async () => {
    database = await createTestDatabase();
    platform = await startPlatform(database, { PUBLIC_BASE_URL: 'https://cv.example.test' });
    call = cvCaller(platform);
  });

  afterAll(async () => {
    await platform?.stop();
    await database.drop();
  });

  const templateId = (slug: string) => platformTemplateId(database, slug);

  const newCv = async (key: string, slug = 'classic', locale = 'ar') => {
    const created = await call<Cv>('POST', '/cvs', key, {
      title: 'CV',
      locale,
      template_id: await templateId(slug),
    });
    expect(created.status).toBe(201);
    return created.body.data!;
  };

  it('reads a new CV with every key: empty sections, null personal fields, the template’s settings', async () => {
    const { key } = await newCvAccount(platform.config, { plan: 'pro' });
    const created = await newCv(key);
    const read = await call<Cv>('GET', `/cvs/${created.id}`, key);
    expect(read.status).toBe(200);
    const cv = read.body.data!;
    expect(Object.keys(cv).sort()).toEqual(
      [
        'id',
        'title',
        'locale',
        'template_id',
        'personal',
        'settings',
        'section_order',
        'hidden_sections',
        'sections',
        'custom_sections',
        'photo',
        'links',
        'created_at',
        'updated_at',
      ].sort(),
    );
    expect(cv.personal).toEqual({
      full_name: null,
      job_title: null,
      summary: null,
      email: null,
      phone: null,
      website: null,
      address: null,
      nationality: null,
      birth_date: null,
    });
    expect(cv.settings).toEqual({ primary_color: '#1f4e79', theme: 'light', font_family: 'naskh' });
    expect(Object.values(cv.sections).every((items) => items.length === 0)).toBe(true);
    expect(Object.keys(cv.sections)).toHaveLength(11);
    expect(cv.section_order[0]).toBe('experience');
    expect(cv.photo).toBeNull();
    expect(cv.links.self).toBe(`https://cv.example.test/api/v1/cvs/${cv.id}`);
  });

  it('returns exactly what a full PUT sent (every section, Arabic text, custom sections)', async () => {
    const { key } = await newCvAccount(platform.config, { plan: 'pro' });
    const cv = await newCv(key);
    const payload = fullCvPayload(3);
    const put = await call<Cv>('PUT', `/cvs/${cv.id}`, key, payload);
    expect(put.status).toBe(200);
    expect(payloadOf(put.body.data)).toEqual(payload);
    const read = await call<Cv>('GET', `/cvs/${cv.id}`, key);
    expect(payloadOf(read.body.data)).toEqual(payload);
    const [rows] = await database.query('select count(*)::int as n from cv.cv_items where cv_id = $1', [
      cv.id,
    ]);
    expect(rows!.n).toBe(33);
    // A client may send back what it read, links and all.
    const again = await call<Cv>('PUT', `/cvs/${cv.id}`, key, read.body.data);
    expect(again.status).toBe(200);
    expect(payloadOf(again.body.data)).toEqual(payload);
  });

  it('changes only what is sent: fields of personal and settings one by one, sections one by one', async () => {
    const { key } = await newCvAccount(platform.config, { plan: 'pro' });
    const cv = await newCv(key);
    const full = fullCvPayload(2);
    await call('PUT', `/cvs/${cv.id}`, key, full);

    const renamed = await call<Cv>('PUT', `/cvs/${cv.id}`, key, { title: 'New title' });
    expect(payloadOf(renamed.body.data)).toEqual({ ...full, title: 'New title' });

    const personal = await call<Cv>('PUT', `/cvs/${cv.id}`, key, {
      personal: { job_title: 'Staff Engineer', phone: null, address: '  ' },
    });
    expect(personal.body.data!.personal).toEqual({
      ...full.personal,
      job_title: 'Staff Engineer',
      phone: null,
      address: null,
    });

    const skills = [{ name: 'Go', level: null }];
    const section = await call<Cv>('PUT', `/cvs/${cv.id}`, key, { sections: { skills } });
    expect(section.body.data!.sections.skills).toEqual(skills);
    expect(section.body.data!.sections.experience).toEqual(full.sections.experience);

    const cleared = await call<Cv>('PUT', `/cvs/${cv.id}`, key, { sections: { experience: [] } });
    expect(cleared.body.data!.sections.experience).toEqual([]);
    expect(cleared.body.data!.sections.education).toEqual(full.sections.education);

    // A setting set to null returns to the template's default; the others stay.
    const settings = await call<Cv>('PUT', `/cvs/${cv.id}`, key, { settings: { primary_color: null } });
    expect(settings.body.data!.settings).toEqual({ ...full.settings, primary_color: '#1f4e79' });

    // Removing a custom section takes it out of the lists that named it.
    const custom = await call<Cv>('PUT', `/cvs/${cv.id}`, key, { custom_sections: [] });
    expect(custom.body.data!.section_order).toEqual(['experience', 'skills', 'education', 'languages']);
  });

  it('names every invalid field by its path (422), in the document’s error shape', async () => {
    const { key } = await newCvAccount(platform.config, { plan: 'pro' });
    const cv = await newCv(key);
    const bad = await call('PUT', `/cvs/${cv.id}`, key, {
      title: 'x'.repeat(256),
      locale: 'fr',
      personal: { birth_date: '1990-02-30', email: 'not-an-email', website: 'javascript:alert(1)' },
      settings: { primary_color: 'teal', theme: 'neon' },
      sections: {
        experience: [
          { start_date: '2020-13', is_current: 'yes' },
          { start_date: '2021-05', end_date: '2020-01' },
          { start_date: '2021-05', end_date: '2022-01', is_current: true },
        ],
        skills: Array.from({ length: 101 }, () => ({ name: 'x' })),
        languages: [{ name: 'Arabic', colour: 'red' }],
      },
      custom_sections: [
        { key: 'experience', title: 'Mine' },
        { key: 'a', title: '' },
      ],
      section_order: ['experience', 'experience'],
      favourite: 1,
    });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toEqual({
      title: ['The title field must not be greater than 255 characters.'],
      locale: ['The selected locale is invalid.'],
      'personal.birth_date': ['The personal.birth date field must be a valid date.'],
      'personal.email': ['The personal.email field must be a valid email address.'],
      'personal.website': [
        'The personal.website field must be a valid URL starting with http:// or https://.',
      ],
      'settings.primary_color': ['The settings.primary color field must be a valid hexadecimal color.'],
      'settings.theme': ['The selected settings.theme is invalid.'],
      'sections.experience.0.start_date': [
        'The sections.experience.0.start date field must match the format Y-m.',
      ],
      'sections.experience.0.is_current': [
        'The sections.experience.0.is current field must be true or false.',
      ],
      'sections.experience.1.end_date': [
        'The sections.experience.1.end date field must be a date after or equal to start date.',
      ],
      'sections.experience.2.end_date': [
        'The sections.experience.2.end date field is prohibited when is current is true.',
      ],
      'sections.skills': ['The sections.skills field must not have more than 100 items.'],
      'sections.languages.0.colour': ['The sections.languages.0.colour field is not allowed.'],
      'custom_sections.0.key': ['The custom sections.0.key field must not be a built-in section key.'],
      'custom_sections.1.title': ['The custom sections.1.title field is required.'],
      'section_order.1': ['The section order.1 field has a duplicate value.'],
      favourite: ['The favourite field is not allowed.'],
    });
    expect(bad.body.message).toBe(
      'The title field must not be greater than 255 characters. (and 16 more errors)',
    );
    const arabic = await call(
      'PUT',
      `/cvs/${cv.id}`,
      key,
      { sections: { experience: [{ start_date: '2020-1' }] } },
      { 'accept-language': 'ar' },
    );
    expect([arabic.status, arabic.body]).toEqual([
      422,
      {
        message: 'يجب أن يطابق حقل sections.experience.0.start date الصيغة Y-m.',
        errors: {
          'sections.experience.0.start_date': [
            'يجب أن يطابق حقل sections.experience.0.start date الصيغة Y-m.',
          ],
        },
      },
    ]);
    const unknownKey = await call('PUT', `/cvs/${cv.id}`, key, { section_order: ['experience', 'nope'] });
    expect(unknownKey.status).toBe(422);
    expect(unknownKey.body.errors).toEqual({
      'section_order.1': ['The selected section order.1 is invalid.'],
    });
    // Refused by the cv subgraph, whose message ids cross the gateway to the adapter.
    const unknownKeyArabic = await call(
      'PUT',
      `/cvs/${cv.id}`,
      key,
      { section_order: ['experience', 'nope'] },
      { 'accept-language': 'ar' },
    );
    expect(unknownKeyArabic.body).toEqual({
      message: 'قيمة حقل section order.1 المختارة غير صالحة.',
      errors: { 'section_order.1': ['قيمة حقل section order.1 المختارة غير صالحة.'] },
    });
    const template = await call('PUT', `/cvs/${cv.id}`, key, { template_id: cv.template_id + 1 });
    expect(template.status).toBe(422);
    expect(Object.keys(template.body.errors!)).toEqual(['template_id']);
    const malformed = await fetch(`${platform.restUrl}/cvs/${cv.id}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', 'x-api-key': key, 'accept-language': 'ar' },
      body: '{"title": ',
    });
    expect([malformed.status, await malformed.json()]).toEqual([
      400,
      { message: 'جسم الطلب ليس JSON صالحاً.', errors: {} },
    ]);
    const notObject = await call('PUT', `/cvs/${cv.id}`, key, ['title']);
    expect(notObject.status).toBe(422);
    // Nothing of a refused update was written.
    const read = await call<Cv>('GET', `/cvs/${cv.id}`, key);
    expect(read.body.data!.title).toBe('CV');
    expect(read.body.data!.sections.experience).toEqual([]);
  });

  it('answers 401 without a key, 404 for an unknown CV and 403 for another account’s, before judging a body', async () => {
    const owner = await newCvAccount(platform.config, { plan: 'pro' });
    const other = await newCvAccount(platform.config, { plan: 'pro' });
    const cv = await newCv(owner.key);
    const unknown = '00000000-0000-4000-8000-000000000000';
    const paths: [string, string, unknown?][] = [
      ['GET', ''],
      ['PUT', '', { title: 'x' }],
      ['PUT', '', { title: 5 }],
      ['POST', '/duplicate'],
      ['PUT', '/template', { template_id: cv.template_id }],
      ['PUT', '/template', { template_id: 'x' }],
      ['DELETE', '/photo'],
      ['GET', '/json-resume'],
      ['DELETE', ''],
    ];
    for (const [method, suffix, body] of paths) {
      const anonymous = await call(method, `/cvs/${cv.id}${suffix}`, null, body);
      expect([method, suffix, anonymous.status]).toEqual([method, suffix, 401]);
      const missing = await call(method, `/cvs/${unknown}${suffix}`, other.key, body);
      expect([method, suffix, missing.status, missing.body.errors]).toEqual([method, suffix, 404, {}]);
      const foreign = await call(method, `/cvs/${cv.id}${suffix}`, other.key, body, {
        'accept-language': 'ar',
      });
      expect([method, suffix, foreign.status, foreign.body.message]).toEqual([
        method,
        suffix,
        403,
        'هذه السيرة الذاتية تخص حساباً آخر.',
      ]);
    }
    expect((await call('GET', '/cvs/not-a-uuid', other.key)).status).toBe(404);
    expect((await call('GET', `/cvs/${cv.id}`, owner.key)).status).toBe(200);
  });

  it('duplicates deeply: the copy has every row and the photo, and edits to one leave the other alone', async () => {
    const { key } = await newCvAccount(platform.config, { plan: 'pro' });
    const cv = await newCv(key);
    const full = fullCvPayload(2);
    await call('PUT', `/cvs/${cv.id}`, key, full);
    const photo = new FormData();
    const png = await sharp({ create: { width: 30, height: 40, channels: 3, background: '#123456' } })
      .png()
      .toBuffer();
    photo.append('photo', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'me.png');
    expect((await call('POST', `/cvs/${cv.id}/photo`, key, photo)).status).toBe(200);
    const copy = await call<Cv>('POST', `/cvs/${cv.id}/duplicate`, key);
    expect(copy.status).toBe(201);
    const duplicate = copy.body.data!;
    expect(duplicate.id).not.toBe(cv.id);
    expect(duplicate.links.share).not.toBe(cv.links.share);
    expect(payloadOf(duplicate)).toEqual({ ...full, title: `${full.title} (نسخة)` });
    expect(duplicate.photo).toMatchObject({ content_type: 'image/png', width: 30, height: 40 });
    const photos = await database.query('select photo from cv.cvs where id = any($1::uuid[])', [
      [cv.id, duplicate.id],
    ]);
    expect((photos[0]!.photo as Buffer).equals(photos[1]!.photo as Buffer)).toBe(true);
    await call('PUT', `/cvs/${duplicate.id}`, key, {
      personal: { full_name: 'Changed' },
      sections: { skills: [] },
    });
    const original = await call<Cv>('GET', `/cvs/${cv.id}`, key);
    expect(payloadOf(original.body.data)).toEqual(full);
    await call('DELETE', `/cvs/${cv.id}`, key);
    const survivor = await call<Cv>('GET', `/cvs/${duplicate.id}`, key);
    expect(survivor.body.data!.sections.experience).toEqual(full.sections.experience);
  });

  it('refuses a duplicate beyond cv_limit with 403 naming the limit', async () => {
    const { key } = await newCvAccount(platform.config, { plan: 'free' });
    const [plan] = await database.query("select cv_limit from billing.plans where key = 'free'");
    const limit = Number(plan!.cv_limit);
    const first = await newCv(key);
    for (let i = 1; i < limit; i += 1) await newCv(key);
    const refused = await call('POST', `/cvs/${first.id}/duplicate`, key);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toContain(String(limit));
    const [count] = await database.query(
      'select count(*)::int as n from cv.cvs where account_id = (select account_id from cv.cvs where id = $1)',
      [first.id],
    );
    expect(count!.n).toBe(limit);
  });

  it('switches templates: the new design’s default settings replace the CV’s own', async () => {
    const { key } = await newCvAccount(platform.config, { plan: 'pro' });
    const cv = await newCv(key, 'classic');
    await call('PUT', `/cvs/${cv.id}`, key, fullCvPayload(1));
    const sidebar = await templateId('sidebar');
    const switched = await call<Cv>('PUT', `/cvs/${cv.id}/template`, key, { template_id: sidebar });
    expect(switched.status).toBe(200);
    expect(switched.body.data!.template_id).toBe(sidebar);
    expect(switched.body.data!.settings).toEqual({
      primary_color: '#0f766e',
      theme: 'light',
      font_family: 'naskh',
    });
    expect(switched.body.data!.personal).toEqual(fullCvPayload(1).personal);
    const unknown = await call('PUT', `/cvs/${cv.id}/template`, key, { template_id: 999999 });
    expect([unknown.status, unknown.body.errors]).toEqual([
      422,
      { template_id: ['The selected template id is invalid.'] },
    ]);
    const missing = await call('PUT', `/cvs/${cv.id}/template`, key, {});
    expect([missing.status, missing.body.errors]).toEqual([
      422,
      { template_id: ['The template id field is required.'] },
    ]);
  });

  it('refuses a premium template on a free plan (403) and another company’s template (422)', async () => {
    const free = await newCvAccount(platform.config, { plan: 'free' });
    const cv = await newCv(free.key);
    const premium = await call('PUT', `/cvs/${cv.id}/template`, free.key, {
      template_id: await templateId('executive'),
    });
    expect(premium.status).toBe(403);
    expect(premium.body.message).toBe('This template needs a plan with premium templates.');
    const company = await admin<{ id: number }>(platform.config, 'company', 'create', '--name', 'Other Co');
    const theirs = await admin<{ id: number }>(
      platform.config,
      'template',
      'create',
      '--company',
      String(company.id),
      '--slug',
      'house-style',
      '--name',
      'House style',
      '--layout',
      'single-column',
    );
    const foreign = await call('PUT', `/cvs/${cv.id}/template`, free.key, { template_id: theirs.id });
    expect(foreign.status).toBe(422);
  });

  it('offers the same operations in the graph, with camelCase fields and snake_case error paths', async () => {
    const { key } = await newCvAccount(platform.config, { plan: 'pro' });
    const cv = await newCv(key);
    const graphql = async (query: string, variables: Record<string, unknown>) => {
      const response = await fetch(platform.gatewayUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify({ query, variables }),
      });
      return (await response.json()) as {
        data?: Record<string, Record<string, unknown>>;
        errors?: { extensions: Record<string, unknown> }[];
      };
    };
    const updated = await graphql(
      `
        mutation ($id: ID!, $input: UpdateCvInput!) {
          updateCv(id: $id, input: $input) {
            personal {
              fullName
              birthDate
            }
            sections {
              experience {
                company
                startDate
                endDate
                isCurrent
              }
              skills {
                name
              }
            }
          }
        }
      `,
      {
        id: cv.id,
        input: {
          personal: { fullName: 'Layla Hassan', birthDate: '1995-01-31' },
          sections: { experience: [{ company: 'Korek', startDate: '2020-01', isCurrent: true }] },
        },
      },
    );
    expect(updated.errors).toBeUndefined();
    expect(updated.data!.updateCv).toEqual({
      personal: { fullName: 'Layla Hassan', birthDate: '1995-01-31' },
      sections: {
        experience: [{ company: 'Korek', startDate: '2020-01', endDate: null, isCurrent: true }],
        skills: [],
      },
    });
    const invalid = await graphql(
      'mutation ($id: ID!, $input: UpdateCvInput!) { updateCv(id: $id, input: $input) { id } }',
      { id: cv.id, input: { sections: { experience: [{ startDate: '2020-1' }] } } },
    );
    expect(invalid.errors![0]!.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      errors: {
        'sections.experience.0.start_date': [
          'The sections.experience.0.start date field must match the format Y-m.',
        ],
      },
    });
    const rest = await call<Cv>('GET', `/cvs/${cv.id}`, key);
    expect(rest.body.data!.personal.full_name).toBe('Layla Hassan');
  });
});
