import { readFileSync } from 'node:fs';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { fullCvPayload } from '../../subgraphs/cv/render/sample-cv';
import {
  cvCaller,
  newCvAccount,
  payloadOf,
  type Platform,
  platformTemplateId,
  startPlatform,
} from '../support/platform';

const packageFile = (name: string): Record<string, unknown> =>
  JSON.parse(readFileSync(require.resolve(`@jsonresume/schema/${name}`), 'utf8')) as Record<string, unknown>;

// The 1.2.1 schema pairs additionalItems with a single items schema, which strict mode refuses.
const ajv = new Ajv({ allErrors: true, strictSchema: false });
addFormats(ajv);
const validateResume = ajv.compile(packageFile('schema.json'));

type Cv = Record<string, unknown> & { id: string; links: { self: string } };

describe('JSON Resume 1.2.1: GET /cvs/{uuid}/json-resume and POST /cvs/import/json-resume', () => {
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

  it('exports a valid JSON Resume, and importing it gives back the same CV', async () => {
    const { key } = await newCvAccount(platform.config, { plan: 'pro' });
    const created = await call<Cv>('POST', '/cvs', key, {
      title: 'x',
      locale: 'ar',
      template_id: await templateId('classic'),
    });
    const id = created.body.data!.id;
    const payload = fullCvPayload(3);
    expect((await call('PUT', `/cvs/${id}`, key, payload)).status).toBe(200);

    const exported = await call<Record<string, unknown>>('GET', `/cvs/${id}/json-resume`, key);
    expect(exported.status).toBe(200);
    const resume = exported.body.data!;
    validateResume(resume);
    expect(validateResume.errors ?? []).toEqual([]);
    expect(resume.basics).toMatchObject({
      name: payload.personal.full_name,
      label: payload.personal.job_title,
      email: payload.personal.email,
    });
    expect((resume.work as unknown[]).length).toBe(3);
    expect((resume.meta as Record<string, unknown>).canonical).toBe(
      `https://cv.example.test/api/v1/cvs/${id}`,
    );

    const imported = await call<Cv>('POST', '/cvs/import/json-resume', key, resume);
    expect(imported.status).toBe(201);
    expect(imported.body.data!.id).not.toBe(id);
    expect(payloadOf(imported.body.data)).toEqual(payload);
    const again = await call<Record<string, unknown>>(
      'GET',
      `/cvs/${imported.body.data!.id}/json-resume`,
      key,
    );
    const { meta: first, ...firstRest } = resume;
    const { meta: second, ...secondRest } = again.body.data!;
    expect(secondRest).toEqual(firstRest);
    expect({ ...(second as object), canonical: null, lastModified: null }).toEqual({
      ...(first as object),
      canonical: null,
      lastModified: null,
    });
  });

  it('imports a foreign resume and exports it back unchanged, sections JSON Resume has and we lack included', async () => {
    const { key } = await newCvAccount(platform.config, { plan: 'pro' });
    const sample = packageFile('sample.resume.json');
    const imported = await call<Cv>('POST', '/cvs/import/json-resume', key, {
      resume: sample,
      template_id: await templateId('minimal'),
      locale: 'en',
    });
    expect(imported.status).toBe(201);
    expect(imported.body.data).toMatchObject({
      title: (sample.basics as { name: string }).name,
      locale: 'en',
      template_id: await templateId('minimal'),
    });
    const id = imported.body.data!.id;
    const exported = await call<Record<string, unknown>>('GET', `/cvs/${id}/json-resume`, key);
    const { meta, ...rest } = exported.body.data!;
    const { meta: sampleMeta, ...sampleRest } = sample;
    expect(rest).toEqual(sampleRest);
    expect(meta).toMatchObject({ version: (sampleMeta as { version: string }).version });
    expect((rest.publications as unknown[]).length).toBeGreaterThan(0);
  });

  it('refuses what is not a resume (422), a premium template on a free plan (403) and imports past cv_limit (403)', async () => {
    const { key } = await newCvAccount(platform.config, { plan: 'free' });
    const notResume = await call('POST', '/cvs/import/json-resume', key, ['basics']);
    expect([notResume.status, notResume.body.errors]).toEqual([
      422,
      { resume: ['The resume field must be a JSON Resume object.'] },
    ]);
    const badEmail = await call('POST', '/cvs/import/json-resume', key, {
      basics: { name: 'A', email: 'nope' },
    });
    expect([badEmail.status, badEmail.body.errors]).toEqual([
      422,
      { 'resume.personal.email': ['The resume.personal.email field must be a valid email address.'] },
    ]);
    const premium = await call('POST', '/cvs/import/json-resume', key, {
      resume: { basics: { name: 'A' } },
      template_id: await templateId('studio'),
    });
    expect(premium.status).toBe(403);
    const anonymous = await call('POST', '/cvs/import/json-resume', null, { basics: { name: 'A' } });
    expect(anonymous.status).toBe(401);
    const [plan] = await database.query("select cv_limit from billing.plans where key = 'free'");
    for (let i = 0; i < Number(plan!.cv_limit); i += 1) {
      const made = await call('POST', '/cvs/import/json-resume', key, { basics: { name: `نور ${i}` } });
      expect(made.status).toBe(201);
      expect(made.body.data).toMatchObject({ title: `نور ${i}`, locale: 'ar' });
    }
    const beyond = await call('POST', '/cvs/import/json-resume', key, { basics: { name: 'One more' } });
    expect(beyond.status).toBe(403);
    expect(beyond.body.message).toContain(String(plan!.cv_limit));
  });
});
