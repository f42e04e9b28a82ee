import { randomBytes } from 'node:crypto';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { PUBLIC_WRITE_RATE_LIMIT } from '../../common/rate-budget';
import { createTestDatabase, type TestDatabase } from '../support/database';
import {
  admin,
  newAccountKey,
  newCvAccount,
  newTicketBranch,
  type Platform,
  platformTemplateId,
  startPlatform,
} from '../support/platform';
import { scrapedSum } from '../support/metrics';
import { awayFromWindowEdge, waitUntil } from '../support/wait';
import { askGraph, bearer, signUpPerson } from '../support/graph';

/** Small quotas, so a test reaches each limit in a handful of requests. */
const TICKETS_QUOTA = 12;
const CV_QUOTA = 20;
const PUBLIC_QUOTA = 40;
const SESSION_QUOTA = 16;

interface GraphAnswer {
  status: number;
  headers: Headers;
  body: {
    data?: Record<string, unknown> | null;
    errors?: { message: string; extensions?: { code?: string; retryAfter?: number } }[];
  };
}

interface OperationOutcome {
  data?: unknown;
  errors?: { message: string; extensions?: { code?: string; retryAfter?: number } }[];
}

describe('one budget per credential, whatever the door: REST, GraphQL over HTTP, graphql-ws', () => {
  let database: TestDatabase;
  let platform: Platform;

  beforeAll(async () => {
    database = await createTestDatabase();
    platform = await startPlatform(database, {
      // The tests pose as clients behind a proxy on loopback, each naming its own X-Forwarded-For.
      TRUSTED_PROXIES: '127.0.0.1',
      TICKETS_RATE_LIMIT: String(TICKETS_QUOTA),
      CV_RATE_LIMIT: String(CV_QUOTA),
      PUBLIC_RATE_LIMIT: String(PUBLIC_QUOTA),
      SESSION_RATE_LIMIT: String(SESSION_QUOTA),
    });
  });

  afterAll(async () => {
    await platform?.stop();
    await database.drop();
  });

  async function graphql(
    query: string,
    headers: Record<string, string> = {},
    variables: Record<string, unknown> = {},
  ): Promise<GraphAnswer> {
    const response = await fetch(platform.gatewayUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ query, variables }),
    });
    return {
      status: response.status,
      headers: response.headers,
      body: (await response.json()) as GraphAnswer['body'],
    };
  }

  const rest = (path: string, headers: Record<string, string>, init: RequestInit = {}) =>
    fetch(`${platform.restUrl}${path}`, { ...init, headers: { accept: 'application/json', ...headers } });

  /** A graphql-ws client whose socket closing is recorded, to prove a refusal leaves it open. */
  function socket(connectionParams: Record<string, unknown>): { client: Client; closed: () => boolean } {
    let closed = false;
    const client = createClient({
      url: platform.gatewayUrl.replace(/^http/, 'ws'),
      webSocketImpl: WebSocket,
      connectionParams,
      retryAttempts: 0,
      lazy: false,
      on: { closed: () => (closed = true) },
    });
    return { client, closed: () => closed };
  }

  /** One query over the socket, resolved with its result or its error message's errors. */
  const overSocket = (client: Client, query: string, variables: Record<string, unknown> = {}) =>
    new Promise<OperationOutcome>((resolve) => {
      let outcome: OperationOutcome = {};
      client.subscribe(
        { query, variables },
        {
          next: (result) => (outcome = result as OperationOutcome),
          error: (errors) => resolve({ errors: errors as OperationOutcome['errors'] }),
          complete: () => resolve(outcome),
        },
      );
    });

  const remainingOf = (headers: Headers, policy: string) =>
    Number(new RegExp(`"${policy}";r=(\\d+)`).exec(headers.get('ratelimit') ?? '')?.[1]);

  it('counts a ticket key once per request across REST, HTTP /graphql and graphql-ws, then refuses on each door', async () => {
    const { key } = await newTicketBranch(platform.config);
    const auth = { authorization: `Bearer ${key}` };
    await awayFromWindowEdge();

    // REST: each request counts once, though the adapter sends it on to the gateway.
    for (let i = 1; i <= 4; i += 1) {
      const response = await rest('/tickets', auth);
      expect(response.status).toBe(200);
      // The platform's first sight of the key also counts the client address, before it asks who
      // the key is; what the graph said is then known to every door.
      expect(response.headers.get('ratelimit-policy')).toBe(
        `${i === 1 ? `"public";q=${PUBLIC_QUOTA};w=60, ` : ''}"tickets";q=${TICKETS_QUOTA};w=60`,
      );
      expect(remainingOf(response.headers, 'tickets')).toBe(TICKETS_QUOTA - i);
    }
    // GraphQL over HTTP continues the same count.
    for (let i = 5; i <= 8; i += 1) {
      const answer = await graphql('{ tickets { total } }', auth);
      expect(answer.body.errors).toBeUndefined();
      expect(answer.headers.get('ratelimit-policy')).toBe(`"tickets";q=${TICKETS_QUOTA};w=60`);
      expect(remainingOf(answer.headers, 'tickets')).toBe(TICKETS_QUOTA - i);
    }
    // graphql-ws: every operation sent over the socket is one more.
    const ws = socket({ authorization: auth.authorization });
    for (let i = 9; i <= TICKETS_QUOTA; i += 1) {
      expect((await overSocket(ws.client, '{ tickets { total } }')).errors).toBeUndefined();
    }
    const overWs = await overSocket(ws.client, '{ tickets { total } }');
    expect(overWs.errors?.[0]?.extensions?.code).toBe('RATE_LIMITED');
    expect(overWs.errors?.[0]?.extensions?.retryAfter).toBeGreaterThan(0);
    const subscription = await overSocket(ws.client, 'subscription { branchTicketsUpdated { id } }');
    expect(subscription.errors?.[0]?.extensions?.code).toBe('RATE_LIMITED');
    expect(ws.closed()).toBe(false);

    const overHttp = await graphql('{ tickets { total } }', auth);
    expect(overHttp.status).toBe(429);
    expect(Number(overHttp.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(overHttp.headers.get('ratelimit-policy')).toBe(`"tickets";q=${TICKETS_QUOTA};w=60`);
    expect(overHttp.headers.get('ratelimit')).toMatch(/^"tickets";r=0;t=\d+$/);
    expect(overHttp.body.data).toBeUndefined();
    expect(overHttp.body.errors?.[0]?.message).toMatch(/limit is 12 a minute per key/);
    expect(overHttp.body.errors?.[0]?.extensions).toEqual({
      code: 'RATE_LIMITED',
      retryAfter: Number(overHttp.headers.get('retry-after')),
    });
    const overRest = await rest('/tickets', auth);
    expect(overRest.status).toBe(429);
    expect(await overRest.json()).toEqual({ message: 'Too Many Attempts.' });
    await ws.client.dispose();
  });

  it('counts every spelling of a key as that key on REST, HTTP /graphql and graphql-ws', async () => {
    const { key } = await newTicketBranch(platform.config);
    const spellings = [`Bearer ${key}`, `bearer ${key}`, `BEARER ${key}`, `bEarer ${key}`, `Bearer  ${key}`];
    await awayFromWindowEdge();
    let used = 0;
    for (const authorization of [...spellings, ...spellings]) {
      const response = await rest('/tickets', { authorization });
      expect(response.status).toBe(200);
      expect(remainingOf(response.headers, 'tickets')).toBe(TICKETS_QUOTA - (used += 1));
    }
    const answer = await graphql('{ tickets { total } }', { authorization: `bEarer  ${key}` });
    expect(answer.body.errors).toBeUndefined();
    expect(remainingOf(answer.headers, 'tickets')).toBe(TICKETS_QUOTA - used - 1);
    // A trailing space reaches the gateway only through graphql-ws, where no HTTP parser trims it.
    const ws = socket({ authorization: `BEARER ${key} ` });
    expect((await overSocket(ws.client, '{ tickets { total } }')).errors).toBeUndefined();
    expect((await overSocket(ws.client, '{ tickets { total } }')).errors?.[0]?.extensions?.code).toBe(
      'RATE_LIMITED',
    );
    await ws.client.dispose();
    expect((await rest('/tickets', { authorization: spellings[1]! })).status).toBe(429);
    const refused = await graphql('{ tickets { total } }', { authorization: spellings[4]! });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('ratelimit')).toMatch(/^"tickets";r=0;t=\d+$/);
  });

  it('meets 330 invented keys from one address with the address’s 429 on REST, each 401 carrying the address’s figures', async () => {
    await awayFromWindowEdge();
    const address = { 'x-forwarded-for': '203.0.113.41' };
    const answers: { status: number; policy: string | null; remaining: number }[] = [];
    for (let i = 0; i < 330; i += 1) {
      const response = await rest('/tickets/1', {
        ...address,
        authorization: `Bearer tk_${randomBytes(16).toString('base64url')}`,
      });
      answers.push({
        status: response.status,
        policy: response.headers.get('ratelimit-policy'),
        remaining: remainingOf(response.headers, 'public'),
      });
      await response.arrayBuffer();
    }
    const unauthenticated = answers.slice(0, PUBLIC_QUOTA);
    expect(unauthenticated.map((answer) => answer.status)).toEqual(Array(PUBLIC_QUOTA).fill(401));
    expect(unauthenticated.map((answer) => answer.remaining)).toEqual(
      Array.from({ length: PUBLIC_QUOTA }, (_, i) => PUBLIC_QUOTA - 1 - i),
    );
    expect(new Set(unauthenticated.map((answer) => answer.policy))).toEqual(
      new Set([`"public";q=${PUBLIC_QUOTA};w=60`]),
    );
    expect(new Set(answers.slice(PUBLIC_QUOTA).map((answer) => answer.status))).toEqual(new Set([429]));
    // The front door's read and express's routes count alike: a list from there is refused too.
    expect((await rest('/tickets', { ...address, authorization: 'Bearer tk_another' })).status).toBe(429);
  });

  it('counts a revoked key against its client address from its revocation on, on both doors', async () => {
    const { key, keyId } = await newTicketBranch(platform.config);
    await awayFromWindowEdge();
    const address = { 'x-forwarded-for': '203.0.113.43' };
    const auth = { ...address, authorization: `Bearer ${key}` };
    expect((await rest('/tickets', auth)).headers.get('ratelimit-policy')).toBe(
      `"public";q=${PUBLIC_QUOTA};w=60, "tickets";q=${TICKETS_QUOTA};w=60`,
    );
    const known = await graphql('{ tickets { total } }', auth);
    expect(known.headers.get('ratelimit-policy')).toBe(`"tickets";q=${TICKETS_QUOTA};w=60`);
    await admin(platform.config, 'key', 'revoke', '--id', String(keyId));
    // The announcement reaches both doors within moments of the answer.
    await waitUntil(
      async () => (await rest('/tickets', auth)).status === 401,
      5_000,
      'the revoked key refused on REST',
    );
    const refused = await rest('/tickets', auth);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('ratelimit-policy')).toBe(`"public";q=${PUBLIC_QUOTA};w=60`);
    const overGraph = await graphql('{ tickets { total } }', auth);
    expect(overGraph.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(overGraph.headers.get('ratelimit-policy')).toBe(`"public";q=${PUBLIC_QUOTA};w=60`);
  });

  it('answers an Authorization that is no Bearer credential 401 on every door, counting its address', async () => {
    await awayFromWindowEdge();
    const address = { 'x-forwarded-for': '203.0.113.42' };
    const malformed = ['Basic dXNlcjpwYXNz', 'Bearer tk_a tk_b', 'tk_bare'];
    let used = 0;
    for (const authorization of malformed) {
      const response = await rest('/tickets/1', { ...address, authorization });
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual({ message: 'Unauthenticated.' });
      expect(response.headers.get('ratelimit-policy')).toBe(`"public";q=${PUBLIC_QUOTA};w=60`);
      expect(remainingOf(response.headers, 'public')).toBe(PUBLIC_QUOTA - (used += 1));
    }
    for (const authorization of malformed) {
      const answer = await graphql('{ plans(product: TICKETS) { key } }', { ...address, authorization });
      expect(answer.status).toBe(401);
      expect(answer.body.data).toBeUndefined();
      expect(answer.body.errors?.map((error) => [error.extensions?.code, error.message])).toEqual([
        [
          'UNAUTHENTICATED',
          'Unauthenticated: the Authorization header must be "Bearer" followed by one key or session token.',
        ],
      ]);
      expect(remainingOf(answer.headers, 'public')).toBe(PUBLIC_QUOTA - (used += 1));
    }
    const ws = createClient({
      url: platform.gatewayUrl.replace(/^http/, 'ws'),
      webSocketImpl: fromAddress(address['x-forwarded-for']),
      connectionParams: { authorization: 'Token tk_a' },
      retryAttempts: 0,
      lazy: false,
    });
    const closed = await new Promise<number>((resolve) => {
      ws.on('closed', (event) => resolve((event as { code: number }).code));
    });
    expect(closed).toBe(4403);
    await ws.dispose();
    const after = await graphql('{ plans(product: TICKETS) { key } }', address);
    expect(remainingOf(after.headers, 'public')).toBe(PUBLIC_QUOTA - used - 2);
  });

  it('refuses a query that ran ahead of its count with nothing it fetched, and sends no more of that key ahead', async () => {
    const { key } = await newTicketBranch(platform.config);
    const auth = { authorization: `Bearer ${key}` };
    const query = '{ tickets { total } }';
    const ticketsFetches = () =>
      scrapedSum(
        platform.ports.tickets.metricsPort,
        'http_server_request_duration_seconds_count',
        'http_route="/graphql"',
      );
    await awayFromWindowEdge();
    // The gateway learns from these counts that the key has room: its next query may run ahead.
    for (let i = 1; i <= 4; i += 1) expect((await graphql(query, auth)).status).toBe(200);
    // The rest of the budget goes through REST, whose counts the gateway does not see.
    for (let i = 5; i <= TICKETS_QUOTA; i += 1) expect((await rest('/tickets', auth)).status).toBe(200);

    const before = await ticketsFetches();
    const refused = [];
    for (let i = 0; i < 5; i += 1) refused.push(await graphql(query, auth));
    for (const answer of refused) {
      expect(answer.status).toBe(429);
      expect(answer.headers.get('ratelimit')).toMatch(/^"tickets";r=0;t=\d+$/);
      expect(answer.body.data).toBeUndefined();
      expect(answer.body.errors?.map((error) => error.extensions?.code)).toEqual(['RATE_LIMITED']);
    }
    // The first went to the subgraph beside its count; once that count refused, the next four
    // waited for theirs and were refused before any fetch.
    await waitUntil(async () => (await ticketsFetches()) > before, 5_000, 'the one fetch ahead recorded');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await ticketsFetches()) - before).toBe(1);
  });

  it('counts a CV account’s keys together on both doors, and a REST route of two operations once', async () => {
    const account = await newCvAccount(platform.config, { plan: 'pro' });
    const second = await newAccountKey(platform.config, account.id);
    const templateId = await platformTemplateId(database, 'classic');
    await awayFromWindowEdge();
    const created = await rest(
      '/cvs',
      { 'x-api-key': account.key, 'content-type': 'application/json' },
      { method: 'POST', body: JSON.stringify({ title: 'CV', locale: 'en', template_id: templateId }) },
    );
    expect(created.status).toBe(201);
    expect(remainingOf(created.headers, 'cv')).toBe(CV_QUOTA - 1);
    const { data } = (await created.json()) as { data: { id: string } };
    // PUT with template_id asks the graph twice (the CV's template, then the update): one request.
    const updated = await rest(
      `/cvs/${data.id}`,
      { 'x-api-key': account.key, 'content-type': 'application/json' },
      { method: 'PUT', body: JSON.stringify({ title: 'CV 2', template_id: templateId }) },
    );
    expect(updated.status).toBe(200);
    expect(remainingOf(updated.headers, 'cv')).toBe(CV_QUOTA - 2);
    for (let i = 3; i <= CV_QUOTA; i += 1) {
      const answer = await graphql('{ me { id } }', { 'x-api-key': i % 2 === 0 ? account.key : second.key });
      expect(answer.body.errors).toBeUndefined();
      expect(remainingOf(answer.headers, 'cv')).toBe(CV_QUOTA - i);
    }
    const refused = await graphql('{ cvs { id } }', { 'x-api-key': account.key });
    expect(refused.status).toBe(429);
    expect(refused.body.errors?.[0]?.extensions?.code).toBe('RATE_LIMITED');
    expect((await rest('/cvs', { 'x-api-key': second.key })).status).toBe(429);
  });

  it('shares the 10 exports a minute between REST and GraphQL, refused with 429 on both', async () => {
    const account = await newCvAccount(platform.config, { plan: 'business' });
    const headers = { 'x-api-key': account.key, 'content-type': 'application/json' };
    const templateId = await platformTemplateId(database, 'classic');
    const created = await rest('/cvs', headers, {
      method: 'POST',
      body: JSON.stringify({ title: 'CV', locale: 'en', template_id: templateId }),
    });
    const { data } = (await created.json()) as { data: { id: string } };
    await awayFromWindowEdge();
    const exportOp = 'mutation ($id: ID!) { exportCv(id: $id, format: HTML) { fileName } }';
    const key = { 'x-api-key': account.key };
    for (let i = 0; i < 5; i += 1) {
      expect((await rest(`/cvs/${data.id}/html`, key)).status).toBe(200);
      expect((await graphql(exportOp, key, { id: data.id })).body.errors).toBeUndefined();
    }
    const refused = await graphql(exportOp, key, { id: data.id });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.body.errors?.[0]?.extensions).toMatchObject({ code: 'RATE_LIMITED' });
    expect(refused.body.errors?.[0]?.message).toBe('Too many exports: at most 10 a minute.');
    const overRest = await rest(`/cvs/${data.id}/html`, key);
    expect(overRest.status).toBe(429);
    expect(((await overRest.json()) as { message: string }).message).toBe(
      'Too many exports: at most 10 a minute.',
    );
  });

  /** A ticket's token, from the public URL its creation answered. */
  async function ticketToken(): Promise<string> {
    const { key } = await newTicketBranch(platform.config);
    const created = await rest(
      '/tickets',
      { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      { method: 'POST', body: '{}' },
    );
    const { public_url: publicUrl } = (await created.json()) as { public_url: string };
    return new URL(publicUrl).pathname.split('/').pop()!;
  }

  /** graphql-ws's WebSocket, opened as if from `address` behind the trusted proxy on loopback. */
  const fromAddress = (address: string) =>
    class extends WebSocket {
      constructor(url: string, protocols?: string | string[]) {
        super(url, protocols, { headers: { 'x-forwarded-for': address } });
      }
    };

  it('limits requests without a credential per client address on both doors and over graphql-ws', async () => {
    const token = await ticketToken();
    await awayFromWindowEdge();
    // Each address has its own count; both doors and graphql-ws take it from the trusted proxy's header.
    const address = { 'x-forwarded-for': '203.0.113.7' };
    const site = platform.restUrl.replace('/api/v1', '');
    const page = await fetch(`${site}/t/${token}/qr.svg`, { headers: address });
    expect(page.status).toBe(200);
    expect(remainingOf(page.headers, 'public')).toBe(PUBLIC_QUOTA - 1);
    const byToken = `{ ticketByToken(token: "${token}") { number } }`;
    const ws = createClient({
      url: platform.gatewayUrl.replace(/^http/, 'ws'),
      webSocketImpl: fromAddress(address['x-forwarded-for']),
      retryAttempts: 0,
    });
    expect((await overSocket(ws, byToken)).errors).toBeUndefined();
    for (let i = 3; i <= PUBLIC_QUOTA; i += 1) {
      const answer = await graphql(byToken, address);
      expect(answer.body.errors).toBeUndefined();
      expect(remainingOf(answer.headers, 'public')).toBe(PUBLIC_QUOTA - i);
    }
    const refused = await graphql(byToken, address);
    expect(refused.status).toBe(429);
    expect(refused.body.errors?.[0]?.message).toMatch(/per client address/);
    expect((await overSocket(ws, byToken)).errors?.[0]?.extensions?.code).toBe('RATE_LIMITED');
    const plans = await fetch(`${platform.restUrl}/plans`, { headers: address });
    expect(plans.status).toBe(429);
    expect(await plans.json()).toEqual({ message: 'Too Many Attempts.', errors: {} });
    // Another address is untouched.
    expect((await graphql(byToken, { 'x-forwarded-for': '203.0.113.8' })).status).toBe(200);
    await ws.dispose();
  });

  it('counts requests with invented credentials against the client address, not the invention', async () => {
    const token = await ticketToken();
    await awayFromWindowEdge();
    const address = { 'x-forwarded-for': '203.0.113.30' };
    const byToken = `{ ticketByToken(token: "${token}") { number } }`;
    const invented = () => ({
      ...address,
      authorization: `Bearer tk_${randomBytes(16).toString('hex')}`,
      'x-api-key': `cv_${randomBytes(16).toString('hex')}`,
    });
    for (let i = 1; i <= PUBLIC_QUOTA; i += 1) {
      const answer = await graphql(byToken, invented());
      expect(answer.body.errors).toBeUndefined();
      expect(remainingOf(answer.headers, 'public')).toBe(PUBLIC_QUOTA - i);
    }
    const refused = await graphql(byToken, invented());
    expect(refused.status).toBe(429);
    expect(refused.body.errors?.[0]?.message).toMatch(/per client address/);
  });

  it('counts a signed-in person once over all their sessions and addresses, on HTTP and graphql-ws', async () => {
    const password = 'a long test passphrase';
    const person = await signUpPerson(platform.gatewayUrl, { email: 'rana@example.test', name: 'Rana' });
    const signIn = `mutation ($i: SignInInput!) { signIn(input: $i) { token } }`;
    const second = await askGraph(platform.gatewayUrl, signIn, { i: { email: person.email, password } });
    const otherSession = (second.data as { signIn: { token: string } }).signIn.token;
    const colleague = await signUpPerson(platform.gatewayUrl, { email: 'omar@example.test', name: 'Omar' });
    await awayFromWindowEdge();
    const viewer = '{ viewer { id } }';
    // A venue's staff often share one address: each person has a budget of their own.
    const fromVenue = { 'x-forwarded-for': '203.0.113.40' };
    const ws = socket({ authorization: `Bearer ${person.token}` });
    expect((await overSocket(ws.client, viewer)).errors).toBeUndefined();
    for (let i = 2; i <= SESSION_QUOTA; i += 1) {
      const headers =
        i % 2 === 0
          ? { ...fromVenue, ...bearer(person.token) }
          : { 'x-forwarded-for': '198.51.100.9', ...bearer(otherSession) };
      const answer = await graphql(viewer, headers);
      expect(answer.body.data).toEqual({ viewer: { id: person.id } });
      expect(remainingOf(answer.headers, 'people')).toBe(SESSION_QUOTA - i);
      // A session not seen before is looked up after its address is counted once (see above).
      if (i > 3) expect(answer.headers.get('ratelimit-policy')).toBe(`"people";q=${SESSION_QUOTA};w=60`);
    }
    const refused = await graphql(viewer, { ...fromVenue, ...bearer(otherSession) });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(refused.body.errors?.[0]?.extensions?.code).toBe('RATE_LIMITED');
    expect(refused.body.errors?.[0]?.message).toMatch(/per signed-in person/);
    expect((await overSocket(ws.client, viewer)).errors?.[0]?.extensions?.code).toBe('RATE_LIMITED');
    expect(ws.closed()).toBe(false);
    const theirs = await graphql(viewer, { ...fromVenue, ...bearer(colleague.token) });
    expect(theirs.body.data).toEqual({ viewer: { id: colleague.id } });
    expect(remainingOf(theirs.headers, 'people')).toBe(SESSION_QUOTA - 1);
    // A token no session has counts against its address, like any invented credential.
    const invented = await graphql(viewer, {
      ...fromVenue,
      ...bearer(`ses_${randomBytes(32).toString('base64url')}`),
    });
    expect(invented.body.data).toEqual({ viewer: null });
    expect(invented.headers.get('ratelimit-policy')).toBe(`"public";q=${PUBLIC_QUOTA};w=60`);
    await ws.client.dispose();
  });

  it('counts the page’s writes and mutations without a credential in one tighter budget per address', async () => {
    const token = await ticketToken();
    await awayFromWindowEdge();
    const address = { 'x-forwarded-for': '203.0.113.20' };
    const site = platform.restUrl.replace('/api/v1', '');
    const mutation = `mutation { enableTicketAlerts(token: "${token}") { alertsEnabled } }`;
    for (let i = 1; i <= PUBLIC_WRITE_RATE_LIMIT; i += 1) {
      if (i % 2 === 0) {
        const answer = await graphql(mutation, address);
        expect(answer.body.errors).toBeUndefined();
      } else {
        const written = await fetch(`${site}/t/${token}/alerts`, { method: 'POST', headers: address });
        expect(written.status).toBe(200);
        expect(remainingOf(written.headers, 'public-writes')).toBe(PUBLIC_WRITE_RATE_LIMIT - i);
        expect(remainingOf(written.headers, 'public')).toBe(PUBLIC_QUOTA - i);
      }
    }
    const refused = await graphql(mutation, address);
    expect(refused.status).toBe(429);
    expect(refused.body.errors?.[0]?.extensions?.code).toBe('RATE_LIMITED');
    expect(refused.body.errors?.[0]?.message).toMatch(/per client address for writes/);
    expect((await fetch(`${site}/t/${token}/alerts`, { method: 'POST', headers: address })).status).toBe(429);
    // Reads from the same address still have their own budget.
    expect((await graphql(`{ ticketByToken(token: "${token}") { number } }`, address)).status).toBe(200);
  });
});
