import { randomUUID } from 'node:crypto';
import sharp from 'sharp';
import { fullCvPayload } from '../../subgraphs/cv/render/sample-cv';
import { createTestDatabase, type TestDatabase } from '../support/database';
import {
  documentProblems,
  OpenApiAnswers,
  type Answer,
  type OpenApiDocument,
} from '../support/openapi-answers';
import {
  newBranchKey,
  newCvAccount,
  newTicketBranch,
  platformTemplateId,
  startPlatform,
  type CvAccount,
  type Platform,
  type TicketBranch,
} from '../support/platform';
import { awayFromWindowEdge } from '../support/wait';

type DocumentName = 'tickets' | 'cv';

interface Reply {
  status: number;
  headers: Headers;
  json: Record<string, unknown> & { data?: Record<string, unknown> };
}

interface Sent {
  /** The ticket document's Bearer key or the CV document's X-API-Key. */
  key?: string | null;
  body?: unknown;
  /** A body sent as these bytes, with `application/json` unless `headers` says otherwise. */
  raw?: string;
  headers?: Record<string, string>;
}

/** A body just over the adapter's JSON limit (1 MB), for the 413. */
const OVERSIZED = JSON.stringify({ note: 'x'.repeat(1_100_000) });
/** The client address's budget without a credential, which GET /plans and every unauthenticated call share. */
const PUBLIC_QUOTA = 200;

describe('both openapi.json documents describe every answer of every route they list', () => {
  let database: TestDatabase;
  let platform: Platform;
  const answers: Record<DocumentName, Answer[]> = { tickets: [], cv: [] };
  const checkers = {} as Record<DocumentName, OpenApiAnswers>;
  let branch: TicketBranch;
  let owner: CvAccount;

  beforeAll(async () => {
    database = await createTestDatabase();
    // The per-address budget is drained last, by GET /plans; a small one keeps that short, yet
    // room for every answer before it that counts against the address (each 401 does).
    platform = await startPlatform(database, {
      PUBLIC_RATE_LIMIT: String(PUBLIC_QUOTA),
      // Every counted answer must carry RateLimit: the whole platform shares this file's event
      // loop, which a busy machine has stalled past the default 250 ms a count may take.
      RATE_COUNT_TIMEOUT_MS: '10000',
    });
  });

  afterAll(async () => {
    await platform?.stop();
    await database.drop();
  });

  async function call(document: DocumentName, method: string, path: string, sent: Sent = {}) {
    const { key, body, raw, headers = {} } = sent;
    const form = body instanceof FormData;
    const text = raw ?? (body === undefined || form ? undefined : JSON.stringify(body));
    const credential: Record<string, string> =
      key === undefined || key === null
        ? {}
        : document === 'tickets'
          ? { authorization: `Bearer ${key}` }
          : { 'x-api-key': key };
    const response = await fetch(`${platform.restUrl}${path}`, {
      method,
      headers: {
        accept: 'application/json',
        ...(text === undefined ? {} : { 'content-type': 'application/json' }),
        ...credential,
        ...headers,
      },
      ...(form ? { body } : text === undefined ? {} : { body: text }),
    });
    const bytes = Buffer.from(await response.arrayBuffer());
    answers[document].push({ method, path, status: response.status, headers: response.headers, body: bytes });
    const json = response.headers.get('content-type')?.startsWith('application/json')
      ? (JSON.parse(bytes.toString('utf8')) as Reply['json'])
      : {};
    return { status: response.status, headers: response.headers, json };
  }

  const tickets = (method: string, path: string, sent?: Sent) => call('tickets', method, path, sent);
  const cv = (method: string, path: string, sent?: Sent) => call('cv', method, path, sent);

  /** Calls, a batch at a time, until the budget refuses (a window that turns meanwhile only makes it longer). */
  async function drain(send: () => Promise<{ status: number }>, quota: number): Promise<void> {
    for (let sent = 0; sent <= 2 * quota + 1; sent += 20) {
      const statuses = await Promise.all(Array.from({ length: 20 }, async () => (await send()).status));
      if (statuses.includes(429)) return;
    }
    throw new Error('the budget never refused');
  }

  it('serves both documents, each a valid OpenAPI 3.1 document whose schemas are valid 2020-12 schemas', async () => {
    branch = await newTicketBranch(platform.config);
    owner = await newCvAccount(platform.config, { plan: 'pro' });
    const ticketsDoc = (await tickets('GET', '/openapi.json', { key: branch.key })).json;
    const cvDoc = (await cv('GET', '/cv/openapi.json', { key: owner.key })).json;
    expect([ticketsDoc.openapi, cvDoc.openapi]).toEqual(['3.1.0', '3.1.0']);
    // A document with `required` misspelt, a schema that is none, or a reference to nothing.
    const spoilt = (from: string, to: string) =>
      JSON.parse(JSON.stringify(ticketsDoc).replace(from, to)) as Record<string, unknown>;
    const broken = [
      spoilt('"required":true', '"required":"yes"'),
      spoilt('"type":"object"', '"type":"objekt"'),
      spoilt('"#/components/schemas/Error"', '"#/components/schemas/Nothing"'),
    ];
    const [forTickets, forCv, ...forBroken] = await documentProblems([ticketsDoc, cvDoc, ...broken]);
    expect([forTickets, forCv]).toEqual([[], []]);
    expect(forBroken.map((problems) => problems.length > 0)).toEqual([true, true, true]);
    checkers.tickets = new OpenApiAnswers(ticketsDoc as unknown as OpenApiDocument, 'urn:nida:tickets');
    checkers.cv = new OpenApiAnswers(cvDoc as unknown as OpenApiDocument, 'urn:nida:cv');
  });

  it('the checker refuses what a document does not say: a status, a missing header, a field too many', () => {
    const answer = (status: number, headers: Record<string, string>, body: unknown): Answer => ({
      method: 'GET',
      path: '/tickets/7',
      status,
      headers: new Headers({ 'content-type': 'application/json', ...headers }),
      body: Buffer.from(JSON.stringify(body)),
    });
    const sent = { 'x-request-id': 'abc', 'ratelimit-policy': '"tickets";q=120;w=60' };
    const gone = { message: 'Ticket not found.' };
    expect(checkers.tickets.problemsOf(answer(404, sent, gone))).toEqual([]);
    expect(checkers.tickets.problemsOf(answer(418, sent, gone))).toEqual([
      expect.stringContaining('not one of the documented') as unknown,
    ]);
    expect(checkers.tickets.problemsOf(answer(404, { 'x-request-id': 'abc' }, gone))).toEqual([
      'GET /tickets/7 → 404: lacks the required header RateLimit-Policy',
    ]);
    expect(checkers.tickets.problemsOf(answer(404, { ...sent, ratelimit: 'plenty' }, gone))).toEqual([
      expect.stringContaining('header RateLimit: "plenty" data must match pattern') as unknown,
    ]);
    expect(checkers.tickets.problemsOf(answer(200, sent, { id: 7 }))).toEqual([
      expect.stringContaining('body data must have required property') as unknown,
    ]);
    const created = { message: 'Ticket created successfully', id: 1, number: '1', token: 't', qr_url: 'q' };
    const post = {
      ...answer(201, sent, { ...created, public_url: 'p', pdf_url: 'x' }),
      method: 'POST',
      path: '/tickets',
    };
    expect(checkers.tickets.problemsOf(post)).toEqual([
      expect.stringContaining('must NOT have additional properties') as unknown,
    ]);
  });

  it('ticket-calling-api.md: every route’s success, 401, 402, 403, 404, 422, 429 and the body’s 400, 413, 415', async () => {
    const { key } = branch;
    const readOnly = (await newBranchKey(platform.config, branch.branchId, 'tickets:read')).key;
    const writeOnly = (await newBranchKey(platform.config, branch.branchId, 'tickets:write')).key;
    const starter = (await newTicketBranch(platform.config, { plan: 'starter' })).key;
    const drained = (await newBranchKey(platform.config, branch.branchId)).key;
    const phones = (await newBranchKey(platform.config, branch.branchId)).key;

    const created = await tickets('POST', '/tickets', {
      key,
      body: { customer_name: 'Huda', customer_phone: '0770 123 4567', note: 'no onions' },
      headers: { 'idempotency-key': 'order-52' },
    });
    expect(created.status).toBe(201);
    const replay = await tickets('POST', '/tickets', {
      key,
      body: { customer_name: 'Huda', customer_phone: '0770 123 4567', note: 'no onions' },
      headers: { 'idempotency-key': 'order-52' },
    });
    expect([replay.status, replay.headers.get('idempotent-replayed')]).toEqual([201, 'true']);
    const id = String(created.json.id);
    const byExternal = async (externalId: string) => {
      const made = await tickets('POST', '/tickets', {
        key,
        body: { external_id: externalId, customer_phone: '+964 780 123 4567' },
      });
      expect(made.status).toBe(201);
      return String(made.json.id);
    };
    const orderA = await byExternal('pos-52-a');
    await byExternal('pos-52-b');
    // A ring within 30 seconds of the last alert (marking ready is one) is 429; these are not.
    const alertedLongAgo =
      (...ids: string[]) =>
      async () => {
        await database.query(
          `update tickets.tickets set last_alert_at = now() - interval '1 hour' where id = any($1::bigint[])`,
          [ids],
        );
      };
    const other = (await tickets('POST', '/tickets', { key, body: { number: 'C-1' } })).json.id;

    const expectations: ([string, string, Sent, number] | (() => Promise<void>))[] = [
      ['GET', '/tickets?status=waiting&per_page=2&search=huda', { key }, 200],
      ['GET', `/tickets/${id}`, { key }, 200],
      ['POST', `/tickets/${id}/ready`, { key }, 200],
      ['POST', '/tickets/by-external/pos-52-a/ready', { key }, 200],
      ['POST', `/tickets/${id}/ring`, { key }, 429],
      alertedLongAgo(id, orderA),
      ['POST', `/tickets/${id}/ring`, { key }, 200],
      ['POST', '/tickets/by-external/pos-52-a/ring', { key }, 200],
      ['POST', `/tickets/${id}/collected`, { key }, 200],
      ['POST', `/tickets/${id}/ready`, { key }, 422],
      ['POST', `/tickets/${id}/cancel`, { key }, 422],
      ['POST', `/tickets/${String(other)}/cancel`, { key }, 200],
      ['POST', `/tickets/${String(other)}/collected`, { key }, 422],
      ['POST', `/tickets/${String(other)}/ring`, { key }, 422],
      ['GET', '/tickets/by-external/pos-52-a', { key }, 200],
      ['POST', '/tickets/by-external/pos-52-a/collected', { key }, 200],
      ['POST', '/tickets/by-external/pos-52-b/cancel', { key }, 200],
      ['POST', '/tickets/by-external/pos-52-b/ready', { key }, 422],
      ['POST', '/tickets/by-external/pos-52-b/collected', { key }, 422],
      ['POST', '/tickets/by-external/pos-52-b/ring', { key }, 422],
      ['GET', '/openapi.json', { key }, 200],
      // Unknown tickets, and ids that cannot be one.
      ['GET', '/tickets/999999', { key }, 404],
      ['GET', '/tickets/1e3', { key }, 404],
      ['GET', '/tickets/by-external/no-such-order', { key }, 404],
      ...(['ready', 'collected', 'cancel', 'ring'] as const).flatMap(
        (move): [string, string, Sent, number][] => [
          ['POST', `/tickets/999999/${move}`, { key }, 404],
          ['POST', `/tickets/by-external/no-such-order/${move}`, { key }, 404],
        ],
      ),
      // Input no field takes, named in the 422.
      ['GET', '/tickets?per_page=0', { key }, 422],
      ['GET', `/tickets/${id}?lang=%00`, { key }, 422],
      ['GET', '/tickets/by-external/%FF', { key }, 422],
      ['POST', '/tickets/by-external/%FF/cancel', { key }, 422],
      ['GET', '/openapi.json?x=%ED%A0%80', { key }, 422],
      ['POST', '/tickets', { key, body: { customer_phone: '0770.123.4567' } }, 422],
      ['POST', '/tickets', { key, body: { customer_phone: '٠٧٧٠١٢٣٤٥٦٧' } }, 422],
      ['POST', '/tickets', { key, body: { note: 'a\u0000b' } }, 422],
      // The JSON parser's refusals, before the key is read.
      ['POST', '/tickets', { key, raw: '{"number": ' }, 400],
      ['POST', '/tickets', { raw: '{"number": ' }, 400],
      ['POST', '/tickets', { key, raw: OVERSIZED }, 413],
      [
        'POST',
        '/tickets',
        { key, raw: '{}', headers: { 'content-type': 'application/json; charset=latin1' } },
        415,
      ],
    ];
    for (const step of expectations) {
      if (typeof step === 'function') {
        await step();
        continue;
      }
      const [method, path, sent, status] = step;
      expect([method, path, (await tickets(method, path, sent)).status]).toEqual([method, path, status]);
    }

    // customer_phone's pattern is the rule the server applies: what it refuses, the schema refuses.
    const request = ['components', 'schemas', 'StoreTicketRequest'];
    for (const phone of [
      '07701234567',
      '+964 770-123-4567',
      '00964 7801234567',
      '964\u00a0750\u00a01234567',
      '   ',
      '0770.123.4567',
      '+964 1 234 5678',
      '077012345678',
      '٠٧٧٠١٢٣٤٥٦٧',
      '(0770) 1234567',
    ]) {
      const reply = await tickets('POST', '/tickets', { key: phones, body: { customer_phone: phone } });
      const refused =
        reply.status === 422 &&
        reply.json.errors !== undefined &&
        'customer_phone' in (reply.json.errors as object);
      expect([phone, reply.status === 201 || refused]).toEqual([phone, true]);
      expect([phone, checkers.tickets.accepts(request, { customer_phone: phone })]).toEqual([
        phone,
        !refused,
      ]);
    }

    // Every route refuses a missing or invented key, a plan without the API and a missing scope.
    const routes: [string, string, 'read' | 'write'][] = [
      ['GET', '/tickets', 'read'],
      ['POST', '/tickets', 'write'],
      ['GET', `/tickets/${id}`, 'read'],
      ...(['ready', 'collected', 'cancel', 'ring'] as const).map((move): [string, string, 'write'] => [
        'POST',
        `/tickets/${id}/${move}`,
        'write',
      ]),
      ['GET', '/tickets/by-external/pos-52-a', 'read'],
      ...(['ready', 'collected', 'cancel', 'ring'] as const).map((move): [string, string, 'write'] => [
        'POST',
        `/tickets/by-external/pos-52-a/${move}`,
        'write',
      ]),
      ['GET', '/openapi.json', 'read'],
    ];
    for (const [method, path, scope] of routes) {
      const body = method === 'POST' ? {} : undefined;
      for (const [sent, status] of [
        [{ body }, 401],
        [{ key: `tk_${randomUUID().replace(/-/g, '')}`, body }, 401],
        [{ key: starter, body }, 402],
        [{ key: scope === 'read' ? writeOnly : readOnly, body }, 403],
      ] as const) {
        expect([method, path, (await tickets(method, path, sent)).status]).toEqual([method, path, status]);
      }
    }

    // Past the key's budget, every route answers 429 before it runs.
    await awayFromWindowEdge(60, 5);
    await drain(() => tickets('GET', `/tickets/${id}`, { key: drained }), 120);
    for (const [method, path] of routes) {
      const refused = await tickets(method, path, {
        key: drained,
        ...(method === 'POST' ? { body: {} } : {}),
      });
      expect([method, path, refused.status]).toEqual([method, path, 429]);
    }
  });

  it('cv-api.md: every route’s success, 304, 401, 403, 404, 422, 429 and the bodies’ 400, 413, 415', async () => {
    const stranger = await newCvAccount(platform.config, { plan: 'pro' });
    const drained = await newCvAccount(platform.config, { plan: 'pro' });
    const { key } = owner;
    const templateId = (slug: string) => platformTemplateId(database, slug);
    const png = await sharp({ create: { width: 48, height: 32, channels: 3, background: '#336699' } })
      .png()
      .toBuffer();
    const photo = (field = 'photo') => {
      const form = new FormData();
      form.append(field, new Blob([new Uint8Array(png)], { type: 'image/png' }), 'me.png');
      return form;
    };
    const classic = await templateId('classic');

    const made = await cv('POST', '/cvs', {
      key,
      body: { title: 'سيرتي', locale: 'ar', template_id: classic },
    });
    expect(made.status).toBe(201);
    const uuid = String(made.json.data!.id);
    const templates = await cv('GET', '/templates', { key });
    const one = await cv('GET', `/templates/${classic}`, { key });
    const plans = await cv('GET', '/plans');
    const resume = await cv('GET', `/cvs/${uuid}/json-resume`, { key });
    const copy = await cv('POST', `/cvs/${uuid}/duplicate`, { key });
    expect([templates.status, one.status, plans.status, resume.status, copy.status]).toEqual([
      200, 200, 200, 200, 201,
    ]);
    const etag = (reply: { headers: Headers }) => ({ 'if-none-match': reply.headers.get('etag')! });

    const bodyRoutes: [string, string][] = [
      ['POST', '/cvs'],
      ['POST', '/cvs/import/json-resume'],
      ['PUT', `/cvs/${uuid}`],
      ['PUT', `/cvs/${uuid}/template`],
    ];
    const expectations: [string, string, Sent, number][] = [
      ['GET', '/me', { key }, 200],
      ['GET', '/cvs', { key }, 200],
      ['GET', `/cvs/${uuid}`, { key }, 200],
      ['PUT', `/cvs/${uuid}`, { key, body: fullCvPayload(2) }, 200],
      ['PUT', `/cvs/${uuid}/template`, { key, body: { template_id: await templateId('sidebar') } }, 200],
      ['POST', `/cvs/${uuid}/photo`, { key, body: photo() }, 200],
      ['GET', `/cvs/${uuid}/pdf`, { key }, 200],
      ['GET', `/cvs/${uuid}/html`, { key }, 200],
      ['DELETE', `/cvs/${uuid}/photo`, { key }, 200],
      ['GET', '/cv/openapi.json', { key }, 200],
      [
        'POST',
        `/cvs/import/json-resume?title=Imported&locale=en&template_id=${classic}`,
        { key, body: resume.json.data },
        201,
      ],
      ['DELETE', `/cvs/${String(copy.json.data!.id)}`, { key }, 200],
      ['GET', '/templates', { key, headers: etag(templates) }, 304],
      ['GET', `/templates/${classic}`, { key, headers: etag(one) }, 304],
      ['GET', '/plans', { headers: etag(plans) }, 304],
      ['GET', '/templates/999999', { key }, 404],
      ['POST', '/cvs', { key, body: { locale: 7 } }, 422],
      ['POST', '/cvs/import/json-resume', { key, body: ['basics'] }, 422],
      ['PUT', `/cvs/${uuid}`, { key, body: { personal: { email: 'nope' } } }, 422],
      ['PUT', `/cvs/${uuid}/template`, { key, body: { template_id: 'x' } }, 422],
      ['POST', `/cvs/${uuid}/photo`, { key, body: photo('picture') }, 422],
      ...bodyRoutes.flatMap(([method, path]): [string, string, Sent, number][] => [
        [method, path, { key, raw: '{"title": ' }, 400],
        [method, path, { key, raw: OVERSIZED }, 413],
        [
          method,
          path,
          { key, raw: '{}', headers: { 'content-type': 'application/json; charset=latin1' } },
          415,
        ],
      ]),
    ];
    for (const [method, path, sent, status] of expectations) {
      expect([method, path, (await cv(method, path, sent)).status]).toEqual([method, path, status]);
    }

    // Each route on one CV: another account's is 403, an unknown UUID 404.
    const onCv: [string, string, (() => unknown)?][] = [
      ['GET', ''],
      ['PUT', '', () => ({ title: 'Mine now' })],
      ['DELETE', ''],
      ['POST', '/duplicate'],
      ['PUT', '/template', () => ({ template_id: classic })],
      ['POST', '/photo', () => photo()],
      ['DELETE', '/photo'],
      ['GET', '/pdf'],
      ['GET', '/html'],
      ['GET', '/json-resume'],
    ];
    for (const [target, status] of [
      [uuid, 403],
      [randomUUID(), 404],
    ] as const) {
      for (const [method, suffix, body] of onCv) {
        const path = `/cvs/${target}${suffix}`;
        const reply = await cv(method, path, { key: stranger.key, ...(body ? { body: body() } : {}) });
        expect([method, path, reply.status]).toEqual([method, path, status]);
      }
    }

    // Every keyed route refuses a missing key, and answers 429 past the account's budget.
    const keyed: [string, string, (() => unknown)?][] = [
      ['GET', '/me'],
      ['GET', '/templates'],
      ['GET', `/templates/${classic}`],
      ['GET', '/cvs'],
      ['POST', '/cvs', () => ({ title: 'CV', locale: 'en', template_id: classic })],
      ['POST', '/cvs/import/json-resume', () => ({ basics: { name: 'Nour' } })],
      ...onCv.map(([method, suffix, body]): [string, string, (() => unknown)?] => [
        method,
        `/cvs/${uuid}${suffix}`,
        body,
      ]),
      ['GET', '/cv/openapi.json'],
    ];
    for (const [method, path, body] of keyed) {
      const reply = await cv(method, path, body ? { body: body() } : {});
      expect([method, path, reply.status]).toEqual([method, path, 401]);
      // Judged before anything is read or written: a NUL in the query names the parameter.
      const odd = `${path}?ref=%00`;
      const refused = await cv(method, odd, { key, ...(body ? { body: body() } : {}) });
      expect([method, odd, refused.status, refused.json.errors]).toEqual([
        method,
        odd,
        422,
        { ref: [expect.any(String)] },
      ]);
    }
    await awayFromWindowEdge(60, 5);
    await drain(() => cv('GET', '/me', { key: drained.key }), 60);
    for (const [method, path, body] of keyed) {
      const reply = await cv(method, path, { key: drained.key, ...(body ? { body: body() } : {}) });
      expect([method, path, reply.status]).toEqual([method, path, 429]);
    }
    // Last: the client address's public budget, which every request without a credential shares.
    await drain(() => cv('GET', '/plans'), PUBLIC_QUOTA);
  });

  it('validates every answer above against its document: status, media type, body schema and headers', () => {
    const problems = (['tickets', 'cv'] as const).flatMap((name) =>
      answers[name].flatMap((answer) => checkers[name].problemsOf(answer)),
    );
    expect(problems).toEqual([]);
    for (const name of ['tickets', 'cv'] as const) {
      const seen = new Map<string, Set<number>>();
      for (const answer of answers[name]) {
        const operation = `${answer.method} ${checkers[name].templateOf(answer.path)!}`;
        seen.set(operation, (seen.get(operation) ?? new Set()).add(answer.status));
        // Redis is up throughout, so every counted answer reports what is left of its budget.
        if (answer.headers.has('ratelimit-policy')) {
          expect([operation, answer.status, answer.headers.has('ratelimit')]).toEqual([
            operation,
            answer.status,
            true,
          ]);
        }
      }
      // Every operation of the document answered, each with its success and its refusals.
      expect([...seen.keys()].sort()).toEqual(checkers[name].operations().sort());
      for (const [operation, statuses] of seen) {
        const [method, template] = operation.split(' ') as [string, string];
        const takesJson =
          checkers[name].document.paths[template]?.[method.toLowerCase()]?.requestBody?.content?.[
            'application/json'
          ] !== undefined;
        const expected =
          operation === 'GET /plans'
            ? [200, 304, 429]
            : [
                ...(name === 'tickets' ? [401, 402, 403, 422, 429] : [401, 422, 429]),
                ...(/\{(id|externalId|uuid)\}/.test(operation) ? [404] : []),
                ...(/\{uuid\}/.test(operation) ? [403] : []),
                ...(takesJson ? [400, 413, 415] : []),
              ];
        expect([operation, [...statuses].sort()]).toEqual([operation, expect.arrayContaining(expected)]);
        expect([operation, [...statuses].some((status) => status < 300)]).toEqual([operation, true]);
      }
    }
    expect(answers.tickets.length + answers.cv.length).toBeGreaterThan(300);
  });
});
