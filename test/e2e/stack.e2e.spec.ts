import { randomUUID } from 'node:crypto';
import { DEVELOPMENT_INTERNAL_SECRET } from '../../common/config';
import { INTERNAL_CREDENTIAL_HEADER } from '../../common/internal-credential';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { startStack, type RunningStack } from '../support/processes';
import { jsonLines } from '../support/recording-logger';

interface LogLine {
  service?: string;
  requestId?: string;
  msg?: string;
}

const CV_PLANS = [
  {
    key: 'free',
    name: 'Free',
    price: 0,
    currency: 'IQD',
    interval: 'month',
    cv_limit: 2,
    download_limit: 5,
    premium_templates: false,
    watermark: true,
  },
  {
    key: 'pro',
    name: 'Pro',
    price: 10000,
    currency: 'IQD',
    interval: 'month',
    cv_limit: 25,
    download_limit: 100,
    premium_templates: true,
    watermark: false,
  },
  {
    key: 'business',
    name: 'Business',
    price: 35000,
    currency: 'IQD',
    interval: 'month',
    cv_limit: null,
    download_limit: null,
    premium_templates: true,
    watermark: false,
  },
];

describe('the whole stack, as `npm start` runs it', () => {
  let database: TestDatabase;
  let stack: RunningStack;

  beforeAll(async () => {
    database = await createTestDatabase();
    // Start from nothing: the supervisor must create the database, migrate and seed it.
    await database.drop();
    // No INTERNAL_SECRET, as on a newcomer's machine: the supervisor makes one for its children.
    stack = await startStack({
      DATABASE_URL: database.url,
      REDIS_PREFIX: `test:${database.name}:`,
      INTERNAL_SECRET: '',
    });
  }, 90_000);

  afterAll(async () => {
    await stack?.stop();
    await database.drop();
  });

  const logLines = (): LogLine[] => jsonLines<LogLine>(stack.output());

  it('serves GET /api/v1/plans without a key: the CV plans inside data', async () => {
    const response = await fetch(`${stack.restUrl}/plans`, { headers: { accept: 'application/json' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toEqual({ data: CV_PLANS });
  });

  it('closes the subgraphs to everyone but its own processes, with a secret it generated', async () => {
    for (const port of [stack.ports.tickets, stack.ports.cv, stack.ports.billing]) {
      for (const credential of [undefined, DEVELOPMENT_INTERNAL_SECRET]) {
        const response = await fetch(`http://127.0.0.1:${port}/graphql`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...(credential === undefined ? {} : { [INTERNAL_CREDENTIAL_HEADER]: credential }),
          },
          body: JSON.stringify({ query: '{ _service { sdl } }' }),
        });
        expect(response.status).toBe(401);
      }
    }
  });

  it('answers the same catalogue to GraphQL plans(product: CV) through the gateway', async () => {
    const response = await fetch(stack.gatewayUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        query:
          '{ plans(product: CV) { key name monthlyPriceIqd cv { cvLimit downloadLimit premiumTemplates watermark } } }',
      }),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      data: {
        plans: {
          key: string;
          name: string;
          monthlyPriceIqd: number;
          cv: {
            cvLimit: number | null;
            downloadLimit: number | null;
            premiumTemplates: boolean;
            watermark: boolean;
          };
        }[];
      };
    };
    expect(
      body.data.plans.map((p) => ({
        key: p.key,
        name: p.name,
        price: p.monthlyPriceIqd,
        currency: 'IQD',
        interval: 'month',
        cv_limit: p.cv.cvLimit,
        download_limit: p.cv.downloadLimit,
        premium_templates: p.cv.premiumTemplates,
        watermark: p.cv.watermark,
      })),
    ).toEqual(CV_PLANS);
  });

  it('lists the ticket plans through the graph too', async () => {
    const response = await fetch(stack.gatewayUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ plans(product: TICKETS) { key tickets { apiAccess sms } } }' }),
    });
    expect(await response.json()).toEqual({
      data: {
        plans: [
          { key: 'starter', tickets: { apiAccess: false, sms: false } },
          { key: 'growth', tickets: { apiAccess: true, sms: true } },
          { key: 'enterprise', tickets: { apiAccess: true, sms: true } },
        ],
      },
    });
  });

  it('carries one request id from the adapter through the gateway to the billing subgraph', async () => {
    const requestId = `e2e-${randomUUID()}`;
    const response = await fetch(`${stack.restUrl}/plans`, { headers: { 'x-request-id': requestId } });
    expect(response.headers.get('x-request-id')).toBe(requestId);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const services = new Set(
      logLines()
        .filter((l) => l.requestId === requestId)
        .map((l) => l.service),
    );
    expect([...services].sort()).toEqual(['billing-subgraph', 'gateway', 'rest-adapter']);
  });

  it('prints a demo key that creates and lists tickets over REST', async () => {
    const key = /Demo key: (\S+)/.exec(stack.output())?.[1];
    expect(key).toBeDefined();
    const created = await fetch(`${stack.restUrl}/tickets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ customer_name: 'Demo' }),
    });
    expect(created.status).toBe(201);
    const list = await fetch(`${stack.restUrl}/tickets`, { headers: { authorization: `Bearer ${key}` } });
    expect(((await list.json()) as { meta: { total: number } }).meta.total).toBe(1);
  });

  it('prints a demo CV key whose account has a filled-in Arabic CV', async () => {
    const key = /Demo CV key: (\S+)/.exec(stack.output())?.[1];
    const cvId = /\/cvs\/([0-9a-f-]{36})/.exec(stack.output())?.[1];
    expect([key, cvId].every((value) => value !== undefined)).toBe(true);
    const read = await fetch(`${stack.restUrl}/cvs/${cvId!}`, { headers: { 'x-api-key': key! } });
    expect(read.status).toBe(200);
    const { data } = (await read.json()) as {
      data: { locale: string; personal: { full_name: string }; sections: { experience: unknown[] } };
    };
    expect([data.locale, data.personal.full_name, data.sections.experience.length]).toEqual([
      'ar',
      'نور كريم الساعدي',
      2,
    ]);
  });

  it('prints a demo sign-in whose owner runs the demo venue and the demo CV account', async () => {
    const [, email, password] = /Demo sign-in: (\S+) \/ (\S+)/.exec(stack.output()) ?? [];
    expect([email, password].every((value) => value !== undefined)).toBe(true);
    const graph = async (query: string, variables: Record<string, unknown>, token?: string) => {
      const response = await fetch(stack.gatewayUrl, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
        body: JSON.stringify({ query, variables }),
      });
      return (await response.json()) as { data: Record<string, unknown> };
    };
    const signedIn = await graph('mutation ($i: SignInInput!) { signIn(input: $i) { token } }', {
      i: { email, password },
    });
    const token = (signedIn.data.signIn as { token: string }).token;
    const venues = await graph('{ myVenues { name viewerRole plan { key } } }', {}, token);
    expect(venues.data).toEqual({
      myVenues: [{ name: 'Demo Kitchen', viewerRole: 'OWNER', plan: { key: 'growth' } }],
    });
    const account = await graph('{ viewer { cvAccount { name plan { key } } } }', {}, token);
    expect(account.data).toEqual({
      viewer: { cvAccount: { name: 'Demo CV account', plan: { key: 'pro' } } },
    });
  });

  it('has every process alive and ready on its own port', async () => {
    for (const port of Object.values(stack.ports)) {
      const health = await fetch(`http://127.0.0.1:${port}/healthz`);
      expect(health.status).toBe(200);
      const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toMatchObject({ status: 'ready', checks: { postgres: 'ok', redis: 'ok' } });
    }
  });

  it('answers an unknown route with 404 JSON', async () => {
    const response = await fetch(`${stack.restUrl}/nothing-here`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ message: 'The route api/v1/nothing-here could not be found.' });
  });

  it('answers a malformed JSON body with 400 JSON', async () => {
    const response = await fetch(`${stack.restUrl}/plans`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"number": ',
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ message: 'The request body is not valid JSON.' });
  });

  it('answers a body over 1 MB with 413 JSON', async () => {
    const response = await fetch(`${stack.restUrl}/plans`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ note: 'x'.repeat(1024 * 1024 + 10) }),
    });
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ message: 'The request body is larger than 1 MB.' });
  });

  it('drains and stops every process on SIGTERM', async () => {
    expect(await stack.stop('SIGTERM')).toBe(0);
    const stopped = logLines()
      .filter((l) => l.msg?.endsWith(' stopped'))
      .map((l) => l.service)
      .sort();
    expect(stopped).toEqual([
      'billing-subgraph',
      'cv-subgraph',
      'gateway',
      'identity-subgraph',
      'rest-adapter',
      'tickets-events',
      'tickets-subgraph',
    ]);
  });
});
