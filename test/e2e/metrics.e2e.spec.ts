import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../common/paths';
import { startEvents, type RunningEvents } from '../../subgraphs/tickets/events/events';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { newTicketBranch, startPlatform, type Platform } from '../support/platform';
import { trials } from '../support/soak';

/** Each family a process exports, beside the runtime's and `http_server_request_duration_seconds`. */
const OWN_FAMILIES: Record<string, string[]> = {
  gateway: [
    'nida_graphql_operations_total',
    'nida_graphql_refused_total',
    'nida_rate_limited_total',
    'nida_rate_limit_fail_open_total',
    'nida_subgraph_request_duration_seconds',
    'nida_subgraph_fetches_shared_total',
    'nida_live_sockets',
    'nida_live_subscriptions',
    'nida_postgres_pool_connections',
    'nida_redis_errors_total',
    'nida_redis_reconnects_total',
  ],
  'rest-adapter': [
    'nida_rate_limited_total',
    'nida_rate_limit_fail_open_total',
    'nida_postgres_pool_connections',
    'nida_redis_errors_total',
    'nida_redis_reconnects_total',
  ],
  tickets: ['nida_postgres_pool_connections', 'nida_redis_errors_total', 'nida_redis_reconnects_total'],
  billing: ['nida_postgres_pool_connections', 'nida_redis_errors_total', 'nida_redis_reconnects_total'],
  identity: ['nida_postgres_pool_connections', 'nida_redis_errors_total', 'nida_redis_reconnects_total'],
  cv: [
    'nida_cv_render_duration_seconds',
    'nida_cv_renderer_pages',
    'nida_cv_renderer_restarts_total',
    'nida_rate_limit_fail_open_total',
    'nida_postgres_pool_connections',
    'nida_redis_errors_total',
    'nida_redis_reconnects_total',
  ],
  'tickets-events': [
    'nida_outbox_pending',
    'nida_outbox_oldest_seconds',
    'nida_webhook_deliveries_total',
    'nida_webhook_delivery_duration_seconds',
    'nida_sms_total',
    'nida_push_total',
    'nida_job_queue_jobs',
    'nida_postgres_pool_connections',
    'nida_redis_errors_total',
    'nida_redis_reconnects_total',
  ],
};

const RUNTIME_FAMILIES = [
  'process_cpu_seconds_total',
  'nodejs_heap_size_used_bytes',
  'nodejs_eventloop_lag_seconds',
];

/**
 * The series of a scrape, a histogram's buckets, sum and count counted as one series: what grows
 * when a label value is new, whichever kind of family it is.
 */
function seriesOf(text: string): Set<string> {
  const histograms = [...text.matchAll(/^# TYPE (\S+) histogram$/gm)].map((match) => match[1]!);
  const series = new Set<string>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    let name = line.slice(0, line.lastIndexOf(' '));
    const family = histograms.find(
      (histogram) => /^(.+)_(bucket|sum|count)(\{|$)/.exec(name)?.[1] === histogram,
    );
    if (family !== undefined) {
      name = name
        .replace(/^[^{]+/, family)
        .replace(/,?le="[^"]*"/, '')
        .replace(/\{,?/, '{')
        .replace(/\{\}$/, '');
    }
    series.add(name);
  }
  return series;
}

const random = () => randomBytes(6).toString('hex');

describe('metrics on every process', () => {
  let database: TestDatabase;
  let platform: Platform;
  let events: RunningEvents;
  let key: string;
  let ports: Record<string, { port: number; metricsPort: number }>;

  beforeAll(async () => {
    database = await createTestDatabase();
    platform = await startPlatform(database, {
      PUBLIC_RATE_LIMIT: '1000000',
      TICKETS_RATE_LIMIT: '1000000',
    });
    events = await startEvents(platform.config);
    ({ key } = await newTicketBranch(platform.config));
    ports = {
      ...platform.ports,
      'tickets-events': { port: events.port, metricsPort: events.metricsPort },
    };
  });

  afterAll(async () => {
    await events?.stop();
    await platform?.stop();
    await database?.drop();
  });

  const scrape = async (name: string) => {
    const response = await fetch(`http://127.0.0.1:${ports[name]!.metricsPort}/metrics`);
    expect(response.status).toBe(200);
    return response.text();
  };

  it('serves every family deploy/metrics.json lists, on each process it names: no alert or panel watches nothing', async () => {
    // test/observability-rules.spec.ts holds every alert and panel to deploy/metrics.json; this holds
    // the list to what the processes serve.
    const listed = JSON.parse(readFileSync(join(projectRoot(), 'deploy/metrics.json'), 'utf8')) as {
      families: { name: string; jobs: string[] }[];
    };
    const served = Object.fromEntries(
      await Promise.all(Object.keys(ports).map(async (name) => [name, await scrape(name)] as const)),
    );
    const missing = listed.families.flatMap((family) =>
      family.jobs
        .filter((job) => !(served[job] ?? '').includes(`# TYPE ${family.name} `))
        .map((job) => `${job}: ${family.name}`),
    );
    expect(missing).toEqual([]);
  });

  it('answers /metrics on each internal port with its families, and 404 on each public port', async () => {
    expect(Object.keys(ports).sort()).toEqual(Object.keys(OWN_FAMILIES).sort());
    for (const [name, { port, metricsPort }] of Object.entries(ports)) {
      expect(metricsPort).not.toBe(port);
      const text = await scrape(name);
      for (const family of [...RUNTIME_FAMILIES, ...OWN_FAMILIES[name]!]) {
        expect({ name, family, exported: text.includes(`# TYPE ${family} `) }).toEqual({
          name,
          family,
          exported: true,
        });
      }
      const onPublic = await fetch(`http://127.0.0.1:${port}/metrics`);
      expect({ name, status: onPublic.status }).toEqual({ name, status: 404 });
      expect(await onPublic.text()).not.toContain('process_cpu_seconds_total');
    }
    // Every process with an HTTP server has the duration histogram once it has served a request.
    expect(await scrape('tickets-events')).toContain('# TYPE http_server_request_duration_seconds histogram');
  });

  it('counts refusals by the limit broken and times subgraph fetches by subgraph', async () => {
    // With a key: only a credential the graph knows may give an operation name a series of its own.
    const post = (query: string | undefined, extensions?: unknown) =>
      fetch(platform.gatewayUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ query, extensions }),
      }).then((answer) => answer.arrayBuffer());
    const deep = `query Deep { plans { ${'a { '.repeat(12)}b${' }'.repeat(12)} } }`;
    await post('query Catalogue { plans { key } }');
    await post(deep);
    await post(`query Wide { ${Array.from({ length: 30 }, (_, i) => `p${i}: plans { key }`).join(' ')} }`);
    await post(`query Long { plans { ${'key '.repeat(3_000)} } }`);
    await post(
      'query Heavy { myVenues { webhookEndpoints(first: 100) { deliveries(first: 100) { attemptLog(last: 100) { statusCode } } } } }',
    );
    await post(undefined, { persistedQuery: { version: 1, sha256Hash: 'a'.repeat(64) } });
    const gateway = await scrape('gateway');
    for (const reason of ['depth', 'aliases', 'tokens', 'cost', 'persisted_query_miss']) {
      expect(gateway).toMatch(new RegExp(`nida_graphql_refused_total\\{reason="${reason}"\\} [1-9]`));
    }
    expect(gateway).toMatch(
      /nida_graphql_operations_total\{operation_type="query",operation_name="Deep",result="refused"\} 1/,
    );
    expect(gateway).toMatch(/nida_subgraph_request_duration_seconds_count\{subgraph="billing"\} [1-9]/);
  });

  it('receives the REST adapter’s operations by their hash alone once the gateway holds the document', async () => {
    const misses = async () =>
      Number(
        /nida_graphql_refused_total\{reason="persisted_query_miss"\} (\d+)/.exec(
          await scrape('gateway'),
        )?.[1] ?? 0,
      );
    const byExternalId = () =>
      fetch(`${platform.restUrl}/tickets/by-external/${random()}`, {
        headers: { authorization: `Bearer ${key}` },
      }).then((answer) => answer.status);
    // The key's first sight asks the graph who it is, an operation of its own: done before counting.
    await fetch(`${platform.restUrl}/tickets?per_page=1`, { headers: { authorization: `Bearer ${key}` } });
    const before = await misses();
    // The gateway has not seen this operation yet: its hash misses once, and the document follows.
    expect(await byExternalId()).toBe(404);
    expect(await misses()).toBe(before + 1);
    expect(await Promise.all([byExternalId(), byExternalId(), byExternalId()])).toEqual([404, 404, 404]);
    expect(await misses()).toBe(before + 1);
  });

  it('keeps the operation-name places for the platform and credentialed clients: 200 invented anonymous names take none', async () => {
    const ask = (name: string, headers: Record<string, string> = {}) =>
      fetch(platform.gatewayUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ query: `query ${name} { plans { key } }`, operationName: name }),
      }).then((answer) => answer.arrayBuffer());
    const invented = Array.from({ length: 200 }, () => `Filler${random()}`);
    for (let sent = 0; sent < invented.length; sent += 20) {
      await Promise.all(invented.slice(sent, sent + 20).map((name) => ask(name)));
    }
    await ask('KeyedCatalogue', { authorization: `Bearer ${key}` });
    // The ticket page's own operation, which the REST adapter sends for GET /t/{token}.
    const created = await fetch(`${platform.restUrl}/tickets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({}),
    });
    const { public_url: publicUrl } = (await created.json()) as { public_url: string };
    const page = await fetch(
      publicUrl.replace(platform.config.publicBaseUrl, new URL(platform.restUrl).origin),
    );
    expect(page.status).toBe(200);
    await page.arrayBuffer();

    const names = new Set(
      [
        ...(await scrape('gateway')).matchAll(
          /nida_graphql_operations_total\{[^}]*operation_name="([^"]*)"/g,
        ),
      ].map((m) => m[1]),
    );
    expect(names.has('KeyedCatalogue')).toBe(true);
    expect(names.has('TicketPageOpen')).toBe(true);
    expect(names.has('other')).toBe(true);
    expect([...names].filter((name) => name?.startsWith('Filler'))).toEqual([]);
  });

  /** Distinct ids, tokens and names sent once past the gateway's cap of names: none may add a series. */
  const PAST_THE_CAP = trials({ test: 200, soak: 800 });

  it(`keeps the number of series flat over ${(200 + PAST_THE_CAP).toLocaleString('en')} distinct ids, tokens and operation names`, async () => {
    const send = async (count: number) => {
      const one = async () => {
        const id = String(Math.floor(Math.random() * 1e12));
        const name = `Op${random()}`;
        const answers = await Promise.all([
          fetch(`${platform.restUrl}/tickets/${id}`, { headers: { authorization: `Bearer ${key}` } }),
          fetch(`${platform.restUrl.replace('/api/v1', '')}/t/${random()}${random()}`),
          fetch(platform.gatewayUrl, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ query: `query ${name} { plans { key } }`, operationName: name }),
          }),
        ]);
        await Promise.all(answers.map((answer) => answer.arrayBuffer()));
      };
      for (let sent = 0; sent < count; sent += 20) await Promise.all(Array.from({ length: 20 }, one));
    };
    const affected = ['rest-adapter', 'gateway', 'tickets', 'billing'];
    const counts = async () =>
      Object.fromEntries(
        await Promise.all(affected.map(async (name) => [name, seriesOf(await scrape(name))])),
      ) as Record<string, Set<string>>;

    // Past the gateway's cap of distinct operation names, so what follows can only reuse series.
    await send(200);
    const before = await counts();
    await send(PAST_THE_CAP);
    const after = await counts();
    for (const name of affected) {
      const grown = [...after[name]!].filter((series) => !before[name]!.has(series));
      expect({ name, grown: grown.filter((series) => !/^(nodejs|process)_/.test(series)) }).toEqual({
        name,
        grown: [],
      });
      // The runtime's own (a GC kind seen for the first time) may add a handful, never one per request.
      expect({ name, runtime: grown.length <= 5 }).toEqual({ name, runtime: true });
    }
    const gateway = await scrape('gateway');
    const names = new Set(
      [...gateway.matchAll(/nida_graphql_operations_total\{[^}]*operation_name="([^"]*)"/g)].map((m) => m[1]),
    );
    expect(names.has('other')).toBe(true);
    expect(names.size).toBeLessThanOrEqual(101);
    const adapter = await scrape('rest-adapter');
    expect(adapter).toContain('http_route="/api/v1/tickets/{id}"');
    expect(adapter).toContain('http_route="/t/{token}"');
    expect(adapter).not.toMatch(/http_route="[^"]*\d{4,}/);
  }, 180_000);
});
