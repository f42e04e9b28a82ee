import { randomUUID } from 'node:crypto';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { Router } from 'express';
import sharp from 'sharp';
import { createLogger } from '../../common/logger';
import { ratePolicies, type CredentialBudgets } from '../../common/rate-budget';
import { cvRoutes } from '../../rest-adapter/cv/cv.routes';
import type { GraphClient } from '../../rest-adapter/graph-client';
import { plansRoutes } from '../../rest-adapter/plans/plans.routes';
import { fullCvPayload } from '../../subgraphs/cv/render/sample-cv';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { newCvAccount, type Platform, platformTemplateId, startPlatform } from '../support/platform';
import { awayFromWindowEdge } from '../support/wait';

const PUBLIC_BASE_URL = 'https://cv.example.test';

interface ResponseSpec {
  headers?: Record<string, { required?: boolean }>;
  content?: Record<string, { schema: object }>;
}

interface OpenApi {
  openapi: string;
  servers: { url: string }[];
  security: unknown[];
  paths: Record<string, Record<string, { security?: unknown[]; responses: Record<string, ResponseSpec> }>>;
  components: { schemas: Record<string, object>; securitySchemes: Record<string, unknown> };
}

interface Reply<T> {
  status: number;
  headers: Headers;
  body: { data?: T; message?: string; errors?: Record<string, string[]> } & Record<string, unknown>;
}

interface Recorded {
  method: string;
  template: string;
  status: number;
  headers: Headers;
  text: string;
}

type Cv = Record<string, unknown> & { id: string; links: Record<string, string> };

/** Every route an express router registers, as "METHOD /path/{param}". */
function routesOf(router: Router): string[] {
  return router.stack.flatMap((layer) => {
    const route = layer.route as unknown as { path: string; methods: Record<string, boolean> } | undefined;
    if (route === undefined) return [];
    return Object.keys(route.methods).map(
      (method) => `${method.toUpperCase()} ${route.path.replace(/:(\w+)/g, '{$1}')}`,
    );
  });
}

function templateOf(path: string): string {
  const bare = path.split('?')[0] ?? path;
  if (bare === '/cvs/import/json-resume') return bare;
  return bare.replace(/^\/cvs\/[^/]+/, '/cvs/{uuid}').replace(/^\/templates\/[^/]+/, '/templates/{id}');
}

describe('GET /cv/openapi.json: the CV API described in OpenAPI 3.1, checked against every real answer', () => {
  let database: TestDatabase;
  let platform: Platform;
  let doc: OpenApi;
  const recorded: Recorded[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    platform = await startPlatform(database, { PUBLIC_BASE_URL });
  });

  afterAll(async () => {
    await platform?.stop();
    await database.drop();
  });

  async function call<T = Record<string, unknown>>(
    method: string,
    path: string,
    key: string | null,
    { body, raw, headers = {} }: { body?: unknown; raw?: string; headers?: Record<string, string> } = {},
  ): Promise<Reply<T>> {
    const form = body instanceof FormData;
    const sent = raw ?? (body === undefined || form ? undefined : JSON.stringify(body));
    const response = await fetch(`${platform.restUrl}${path}`, {
      method,
      headers: {
        accept: 'application/json',
        ...(sent === undefined ? {} : { 'content-type': 'application/json' }),
        ...(key === null ? {} : { 'x-api-key': key }),
        ...headers,
      },
      ...(form ? { body } : sent === undefined ? {} : { body: sent }),
    });
    const text = await response.text();
    recorded.push({
      method: method.toLowerCase(),
      template: templateOf(path),
      status: response.status,
      headers: response.headers,
      text,
    });
    return {
      status: response.status,
      headers: response.headers,
      body: (response.headers.get('content-type')?.startsWith('application/json')
        ? JSON.parse(text)
        : {}) as Reply<T>['body'],
    };
  }

  const templateId = (slug: string) => platformTemplateId(database, slug);

  const newCv = async (key: string, slug = 'classic') => {
    const created = await call<Cv>('POST', '/cvs', key, {
      body: { title: 'سيرتي', locale: 'ar', template_id: await templateId(slug) },
    });
    expect(created.status).toBe(201);
    return created.body.data!;
  };

  const photoForm = async (field = 'photo') => {
    const png = await sharp({ create: { width: 48, height: 32, channels: 3, background: '#336699' } })
      .png()
      .toBuffer();
    const form = new FormData();
    form.append(field, new Blob([new Uint8Array(png)], { type: 'image/png' }), 'me.png');
    return form;
  };

  /** A validator for one of the document's schemas, its references resolved within the document. */
  function validatorOf(schema: object): ValidateFunction {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema({ $id: 'openapi', components: doc.components });
    return ajv.compile(
      JSON.parse(JSON.stringify(schema).replace(/"#\/components/g, '"openapi#/components')) as object,
    );
  }

  it('answers 401 in the CV error shape without a valid key, and the OpenAPI 3.1.0 document with one', async () => {
    const { key } = await newCvAccount(platform.config);
    const missing = await call('GET', '/cv/openapi.json', null);
    expect([missing.status, missing.body]).toEqual([401, { message: 'Unauthenticated.', errors: {} }]);
    // Without a key the request is the client address's, as on the gateway.
    expect(missing.headers.get('ratelimit-policy')).toBe('"public";q=300;w=60');
    expect((await call('GET', '/cv/openapi.json', 'cv_not-a-real-key')).status).toBe(401);
    const reply = await call('GET', '/cv/openapi.json', key);
    expect(reply.status).toBe(200);
    doc = reply.body as unknown as OpenApi;
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.servers).toEqual([{ url: `${PUBLIC_BASE_URL}/api/v1` }]);
    expect(doc.security).toEqual([{ apiKey: [] }]);
    expect(doc.components.securitySchemes).toEqual({
      apiKey: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-API-Key' }) as unknown,
    });
    expect(doc.paths['/plans']?.get?.security).toEqual([]);
  });

  it('describes exactly the routes the adapter serves, each with its documented errors', () => {
    const served = [
      ...routesOf(
        cvRoutes({} as GraphClient, createLogger({ service: 'test', level: 'silent' }), {
          counts: {} as CredentialBudgets,
          policy: ratePolicies(platform.config).cv,
          publicBaseUrl: PUBLIC_BASE_URL,
        }),
      ),
      ...routesOf(plansRoutes({} as GraphClient)),
    ].sort();
    const described = Object.entries(doc.paths)
      .flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`))
      .sort();
    expect(described).toEqual(served);
    expect(described).toHaveLength(18);
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const statuses = Object.keys(operation.responses);
        if (path === '/plans') {
          expect(statuses).toEqual(['200', '304', '429']);
          continue;
        }
        expect([method, path, statuses]).toEqual([method, path, expect.arrayContaining(['401', '429'])]);
        expect(operation.responses['429']?.headers?.['Retry-After']?.required).toBe(true);
        for (const [status, response] of Object.entries(operation.responses)) {
          // The JSON parser's refusals come before the rate limiter.
          if (['400', '413', '415'].includes(status)) continue;
          expect([method, path, status, response.headers?.['RateLimit-Policy']?.required]).toEqual([
            method,
            path,
            status,
            true,
          ]);
          // Described on every counted answer, but not required: it is left out while Redis cannot count.
          expect(response.headers?.RateLimit).toBeDefined();
          expect(response.headers?.RateLimit?.required).toBeUndefined();
        }
        if (path.includes('{uuid}')) expect(statuses).toEqual(expect.arrayContaining(['403', '404']));
      }
    }
  });

  it('accepts in its request schemas what clients send (a full payload, a read sent back), not a bad month or an unknown key', async () => {
    const update = validatorOf({ $ref: '#/components/schemas/UpdateCvRequest' });
    expect(update(fullCvPayload(3))).toBe(true);
    expect(update({ sections: { experience: [{ start_date: '2020-13' }] } })).toBe(false);
    expect(update({ colour: 'red' })).toBe(false);
    const { key } = await newCvAccount(platform.config, { plan: 'pro' });
    const cv = await newCv(key);
    const read = await call<Cv>('GET', `/cvs/${cv.id}`, key);
    expect(update(read.body.data)).toBe(true);
    const create = validatorOf({ $ref: '#/components/schemas/CreateCvRequest' });
    expect(create({ title: 'CV', locale: 'en', template_id: 1 })).toBe(true);
    expect(create({ title: 'CV', locale: 'fr', template_id: 1 })).toBe(false);
    const importing = validatorOf({ $ref: '#/components/schemas/ImportJsonResumeRequest' });
    expect(importing({ basics: { name: 'Nour' } })).toBe(true);
    expect(importing({ resume: { basics: { name: 'Nour' } }, template_id: 1, locale: 'ar' })).toBe(true);
  });

  it('answers the account, templates and plans, with 304 for a copy the client holds', async () => {
    const { key } = await newCvAccount(platform.config, { plan: 'pro' });
    expect((await call('GET', '/me', key)).status).toBe(200);
    for (const [path, auth] of [
      ['/templates', key],
      [`/templates/${await templateId('studio')}`, key],
      ['/plans', null],
    ] as const) {
      const first = await call('GET', path, auth);
      expect(first.status).toBe(200);
      const etag = first.headers.get('etag')!;
      const again = await call('GET', path, auth, { headers: { 'if-none-match': etag } });
      expect(again.status).toBe(304);
    }
    expect((await call('GET', '/templates/999999', key)).status).toBe(404);
    expect((await call('GET', '/me', null)).status).toBe(401);
  });

  it('creates, reads, edits, copies, re-templates, photographs, exports, imports and deletes a CV', async () => {
    const { key } = await newCvAccount(platform.config, { plan: 'pro' });

    const invalid = await call('POST', '/cvs', key, { body: { locale: 7 } });
    expect(invalid.status).toBe(422);
    expect(Object.keys(invalid.body.errors!).sort()).toEqual(['locale', 'template_id', 'title']);
    const cv = await newCv(key);
    expect((await call('GET', '/cvs', key)).status).toBe(200);
    expect((await call('GET', `/cvs/${cv.id}`, key)).status).toBe(200);
    expect((await call('PUT', `/cvs/${cv.id}`, key, { body: fullCvPayload(2) })).status).toBe(200);

    const rejected = await call('PUT', `/cvs/${cv.id}`, key, {
      body: { personal: { email: 'nope' }, sections: { experience: [{ start_date: '2020-13' }] } },
    });
    expect(rejected.status).toBe(422);
    expect(Object.keys(rejected.body.errors!).sort()).toEqual([
      'personal.email',
      'sections.experience.0.start_date',
    ]);
    expect((await call('PUT', `/cvs/${cv.id}`, key, { raw: '{"title": ' })).status).toBe(400);
    const huge = await call('PUT', `/cvs/${cv.id}`, key, { body: { title: 'x'.repeat(1_100_000) } });
    expect(huge.status).toBe(413);

    const switched = await call('PUT', `/cvs/${cv.id}/template`, key, {
      body: { template_id: await templateId('sidebar') },
    });
    expect(switched.status).toBe(200);
    expect((await call('PUT', `/cvs/${cv.id}/template`, key, { body: { template_id: 'x' } })).status).toBe(
      422,
    );

    const photo = await call<{ photo: { content_type: string } }>('POST', `/cvs/${cv.id}/photo`, key, {
      body: await photoForm(),
    });
    expect([photo.status, photo.body.data?.photo.content_type]).toEqual([200, 'image/png']);
    const misnamed = await call('POST', `/cvs/${cv.id}/photo`, key, { body: await photoForm('picture') });
    expect([misnamed.status, Object.keys(misnamed.body.errors!)]).toEqual([422, ['photo']]);

    const copy = await call<Cv>('POST', `/cvs/${cv.id}/duplicate`, key);
    expect(copy.status).toBe(201);
    expect((await call('DELETE', `/cvs/${cv.id}/photo`, key)).status).toBe(200);

    for (const format of ['pdf', 'html']) {
      expect((await call('GET', `/cvs/${cv.id}/${format}`, key)).status).toBe(200);
    }
    const exported = await call<Record<string, unknown>>('GET', `/cvs/${cv.id}/json-resume`, key);
    expect(exported.status).toBe(200);
    const resume = exported.body.data!;
    const bare = await call<Cv>(
      'POST',
      `/cvs/import/json-resume?title=Imported&locale=en&template_id=${await templateId('minimal')}`,
      key,
      { body: resume },
    );
    expect([bare.status, bare.body.data?.title, bare.body.data?.locale]).toEqual([201, 'Imported', 'en']);
    const wrapped = await call<Cv>('POST', '/cvs/import/json-resume', key, {
      body: { resume, title: 'Wrapped', locale: 'ar', template_id: await templateId('classic') },
    });
    expect([wrapped.status, wrapped.body.data?.title]).toEqual([201, 'Wrapped']);
    const notResume = await call('POST', '/cvs/import/json-resume', key, { body: ['basics'] });
    expect([notResume.status, Object.keys(notResume.body.errors!)]).toEqual([422, ['resume']]);

    const copyId = copy.body.data!.id;
    expect((await call('DELETE', `/cvs/${copyId}`, key)).status).toBe(200);
    expect((await call('GET', `/cvs/${copyId}`, key)).status).toBe(404);
  });

  it('answers 403 for another account’s CV and 404 for an unknown one, on every CV route', async () => {
    const owner = await newCvAccount(platform.config, { plan: 'pro' });
    const stranger = await newCvAccount(platform.config, { plan: 'pro' });
    const cv = await newCv(owner.key);
    const routes: [string, string, unknown?][] = [
      ['GET', ''],
      ['PUT', '', { title: 'Mine now' }],
      ['DELETE', ''],
      ['POST', '/duplicate'],
      ['PUT', '/template', { template_id: await templateId('classic') }],
      ['POST', '/photo', 'form'],
      ['DELETE', '/photo'],
      ['GET', '/json-resume'],
    ];
    for (const [id, status] of [
      [cv.id, 403],
      [randomUUID(), 404],
    ] as const) {
      for (const [method, suffix, body] of routes) {
        const reply = await call(method, `/cvs/${id}${suffix}`, stranger.key, {
          ...(body === undefined ? {} : { body: body === 'form' ? await photoForm() : body }),
        });
        expect([method, suffix, reply.status]).toEqual([method, suffix, status]);
      }
    }
    expect((await call('GET', '/cvs/not-a-uuid', stranger.key)).status).toBe(404);
  });

  it('answers 403 for a premium template on the free plan and at the plan’s cv_limit', async () => {
    const { key } = await newCvAccount(platform.config, { plan: 'free' });
    const premium = await call('POST', '/cvs', key, {
      body: { title: 'CV', locale: 'en', template_id: await templateId('executive') },
    });
    expect(premium.status).toBe(403);
    const [plan] = await database.query("select cv_limit from billing.plans where key = 'free'");
    let last: Cv | undefined;
    for (let i = 0; i < Number(plan!.cv_limit); i += 1) last = await newCv(key);
    const beyond = await call('POST', '/cvs', key, {
      body: { title: 'CV', locale: 'en', template_id: await templateId('classic') },
    });
    expect(beyond.status).toBe(403);
    expect((await call('POST', `/cvs/${last!.id}/duplicate`, key)).status).toBe(403);
    const imported = await call('POST', '/cvs/import/json-resume', key, { body: { basics: { name: 'A' } } });
    expect(imported.status).toBe(403);
  });

  it('answers 429 with Retry-After past 60 requests a minute, the document’s own route included', async () => {
    const { key } = await newCvAccount(platform.config, { plan: 'pro' });
    await awayFromWindowEdge(60);
    for (let i = 0; i < 60; i += 1) expect((await call('GET', '/me', key)).status).toBe(200);
    const refused = await call('GET', '/cv/openapi.json', key);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await call('GET', '/cvs', key)).status).toBe(429);
  }, 60_000);

  it('validates every answer above against the schema the document gives for its path, method and status', () => {
    const validators = new Map<object, ValidateFunction>();
    const seen = new Set<string>();
    const statuses = new Set<number>();
    for (const r of recorded) {
      const where = `${r.method.toUpperCase()} ${r.template} ${r.status}`;
      const response = doc.paths[r.template]?.[r.method]?.responses[String(r.status)];
      if (response === undefined) throw new Error(`${where} is not in the document`);
      for (const [name, header] of Object.entries(response.headers ?? {})) {
        if (header.required === true && !r.headers.has(name)) throw new Error(`${where} lacks ${name}`);
      }
      const schema = response.content?.['application/json']?.schema;
      const file = Object.keys(response.content ?? {}).find((type) => type !== 'application/json');
      if (file !== undefined) {
        // A PDF or HTML export: the documented type, and a body.
        expect([where, r.headers.get('content-type')?.split(';')[0], r.text.length > 0]).toEqual([
          where,
          file,
          true,
        ]);
      } else if (schema === undefined) {
        expect([where, r.text]).toEqual([where, '']);
      } else {
        expect([where, r.headers.get('content-type')]).toEqual([
          where,
          expect.stringMatching(/^application\/json/),
        ]);
        const validate = validators.get(schema) ?? validatorOf(schema);
        validators.set(schema, validate);
        if (!validate(JSON.parse(r.text))) {
          throw new Error(`${where}: ${JSON.stringify(validate.errors)}\n${r.text.slice(0, 500)}`);
        }
      }
      seen.add(`${r.method.toUpperCase()} ${r.template}`);
      statuses.add(r.status);
    }
    const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect([...seen].sort()).toEqual(operations.sort());
    expect([...statuses].sort((a, b) => a - b)).toEqual([200, 201, 304, 400, 401, 403, 404, 413, 422, 429]);
    expect(recorded.length).toBeGreaterThan(100);

    // The schemas are exact: a key too many or too few in a real CV fails them.
    const read = recorded.find(
      (r) => r.method === 'get' && r.template === '/cvs/{uuid}' && r.status === 200,
    )!;
    const schema = doc.paths['/cvs/{uuid}']!.get!.responses['200']!.content!['application/json']!.schema;
    const validate = validatorOf(schema);
    const { data } = JSON.parse(read.text) as { data: Record<string, Record<string, unknown>> };
    expect(validate({ data })).toBe(true);
    expect(validate({ data: { ...data, pdf_url: 'x' } })).toBe(false);
    expect(validate({ data: { ...data, personal: { ...data.personal, age: 30 } } })).toBe(false);
    const { photo: _photo, ...withoutPhoto } = data;
    expect(validate({ data: withoutPhoto })).toBe(false);
    expect(validate(data)).toBe(false);
  });
});
