import Ajv2020 from 'ajv/dist/2020';
import { createTestDatabase, type TestDatabase } from '../support/database';
import {
  admin,
  newBranchKey,
  newTicketBranch,
  type Platform,
  startPlatform,
  type TicketBranch,
} from '../support/platform';
import { awayFromWindowEdge } from '../support/wait';

interface Reply {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

interface Recorded {
  method: string;
  template: string;
  status: number;
  body: unknown;
}

const TICKET_FIELDS = [
  'id',
  'branch_id',
  'number',
  'external_id',
  'token',
  'status',
  'status_text',
  'customer_name',
  'note',
  'source',
  'source_text',
  'ring_count',
  'phone_linked',
  'alerts_enabled',
  'sms_opt_in',
  'sms_sent',
  'public_url',
  'qr_url',
  'linked_at',
  'ready_at',
  'collected_at',
  'cancelled_at',
  'created_at',
  'updated_at',
];

describe('ticket-calling-api.md over REST, through the gateway, on real Postgres and Redis', () => {
  let database: TestDatabase;
  let platform: Platform;
  let branch: TicketBranch;
  const recorded: Recorded[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    platform = await startPlatform(database);
    branch = await newTicketBranch(platform.config);
  });

  afterAll(async () => {
    await platform?.stop();
    await database.drop();
  });

  /** A fresh key of the branch, so each test has its own 120-a-minute budget. */
  async function keyOf(of: TicketBranch = branch, scopes?: string): Promise<string> {
    return (await newBranchKey(platform.config, of.branchId, scopes)).key;
  }

  function templateOf(path: string): string {
    const bare = path.split('?')[0] ?? path;
    if (bare.startsWith('/tickets/by-external/')) {
      return bare.replace(/^\/tickets\/by-external\/[^/]+/, '/tickets/by-external/{externalId}');
    }
    return bare.replace(/^\/tickets\/[^/]+/, '/tickets/{id}');
  }

  async function call(
    method: string,
    path: string,
    { key, body, headers = {} }: { key?: string; body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<Reply> {
    const response = await fetch(`${platform.restUrl}${path}`, {
      method,
      headers: {
        accept: 'application/json',
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(key !== undefined ? { authorization: `Bearer ${key}` } : {}),
        ...headers,
      },
      ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    const parsed = (text === '' ? {} : JSON.parse(text)) as Record<string, unknown>;
    recorded.push({
      method: method.toLowerCase(),
      template: templateOf(path),
      status: response.status,
      body: parsed,
    });
    return { status: response.status, headers: response.headers, body: parsed };
  }

  const create = (key: string, body: unknown = {}, headers?: Record<string, string>) =>
    call('POST', '/tickets', { key, body, ...(headers ? { headers } : {}) });

  const ENDPOINTS: [string, string][] = [
    ['GET', '/tickets'],
    ['POST', '/tickets'],
    ['GET', '/tickets/1'],
    ['POST', '/tickets/1/ready'],
    ['POST', '/tickets/1/collected'],
    ['POST', '/tickets/1/cancel'],
    ['POST', '/tickets/1/ring'],
    ['GET', '/tickets/by-external/x'],
    ['POST', '/tickets/by-external/x/ready'],
    ['POST', '/tickets/by-external/x/collected'],
    ['POST', '/tickets/by-external/x/cancel'],
    ['POST', '/tickets/by-external/x/ring'],
    ['GET', '/openapi.json'],
  ];

  describe('authentication', () => {
    it.each(ENDPOINTS)('%s %s without a key is 401 JSON', async (method, path) => {
      const reply = await call(method, path, method === 'POST' ? { body: {} } : {});
      expect(reply.status).toBe(401);
      expect(reply.body).toEqual({ message: 'Unauthenticated.' });
    });

    it('refuses a wrong key and a malformed Authorization header with 401', async () => {
      expect((await call('GET', '/tickets', { key: 'tk_not-a-real-key' })).status).toBe(401);
      const basic = await call('GET', '/tickets', { headers: { authorization: 'Basic dXNlcjpwYXNz' } });
      expect(basic.status).toBe(401);
    });

    it('refuses a revoked key with 401', async () => {
      const issued = await admin<{ id: number; key: string }>(
        platform.config,
        'key',
        'create',
        '--branch',
        String(branch.branchId),
      );
      expect((await call('GET', '/tickets', { key: issued.key })).status).toBe(200);
      await admin(platform.config, 'key', 'revoke', '--id', String(issued.id));
      expect((await call('GET', '/tickets', { key: issued.key })).status).toBe(401);
    });

    it('refuses a venue whose plan lacks the API (starter) with 402, and serves it once upgraded', async () => {
      const starter = await newTicketBranch(platform.config, { plan: 'starter' });
      const reply = await call('GET', '/tickets', { key: starter.key });
      expect(reply.status).toBe(402);
      expect(reply.body.message).toMatch(/plan does not include API access/);
      expect((await create(starter.key)).status).toBe(402);
      await admin(
        platform.config,
        'venue',
        'set-plan',
        '--id',
        String(starter.venueId),
        '--plan',
        'enterprise',
      );
      expect((await call('GET', '/tickets', { key: starter.key })).status).toBe(200);
      await admin(platform.config, 'venue', 'set-plan', '--id', String(starter.venueId), '--plan', 'starter');
      expect((await call('GET', '/tickets', { key: starter.key })).status).toBe(402);
    });

    it('needs tickets:read to read and tickets:write to create and move (403 otherwise)', async () => {
      const readOnly = await keyOf(branch, 'tickets:read');
      const writeOnly = await keyOf(branch, 'tickets:write');
      const denied = await create(readOnly);
      expect(denied.status).toBe(403);
      expect(denied.body).toEqual({ message: 'This API key lacks the tickets:write scope.' });
      const created = await create(writeOnly);
      expect(created.status).toBe(201);
      expect((await call('GET', `/tickets/${String(created.body.id)}`, { key: writeOnly })).status).toBe(403);
      expect((await call('GET', `/tickets/${String(created.body.id)}`, { key: readOnly })).status).toBe(200);
      expect(
        (await call('POST', `/tickets/${String(created.body.id)}/ready`, { key: readOnly })).status,
      ).toBe(403);
      expect((await call('GET', '/tickets', { key: writeOnly })).status).toBe(403);
    });

    it('reports a bad key before bad input: 401 beats 422', async () => {
      expect((await call('POST', '/tickets', { key: 'tk_wrong', body: { number: 5 } })).status).toBe(401);
      expect((await call('GET', '/tickets?per_page=500', { key: 'tk_wrong' })).status).toBe(401);
    });
  });

  describe('creating', () => {
    it('answers 201 with exactly the documented creation response', async () => {
      const key = await keyOf();
      const reply = await create(key, {
        external_id: 'ord-1',
        customer_name: 'Hawre',
        customer_phone: '+964 750 123 4567',
      });
      expect(reply.status).toBe(201);
      expect(Object.keys(reply.body).sort()).toEqual(
        ['id', 'message', 'number', 'public_url', 'qr_url', 'token'].sort(),
      );
      expect(reply.body.message).toBe('Ticket created successfully');
      expect(reply.body.token).toMatch(/^[A-Za-z0-9_-]{32}$/);
      expect(reply.body.public_url).toBe(`https://q.example.test/t/${String(reply.body.token)}`);
      expect(reply.body.qr_url).toBe(`https://q.example.test/t/${String(reply.body.token)}/qr.png`);
    });

    it('accepts an empty body and a body with every field null', async () => {
      const key = await keyOf();
      expect((await call('POST', '/tickets', { key })).status).toBe(201);
      const nulls = await create(key, {
        number: null,
        external_id: null,
        customer_name: null,
        customer_phone: null,
        note: null,
      });
      expect(nulls.status).toBe(201);
    });

    it.each([
      ['number', 20],
      ['external_id', 100],
      ['customer_name', 80],
      ['note', 255],
    ])('takes %s of %i characters and refuses one more with 422 naming it', async (field, max) => {
      const key = await keyOf();
      expect((await create(key, { [field]: 'ب'.repeat(max) })).status).toBe(201);
      const reply = await create(key, { [field]: 'x'.repeat(max + 1) });
      expect(reply.status).toBe(422);
      expect(Object.keys(reply.body.errors as object)).toEqual([field]);
      expect((reply.body.errors as Record<string, string[]>)[field]?.[0]).toContain(`${max} characters`);
    });

    it('stores an Iraqi mobile number in any usual form, and refuses anything else with 422 on customer_phone', async () => {
      const key = await keyOf();
      for (const phone of [
        '07701234567',
        '+9647701234567',
        '009647701234567',
        '9647701234567',
        '0770-123-4567',
      ]) {
        expect((await create(key, { customer_phone: phone })).status).toBe(201);
      }
      for (const phone of ['0770123456', '+96170123456', '07701234567890123456x', 'call me']) {
        const reply = await create(key, { customer_phone: phone });
        expect(reply.status).toBe(422);
        expect(Object.keys(reply.body.errors as object)).toEqual(['customer_phone']);
      }
    });

    it('answers wrong types with 422, never 500', async () => {
      const key = await keyOf();
      const reply = await create(key, {
        number: 12,
        note: true,
        customer_name: { first: 'x' },
        external_id: ['a'],
      });
      expect(reply.status).toBe(422);
      expect(reply.body.errors).toEqual({
        number: ['The number field must be a string.'],
        note: ['The note field must be a string.'],
        customer_name: ['The customer name field must be a string.'],
        external_id: ['The external id field must be a string.'],
      });
      expect((await create(key, [1, 2])).status).toBe(422);
      expect((await create(key, '"just a string"')).status).toBe(422);
    });

    it('refuses a number or external_id held by an open ticket of the branch with 422', async () => {
      const key = await keyOf();
      expect((await create(key, { number: 'B-12', external_id: 'dup' })).status).toBe(201);
      const number = await create(key, { number: 'B-12' });
      expect(number.status).toBe(422);
      expect(Object.keys(number.body.errors as object)).toEqual(['number']);
      const external = await create(key, { external_id: 'dup' });
      expect(external.status).toBe(422);
      expect(external.body.errors).toEqual({ external_id: ['The external id has already been taken.'] });
    });

    it('gives 50 parallel creates 50 distinct numbers', async () => {
      const other = await newTicketBranch(platform.config);
      const key = other.key;
      const replies = await Promise.all(Array.from({ length: 50 }, () => create(key)));
      expect(replies.every((r) => r.status === 201)).toBe(true);
      expect(new Set(replies.map((r) => r.body.number)).size).toBe(50);
    });
  });

  describe('Idempotency-Key', () => {
    it('replays the same status and body with Idempotent-Replayed: true, creating nothing', async () => {
      const key = await keyOf();
      const first = await create(key, { note: 'two shawarma' }, { 'Idempotency-Key': 'pos-1-order-5' });
      const again = await create(key, { note: 'two shawarma' }, { 'Idempotency-Key': 'pos-1-order-5' });
      expect(first.status).toBe(201);
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      expect(again.status).toBe(201);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body).toEqual(first.body);
    });

    it('refuses the same key with a different body, and a key over 255 characters, with 422', async () => {
      const key = await keyOf();
      await create(key, { note: 'a' }, { 'Idempotency-Key': 'k-diff' });
      const different = await create(key, { note: 'b' }, { 'Idempotency-Key': 'k-diff' });
      expect(different.status).toBe(422);
      expect(Object.keys(different.body.errors as object)).toEqual(['idempotency_key']);
      const long = await create(key, {}, { 'Idempotency-Key': 'k'.repeat(256) });
      expect(long.status).toBe(422);
    });

    it('creates exactly one ticket from 20 parallel requests with one key (the rest 409 or replays)', async () => {
      const other = await newTicketBranch(platform.config);
      const replies = await Promise.all(
        Array.from({ length: 20 }, () =>
          create(other.key, { external_id: 'race' }, { 'Idempotency-Key': 'race-key' }),
        ),
      );
      expect(replies.every((r) => r.status === 201 || r.status === 409)).toBe(true);
      expect(new Set(replies.filter((r) => r.status === 201).map((r) => r.body.id)).size).toBe(1);
      const list = await call('GET', '/tickets', { key: other.key });
      expect((list.body.meta as { total: number }).total).toBe(1);
    });
  });

  describe('reading and moving', () => {
    it('returns every field of the Ticket resource, by id and by external id', async () => {
      const key = await keyOf();
      const created = await create(key, { external_id: 'read-1', note: 'no pickles' });
      const byId = await call('GET', `/tickets/${String(created.body.id)}`, { key });
      expect(byId.status).toBe(200);
      expect(Object.keys(byId.body).sort()).toEqual([...TICKET_FIELDS].sort());
      expect(byId.body).toMatchObject({
        id: created.body.id,
        branch_id: branch.branchId,
        status: 'waiting',
        status_text: 'Waiting',
        source: 1,
        source_text: 'API',
        ring_count: 0,
        note: 'no pickles',
        phone_linked: false,
        sms_sent: false,
        ready_at: null,
      });
      expect(new Date(byId.body.created_at as string).toISOString()).toBe(byId.body.created_at);
      const byExternal = await call('GET', '/tickets/by-external/read-1', { key });
      expect(byExternal.body).toEqual(byId.body);
      const arabic = await call('GET', `/tickets/${String(created.body.id)}`, {
        key,
        headers: { 'accept-language': 'ar' },
      });
      expect(arabic.body.status_text).toBe('قيد الانتظار');
      expect(arabic.body.source_text).toBe('واجهة برمجية');
    });

    it('answers 404 JSON for an unknown ticket, by id and by external id', async () => {
      const key = await keyOf();
      for (const path of ['/tickets/999999', '/tickets/abc', '/tickets/by-external/nope']) {
        const reply = await call('GET', path, { key });
        expect(reply.status).toBe(404);
        expect(reply.body).toEqual({ message: 'Ticket not found.' });
      }
      expect((await call('POST', '/tickets/999999/ready', { key })).status).toBe(404);
      expect((await call('POST', '/tickets/by-external/nope/cancel', { key })).status).toBe(404);
    });

    it('moves by id with the documented messages, refusing a disallowed move with 422', async () => {
      const key = await keyOf();
      const a = await create(key);
      const ready = await call('POST', `/tickets/${String(a.body.id)}/ready`, { key });
      expect(ready).toMatchObject({ status: 200, body: { message: 'Ticket marked ready' } });
      const collected = await call('POST', `/tickets/${String(a.body.id)}/collected`, { key });
      expect(collected).toMatchObject({ status: 200, body: { message: 'Ticket marked collected' } });
      const again = await call('POST', `/tickets/${String(a.body.id)}/cancel`, { key });
      expect(again.status).toBe(422);
      expect(again.body).toEqual({
        message: 'A collected ticket cannot be cancelled.',
        errors: { status: ['A collected ticket cannot be cancelled.'] },
      });
      const b = await create(key);
      expect((await call('POST', `/tickets/${String(b.body.id)}/cancel`, { key })).body).toEqual({
        message: 'Ticket cancelled',
      });
      const read = await call('GET', `/tickets/${String(a.body.id)}`, { key });
      expect(read.body).toMatchObject({ status: 'collected', ring_count: 1 });
      expect(read.body.ready_at).not.toBeNull();
      expect(read.body.collected_at).not.toBeNull();
    });

    it('moves by external id with the same messages', async () => {
      const key = await keyOf();
      await create(key, { external_id: 'ext-move' });
      expect((await call('POST', '/tickets/by-external/ext-move/ready', { key })).body).toEqual({
        message: 'Ticket marked ready',
      });
      const ring = await call('POST', '/tickets/by-external/ext-move/ring', { key });
      expect(ring.status).toBe(429);
      expect((await call('POST', '/tickets/by-external/ext-move/collected', { key })).body).toEqual({
        message: 'Ticket marked collected',
      });
      await create(key, { external_id: 'ext-cancel' });
      expect((await call('POST', '/tickets/by-external/ext-cancel/cancel', { key })).body).toEqual({
        message: 'Ticket cancelled',
      });
    });

    it('rings only a ready ticket, at most once every 30 seconds (429 with Retry-After)', async () => {
      const key = await keyOf();
      const t = await create(key);
      const early = await call('POST', `/tickets/${String(t.body.id)}/ring`, { key });
      expect(early.status).toBe(422);
      await call('POST', `/tickets/${String(t.body.id)}/ready`, { key });
      const soon = await call('POST', `/tickets/${String(t.body.id)}/ring`, { key });
      expect(soon.status).toBe(429);
      const retryAfter = Number(soon.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(30);
      await database.query(
        `update tickets.tickets set last_alert_at = now() - interval '31 seconds' where id = $1`,
        [t.body.id],
      );
      const rung = await call('POST', `/tickets/${String(t.body.id)}/ring`, { key });
      expect(rung).toMatchObject({ status: 200, body: { message: 'Customer alerted again' } });
      expect((await call('GET', `/tickets/${String(t.body.id)}`, { key })).body.ring_count).toBe(2);
    });

    it('keeps branches apart: another branch’s ticket is 404 and never listed', async () => {
      const key = await keyOf();
      const other = await newTicketBranch(platform.config);
      const theirs = await create(other.key, { external_id: 'theirs' });
      expect((await call('GET', `/tickets/${String(theirs.body.id)}`, { key })).status).toBe(404);
      expect((await call('POST', `/tickets/${String(theirs.body.id)}/cancel`, { key })).status).toBe(404);
      expect((await call('GET', '/tickets/by-external/theirs', { key })).status).toBe(404);
      const list = await call('GET', '/tickets?external_id=theirs', { key });
      expect((list.body.meta as { total: number }).total).toBe(0);
    });
  });

  describe('listing', () => {
    let lister: TicketBranch;

    beforeAll(async () => {
      lister = await newTicketBranch(platform.config);
      for (let i = 1; i <= 17; i++) {
        await create(lister.key, {
          external_id: `L-${i}`,
          customer_name: i === 3 ? 'Zainab Kareem' : null,
          note: i === 4 ? '50% less salt' : null,
        });
      }
      await database.query(
        `update tickets.tickets set created_at = now() - interval '3 days' where branch_id = $1 and external_id = 'L-1'`,
        [lister.branchId],
      );
    });

    it('pages newest first, 15 by default, in Laravel’s exact shape', async () => {
      const key = await keyOf(lister);
      const reply = await call('GET', '/tickets', { key });
      expect(reply.status).toBe(200);
      const body = reply.body as {
        data: { external_id: string }[];
        links: object;
        meta: Record<string, unknown>;
      };
      expect(body.data).toHaveLength(15);
      expect(body.data[0]?.external_id).toBe('L-17');
      const base = 'https://q.example.test/api/v1/tickets';
      expect(body.links).toEqual({
        first: `${base}?page=1`,
        last: `${base}?page=2`,
        prev: null,
        next: `${base}?page=2`,
      });
      expect(body.meta).toEqual({
        current_page: 1,
        from: 1,
        last_page: 2,
        links: [
          { url: null, label: '&laquo; Previous', active: false },
          { url: `${base}?page=1`, label: '1', active: true },
          { url: `${base}?page=2`, label: '2', active: false },
          { url: `${base}?page=2`, label: 'Next &raquo;', active: false },
        ],
        path: base,
        per_page: 15,
        to: 15,
        total: 17,
      });
    });

    it('keeps the filters on page links and answers an empty page with from and to null', async () => {
      const key = await keyOf(lister);
      const page = await call('GET', '/tickets?per_page=5&page=4&status=waiting', { key });
      const meta = page.body.meta as Record<string, unknown>;
      expect(meta).toMatchObject({ current_page: 4, from: 16, to: 17, last_page: 4, per_page: 5 });
      expect((page.body.links as { prev: string }).prev).toBe(
        'https://q.example.test/api/v1/tickets?per_page=5&status=waiting&page=3',
      );
      const empty = await call('GET', '/tickets?page=9', { key });
      expect(empty.body.data).toEqual([]);
      expect(empty.body.meta).toMatchObject({ from: null, to: null, current_page: 9, total: 17 });
    });

    it('filters by search (case-insensitive), status, external_id and from/to', async () => {
      const key = await keyOf(lister);
      const ids = async (query: string) =>
        ((await call('GET', `/tickets?${query}`, { key })).body.data as { external_id: string }[]).map(
          (t) => t.external_id,
        );
      expect(await ids('search=zAINAB')).toEqual(['L-3']);
      expect(await ids(`search=${encodeURIComponent('50%')}`)).toEqual(['L-4']);
      expect(await ids('external_id=L-7')).toEqual(['L-7']);
      expect(await ids('status=ready')).toEqual([]);
      const twoDaysAgo = new Date(Date.now() - 2 * 86_400_000).toISOString();
      expect(await ids(`to=${encodeURIComponent(twoDaysAgo)}`)).toEqual(['L-1']);
      expect((await ids(`from=${encodeURIComponent(twoDaysAgo)}&per_page=100`)).length).toBe(16);
    });

    it.each([
      ['per_page=0', 'per_page'],
      ['per_page=101', 'per_page'],
      ['per_page=ten', 'per_page'],
      ['page=0', 'page'],
      ['status=lost', 'status'],
      [`search=${'s'.repeat(256)}`, 'search'],
      [`external_id=${'e'.repeat(101)}`, 'external_id'],
      ['from=yesterday', 'from'],
      ['to=2026-13-40T99:00:00Z', 'to'],
    ])('refuses %s with 422 naming %s', async (query, parameter) => {
      const key = await keyOf(lister);
      const reply = await call('GET', `/tickets?${query}`, { key });
      expect(reply.status).toBe(422);
      expect(Object.keys(reply.body.errors as object)).toEqual([parameter]);
    });

    it('takes per_page 1 and 100', async () => {
      const key = await keyOf(lister);
      expect(((await call('GET', '/tickets?per_page=1', { key })).body.data as unknown[]).length).toBe(1);
      expect(((await call('GET', '/tickets?per_page=100', { key })).body.data as unknown[]).length).toBe(17);
    });
  });

  describe('rate limit', () => {
    it('allows 120 requests a minute per key, then 429 with Retry-After; every answer carries RateLimit headers', async () => {
      await awayFromWindowEdge();
      const key = await keyOf();
      const statuses: number[] = [];
      let last: Reply | undefined;
      for (let i = 0; i < 121; i++) {
        last = await call('GET', '/tickets?per_page=1', { key });
        statuses.push(last.status);
        // The platform's first sight of a key also counts its client address, for the look-up.
        const address = i === 0 ? '"public";q=300;w=60, ' : '';
        expect(last.headers.get('ratelimit-policy')).toBe(`${address}"tickets";q=120;w=60`);
        expect(last.headers.get('ratelimit')).toMatch(
          new RegExp(`^${i === 0 ? '"public";r=\\d+;t=\\d+, ' : ''}"tickets";r=\\d+;t=\\d+$`),
        );
      }
      expect(statuses.slice(0, 120).every((s) => s === 200)).toBe(true);
      expect(last?.status).toBe(429);
      expect(last?.body).toEqual({ message: 'Too Many Attempts.' });
      expect(Number(last?.headers.get('retry-after'))).toBeGreaterThan(0);
      // Another key of the same branch has its own budget.
      expect((await call('GET', '/tickets?per_page=1', { key: await keyOf() })).status).toBe(200);
    }, 120_000);
  });

  describe('openapi.json', () => {
    it('describes API version 1.0.0 in OpenAPI 3.1 with the bearer scheme and every endpoint', async () => {
      const reply = await call('GET', '/openapi.json', { key: await keyOf() });
      expect(reply.status).toBe(200);
      const doc = reply.body as {
        openapi: string;
        info: { version: string };
        paths: Record<string, object>;
        components: { securitySchemes: object };
      };
      expect(doc.openapi).toBe('3.1.0');
      expect(doc.info.version).toBe('1.0.0');
      expect(doc.components.securitySchemes).toMatchObject({ bearer: { type: 'http', scheme: 'bearer' } });
      const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
        Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`),
      );
      expect(operations).toHaveLength(13);
    });

    it('validates every real response recorded above against the document', async () => {
      const doc = (await call('GET', '/openapi.json', { key: await keyOf() })).body as {
        paths: Record<
          string,
          Record<
            string,
            { responses: Record<string, { content?: { 'application/json': { schema: object } } }> }
          >
        >;
        components: { schemas: Record<string, object> };
      };
      const ajv = new Ajv2020({ strict: false, validateFormats: false });
      ajv.addSchema({ $id: 'openapi', components: doc.components });
      const seen = new Set<string>();
      let checked = 0;
      for (const r of recorded) {
        const operation = doc.paths[`${r.template}`]?.[r.method];
        expect(operation).toBeDefined();
        const response = operation?.responses[String(r.status)];
        if (response === undefined)
          throw new Error(`${r.method} ${r.template} answered ${r.status}, which the document does not list`);
        const schema = response.content?.['application/json'].schema;
        if (schema === undefined) continue;
        const rewritten = JSON.parse(
          JSON.stringify(schema).replace(/"#\/components/g, '"openapi#/components'),
        ) as object;
        const validate = ajv.compile(rewritten);
        if (!validate(r.body)) {
          throw new Error(
            `${r.method} ${r.template} ${r.status}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(r.body).slice(0, 500)}`,
          );
        }
        seen.add(`${r.method} ${r.template}`);
        checked++;
      }
      expect(checked).toBeGreaterThan(100);
      expect(seen.size).toBe(13);
    });
  });
});
