import { createHash, randomBytes } from 'node:crypto';
import { buildClientSchema, getIntrospectionQuery, type IntrospectionQuery } from 'graphql';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { bearer, graphData, signUpPerson } from '../support/graph';
import { newTicketBranch, startPlatform, type Platform } from '../support/platform';

interface Answer {
  status: number;
  body: {
    data?: Record<string, unknown> | null;
    errors?: { message: string; extensions?: Record<string, unknown> }[];
  };
}

async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Answer['body'] };
}

const PLAN_FIELDS = 'key name monthlyPriceIqd cv { cvLimit downloadLimit premiumTemplates watermark }';

describe('the gateway bounds every operation before planning it', () => {
  let database: TestDatabase;
  let platform: Platform;

  beforeAll(async () => {
    database = await createTestDatabase();
    platform = await startPlatform(database, { PUBLIC_RATE_LIMIT: '100000' });
  });

  afterAll(async () => {
    await platform?.stop();
    await database.drop();
  });

  const graphql = (query: string, variables?: Record<string, unknown>) =>
    post(platform.gatewayUrl, { query, variables });

  const aliased = (count: number) =>
    `{ ${Array.from({ length: count }, (_, i) => `p${i}: plans(product: CV) { key }`).join(' ')} }`;

  it('refuses 500 aliases of plans with a 400 before answering any (its tokens are over first)', async () => {
    const answer = await graphql(aliased(500));
    expect(answer.status).toBe(400);
    expect(answer.body.data).toBeUndefined();
    expect(answer.body.errors?.[0]?.message).toMatch(/Document contains more tha[nt] 2000 tokens/);
  });

  it('refuses more aliases than the alias limit with a 400 naming it', async () => {
    expect((await graphql(aliased(15))).body.errors).toBeUndefined();
    const answer = await graphql(aliased(16));
    expect(answer.status).toBe(400);
    expect(answer.body.data).toBeUndefined();
    expect(answer.body.errors?.[0]?.message).toMatch(/Aliases limit of 15 exceeded, found 16/);
    expect(answer.body.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
  });

  it('refuses a query deeper than the depth limit, and answers one within it', async () => {
    const nest = (levels: number) =>
      `{ ${'... on Query { '.repeat(levels)}plans(product: CV) { key }${' }'.repeat(levels)} }`;
    expect((await graphql(nest(8))).body.errors).toBeUndefined();
    const answer = await graphql(nest(10));
    expect(answer.status).toBe(400);
    expect(answer.body.errors?.[0]?.message).toMatch(/Query depth limit of 10 exceeded, found 12/);
  });

  it('refuses more tokens than the token limit, before parsing the rest', async () => {
    const answer = await graphql(`{ ${'__typename '.repeat(2_500)}}`);
    expect(answer.status).toBe(400);
    expect(answer.body.errors?.[0]?.message).toMatch(/Document contains more tha[nt] 2000 tokens/);
  });

  it('refuses more directives than the directive limit', async () => {
    const answer = await graphql(`{ plans ${'@include(if: true) '.repeat(11)}{ key } }`);
    expect(answer.status).toBe(400);
    expect(answer.body.errors?.[0]?.message).toMatch(/Directives limit of 10 exceeded, found 11/);
  });

  it('refuses an operation whose estimated cost is over the limit, lists weighed by their page size', async () => {
    const { key } = await newTicketBranch(platform.config);
    const auth = { authorization: `Bearer ${key}` };
    const aliases = Array.from({ length: 13 }, (_, i) => `p${i}: plans { ${PLAN_FIELDS} }`).join(' ');
    const answer = await graphql(`{ ${aliases} }`);
    expect(answer.status).toBe(400);
    expect(answer.body.errors?.[0]?.message).toMatch(
      /Query cost limit of 10000 exceeded, found \d+ \(GRAPHQL_MAX_COST/,
    );
    expect(answer.body.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');

    const page = (perPage: number) =>
      post(
        platform.gatewayUrl,
        {
          query: `query ($n: Int!) { ${Array.from({ length: 10 }, (_, i) => `t${i}: tickets(perPage: $n) { items { id number status statusText customerName externalId note createdAt readyAt ringCount branch { name venue { name } } } }`).join(' ')} }`,
          variables: { n: perPage },
        },
        auth,
      );
    expect((await page(10)).body.errors).toBeUndefined();
    expect((await page(100)).status).toBe(400);
    // Variables that do not fit their types are the caller's mistake, not a server error.
    const wrong = await post(
      platform.gatewayUrl,
      { query: 'query ($n: Int!) { tickets(perPage: $n) { total } }', variables: { n: 'many' } },
      auth,
    );
    expect(wrong.status).toBe(400);
    expect(wrong.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });

  it('weighs nested pages by their page arguments and names the path that weighs most', async () => {
    const nested = (first: number) =>
      graphql(
        `{ myVenues { webhookEndpoints(first: ${first}) { deliveries(first: ${first}) { attemptLog(last: ${first}) { statusCode } } } } }`,
      );
    const refused = await nested(100);
    expect(refused.status).toBe(400);
    expect(refused.body.errors?.[0]?.message).toBe(
      'Query cost limit of 10000 exceeded, found 10101011 (GRAPHQL_MAX_COST). It weighs most at myVenues.webhookEndpoints.deliveries.attemptLog: 10 × 100 × 100 × 100: ask that list for fewer items (first, last, perPage) or split the query.',
    );
    expect(refused.body.errors?.[0]?.extensions?.cost).toEqual({
      estimated: 10101011,
      limit: 10000,
      heaviestPath: 'myVenues.webhookEndpoints.deliveries.attemptLog',
      listSizes: [10, 100, 100, 100],
    });
    // 1 + 10 × (1 + 3 × (1 + 3 × (1 + 3))) = 1,411: within the budget, so it runs (and needs a session).
    const small = await nested(3);
    expect(small.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });

  it('refuses 15 aliases of a venue’s branches asking insights, or the wait, before reading any, naming the heaviest path', async () => {
    const owner = await signUpPerson(platform.gatewayUrl, { email: 'probe@example.test', name: 'Probe' });
    const auth = bearer(owner.token);
    const { createVenue } = await graphData<{ createVenue: { id: string } }>(
      platform.gatewayUrl,
      'mutation ($i: CreateVenueInput!) { createVenue(input: $i) { id } }',
      { i: { name: 'Probe Grill', language: 'en', timezone: 'Asia/Baghdad' } },
      auth,
    );
    for (const name of ['Front', 'Back']) {
      await graphData(
        platform.gatewayUrl,
        'mutation ($i: CreateBranchInput!) { createBranch(input: $i) { id } }',
        { i: { venueId: createVenue.id, name } },
        auth,
      );
    }
    const insights = `insights(from: $from, to: $to, bucket: DAY) {
      totals { created ready collected cancelled prepP50Seconds prepP90Seconds pickupP50Seconds feedbackCount feedbackAverage }
      buckets { start created ready collected cancelled prepP50Seconds prepP90Seconds pickupP50Seconds linked rings smsSent } }`;
    const wait = 'wait { waiting oldestWaitingSince medianWaitSeconds readyLastHour alertMinutes alert }';
    // 26 days by the day: 27 buckets, as the probe asked.
    const range = { from: '2026-10-01T12:00:00Z', to: '2026-10-27T00:00:00Z' };
    const ask = (aliases: number, field: string) => {
      const ranged = field === insights;
      const branches = Array.from({ length: aliases }, (_, i) => `a${i + 1}: branches { id ${field} }`);
      return post(
        platform.gatewayUrl,
        {
          query: `query ($id: ID!${ranged ? ', $from: DateTimeISO!, $to: DateTimeISO!' : ''}) { venue(id: $id) { ${branches.join(' ')} } }`,
          variables: { id: createVenue.id, ...(ranged ? range : {}) },
        },
        auth,
      );
    };

    const refused = await ask(15, insights);
    expect(refused.status).toBe(400);
    expect(refused.body.data).toBeUndefined();
    // venue 1 + 15 × branches (1 + 50 × (id 1 + insights (200 + totals 1 + buckets (1 + 27))))
    expect(refused.body.errors?.[0]?.message).toBe(
      'Query cost limit of 10000 exceeded, found 172516 (GRAPHQL_MAX_COST). It weighs most at venue.a1.insights.buckets: 50 × 27: ask that list for fewer items (first, last, perPage) or split the query.',
    );
    expect(refused.body.errors?.[0]?.extensions).toMatchObject({
      code: 'GRAPHQL_VALIDATION_FAILED',
      cost: {
        estimated: 172516,
        limit: 10000,
        heaviestPath: 'venue.a1.insights.buckets',
        listSizes: [50, 27],
      },
    });

    const waits = await ask(15, wait);
    expect(waits.status).toBe(400);
    // venue 1 + 15 × branches (1 + 50 × (id 1 + wait (50 + 6)))
    expect(waits.body.errors?.[0]?.extensions).toMatchObject({
      code: 'GRAPHQL_VALIDATION_FAILED',
      cost: { estimated: 42766, limit: 10000, heaviestPath: 'venue.a1', listSizes: [50] },
    });
    expect(waits.body.errors?.[0]?.message).toMatch(/It weighs most at venue\.a1: 50: /);

    // As the panel asks them, they run: every branch's wait once, a branch's insights.
    const once = await ask(1, wait);
    expect(once.body.errors).toBeUndefined();
    const [branch] = (once.body.data?.venue as { a1: { id: string }[] }).a1;
    const numbers = await post(
      platform.gatewayUrl,
      {
        query: `query ($id: ID!, $from: DateTimeISO!, $to: DateTimeISO!) { branch(id: $id) { ${insights} } }`,
        variables: { id: branch?.id, ...range },
      },
      auth,
    );
    expect(numbers.body.errors).toBeUndefined();
    expect((numbers.body.data?.branch as { insights: { buckets: unknown[] } }).insights.buckets).toHaveLength(
      27,
    );
  });

  it('refuses batched HTTP requests and keeps CSRF prevention on', async () => {
    const batch = await fetch(platform.gatewayUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([{ query: '{ __typename }' }, { query: '{ __typename }' }]),
    });
    expect(batch.status).toBe(400);
    const simple = await fetch(`${platform.gatewayUrl}?query=${encodeURIComponent('{ __typename }')}`);
    expect(simple.status).toBe(400);
    expect(await simple.text()).toMatch(/Cross-Site Request Forgery/);
    const preflighted = await fetch(`${platform.gatewayUrl}?query=${encodeURIComponent('{ __typename }')}`, {
      headers: { 'apollo-require-preflight': 'true' },
    });
    expect(preflighted.status).toBe(200);
  });

  it('serves automatic persisted queries: the hash first, then the document, then the hash alone', async () => {
    const query = '{ plans(product: TICKETS) { key name } }';
    const sha256Hash = createHash('sha256').update(query).digest('hex');
    const extensions = { persistedQuery: { version: 1, sha256Hash } };
    const unknown = await post(platform.gatewayUrl, { extensions });
    expect(unknown.body.errors?.[0]?.extensions?.code).toBe('PERSISTED_QUERY_NOT_FOUND');
    const registered = await post(platform.gatewayUrl, { query, extensions });
    expect(registered.body.errors).toBeUndefined();
    const byHash = await post(platform.gatewayUrl, { extensions });
    expect(byHash.body).toEqual(registered.body);
  });

  it('answers introspection and field suggestions outside production', async () => {
    const introspection = await graphql('{ __schema { queryType { name } } }');
    expect(introspection.body.data).toEqual({ __schema: { queryType: { name: 'Query' } } });
    const typo = await graphql('{ plns { key } }');
    expect(typo.body.errors?.[0]?.message).toMatch(/Cannot query field "plns" on type "Query". Did you mean/);
  });

  it('answers the standard introspection query of GraphiQL, Codegen and the like, with descriptions, specifiedByUrl, repeatability and input deprecation', async () => {
    const query = getIntrospectionQuery({
      descriptions: true,
      specifiedByUrl: true,
      directiveIsRepeatable: true,
      schemaDescription: true,
      inputValueDeprecation: true,
    });
    const answer = await graphql(query);
    expect(answer.body.errors).toBeUndefined();
    expect(answer.status).toBe(200);
    expect(answer.body.errors).toBeUndefined();
    const schema = buildClientSchema(answer.body.data as unknown as IntrospectionQuery);
    expect(schema.getQueryType()?.getFields().myVenues).toBeDefined();
    expect(schema.getSubscriptionType()?.getFields().ticketUpdated).toBeDefined();
  });

  it('applies the same bounds to operations over graphql-ws, refusing that operation only', async () => {
    let closed = false;
    const client = createClient({
      url: platform.gatewayUrl.replace(/^http/, 'ws'),
      webSocketImpl: WebSocket,
      retryAttempts: 0,
      on: { closed: () => (closed = true) },
    });
    const run = (query: string) =>
      new Promise<{ errors?: { message: string; extensions?: { code?: string } }[]; data?: unknown }>(
        (resolve) => {
          let last = {};
          client.subscribe(
            { query },
            {
              next: (result) => (last = result),
              error: (errors) => resolve({ errors: errors as { message: string }[] }),
              complete: () => resolve(last),
            },
          );
        },
      );
    const tooMany = (await run(aliased(16))).errors?.[0];
    expect(tooMany?.message).toMatch(/Aliases limit of 15 exceeded/);
    // The codes Apollo gives the same mistakes over HTTP.
    expect(tooMany?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect((await run('{ plans(')).errors?.[0]?.extensions?.code).toBe('GRAPHQL_PARSE_FAILED');
    const deep = `subscription { ticketUpdated(token: "x") { ${'... on Ticket { '.repeat(10)}id${' }'.repeat(10)} } }`;
    expect((await run(deep)).errors?.[0]?.message).toMatch(/Query depth limit of 10 exceeded/);
    expect((await run(`{ ${'__typename '.repeat(2_500)}}`)).errors?.[0]?.message).toMatch(
      /Document contains more tha[nt] 2000 tokens/,
    );
    expect((await run('{ plans(product: CV) { key } }')).data).toEqual({
      plans: [{ key: 'free' }, { key: 'pro' }, { key: 'business' }],
    });
    expect(closed).toBe(false);
    await client.dispose();
  });
});

describe('the gateway in production', () => {
  let database: TestDatabase;
  let platform: Platform;

  beforeAll(async () => {
    database = await createTestDatabase();
    platform = await startPlatform(database, {
      NODE_ENV: 'production',
      WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64'),
      INTERNAL_SECRET: randomBytes(32).toString('base64url'),
    });
  });

  afterAll(async () => {
    await platform?.stop();
    await database.drop();
  });

  it('answers no introspection and no field suggestions', async () => {
    const introspection = await post(platform.gatewayUrl, { query: '{ __schema { queryType { name } } }' });
    expect(introspection.status).toBe(400);
    expect(introspection.body.errors?.[0]?.message).toMatch(/introspection/i);
    const typo = await post(platform.gatewayUrl, { query: '{ plns { key } }' });
    expect(typo.status).toBe(400);
    expect(typo.body.errors?.[0]?.message).toMatch(/Cannot query field "plns"/);
    expect(typo.body.errors?.[0]?.message).not.toMatch(/Did you mean/);
    const argument = await post(platform.gatewayUrl, { query: '{ plans(prodct: CV) { key } }' });
    expect(argument.body.errors?.[0]?.message).toMatch(/Unknown argument "prodct"/);
    expect(argument.body.errors?.[0]?.message).not.toMatch(/Did you mean/);

    const socket = createClient({
      url: platform.gatewayUrl.replace(/^http/, 'ws'),
      webSocketImpl: WebSocket,
      retryAttempts: 0,
    });
    const overSocket = await new Promise<{ message: string; extensions?: { code?: string } }[]>((resolve) => {
      socket.subscribe(
        { query: 'subscription { ticketUpdated(tokn: "x") { id } }' },
        { next: () => undefined, error: (errors) => resolve(errors as never), complete: () => resolve([]) },
      );
    });
    expect(overSocket[0]?.message).toMatch(/Unknown argument "tokn"/);
    expect(overSocket[0]?.message).not.toMatch(/Did you mean/);
    expect(overSocket[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
    await socket.dispose();
  });
});
