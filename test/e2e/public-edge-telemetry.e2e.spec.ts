import { createHash, randomBytes } from 'node:crypto';
import { loadConfig, type Config } from '../../common/config';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { bearer, graphData, type SignedUp } from '../support/graph';
import { OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver';
import { newBranchKey, newCvAccount, platformTemplateId } from '../support/platform';
import { startStack, type RunningStack } from '../support/processes';
import { venuePeople } from '../support/venue-people';
import { waitUntil } from '../support/wait';
import { jsonLines } from '../support/recording-logger';

const fingerprint = (token: string) => createHash('sha256').update(token).digest('hex').slice(0, 8);
const hex = (bytes: number) => randomBytes(bytes).toString('hex');

interface LogLine {
  service?: string;
  msg?: string;
  path?: string;
  status?: number;
}

const SERVER = 2;

describe('what the public edge leaves in logs and traces', () => {
  let database: TestDatabase;
  let stack: RunningStack;
  let config: Config;
  const collector = new OtlpReceiver();
  /** Where the adapter serves its pages, as PUBLIC_BASE_URL names it for the outside. */
  let origin: string;
  const local = (url: string) => url.replace(config.publicBaseUrl, origin);

  const people = venuePeople(
    () => stack.gatewayUrl,
    () => database,
    'edge-telemetry',
  );
  let owner: SignedUp;
  let ticketToken: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    const env: NodeJS.ProcessEnv = {
      DATABASE_URL: database.url,
      REDIS_PREFIX: `test:${database.name}:`,
      LOG_LEVEL: 'info',
      OTEL_EXPORTER_OTLP_ENDPOINT: await collector.start(),
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '100',
      OTEL_TRACES_SAMPLER: 'parentbased_always_on',
    };
    stack = await startStack(env);
    config = loadConfig({ ...process.env, ...env, INTERNAL_SECRET: stack.internalSecret });
    origin = new URL(stack.restUrl).origin;
    owner = await people.person();
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    await collector.stop();
    await database?.drop();
  });

  const logLines = (): LogLine[] => jsonLines<LogLine>(stack.output());

  const serverSpan = (route: string) =>
    collector.spans.find(
      (s) => s.service === 'rest-adapter' && s.kind === SERVER && s.attributes['http.route'] === route,
    );

  const statementOf = (span: ReceivedSpan) =>
    String(span.attributes['db.query.text'] ?? span.attributes['db.statement'] ?? '');

  it('names no ticket, display or share token and no export signature in any log line or span, yet names each route', async () => {
    const { venueId, branchId } = await people.venueWithBranch(owner);
    await graphData(
      stack.gatewayUrl,
      'mutation ($i: ChangePlanInput!) { changePlan(input: $i) { key } }',
      { i: { venueId, plan: 'growth' } },
      bearer(owner.token),
    );
    const { key } = await newBranchKey(config, Number(branchId));
    const created = await fetch(`${stack.restUrl}/tickets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ external_id: 'EDGE-1' }),
    });
    expect(created.status).toBe(201);
    const publicUrl = ((await created.json()) as { public_url: string }).public_url;
    ticketToken = publicUrl.split('/').at(-1)!;

    const { createDisplay } = await graphData<{ createDisplay: { url: string } }>(
      stack.gatewayUrl,
      'mutation ($i: CreateDisplayInput!) { createDisplay(input: $i) { url } }',
      { i: { branchId, name: 'Wall', language: 'en' } },
      bearer(owner.token),
    );
    const displayToken = createDisplay.url.split('/').at(-1)!;

    const account = await newCvAccount(config);
    const cv = await fetch(`${stack.restUrl}/cvs`, {
      method: 'POST',
      headers: { 'x-api-key': account.key, 'content-type': 'application/json' },
      body: JSON.stringify({
        title: 'Engineer CV',
        locale: 'ar',
        template_id: await platformTemplateId(database, 'classic'),
      }),
    });
    expect(cv.status).toBe(201);
    const share = ((await cv.json()) as { data: { links: { share: string } } }).data.links.share;
    const shareToken = share.split('/').at(-1)!;

    const { exportTicketsCsv } = await graphData<{ exportTicketsCsv: { url: string } }>(
      stack.gatewayUrl,
      `query ($b: ID!, $from: DateTimeISO!, $to: DateTimeISO!) {
        exportTicketsCsv(branchId: $b, from: $from, to: $to) { url }
      }`,
      {
        b: branchId,
        from: new Date(Date.now() - 3_600_000).toISOString(),
        to: new Date(Date.now() + 3_600_000).toISOString(),
      },
      bearer(owner.token),
    );
    const signature = new URL(exportTicketsCsv.url).searchParams.get('signature')!;
    const secrets = { ticketToken, displayToken, shareToken, signature };
    for (const secret of Object.values(secrets)) expect(secret.length).toBeGreaterThanOrEqual(32);

    for (const url of [publicUrl, `${publicUrl}/qr.png`, createDisplay.url, share, exportTicketsCsv.url]) {
      const opened = await fetch(local(url));
      expect({ url, status: opened.status }).toEqual({ url, status: 200 });
      await opened.arrayBuffer();
    }

    const routes = ['/t/:token', '/t/:token/qr.png', '/display/:token', '/cv/:token', '/exports/tickets.csv'];
    const accessPaths = [
      `/t/{token:${fingerprint(ticketToken)}}`,
      `/t/{token:${fingerprint(ticketToken)}}/qr.png`,
      `/display/{token:${fingerprint(displayToken)}}`,
      `/cv/{token:${fingerprint(shareToken)}}`,
      '/exports/tickets.csv',
    ];
    const pageLines = () =>
      logLines().filter(
        (l) =>
          l.service === 'rest-adapter' &&
          l.msg === 'request' &&
          /^\/(t|display|cv|exports)\//.test(l.path ?? ''),
      );
    await waitUntil(
      () =>
        routes.every((route) => serverSpan(route) !== undefined) &&
        pageLines().length >= accessPaths.length &&
        // The reads behind the pages, each written with its token inline by MikroORM.
        collector.spans.some((s) => s.service === 'tickets' && /\btoken = /.test(statementOf(s))) &&
        collector.spans.some((s) => s.service === 'cv' && /\bshare_token = /.test(statementOf(s))) &&
        collector.spans.some(
          (s) => s.service === 'tickets' && s.attributes['url.path'] === '/internal/ticket-exports.csv',
        ),
      20_000,
      'the access lines and the spans of the four pages, their reads and the export',
    );

    // Every process exports on its own schedule: what any of them still holds arrives first.
    let heard = -1;
    await waitUntil(
      async () => {
        const now = collector.bodies.length;
        await new Promise((resolve) => setTimeout(resolve, 500));
        const settled = now === heard && now === collector.bodies.length;
        heard = now;
        return settled;
      },
      20_000,
      'the exporters to have sent what they hold',
    );
    const exported = collector.bodies.join('\n');
    const logged = stack.output();
    const found = Object.entries(secrets).flatMap(([name, secret]) => [
      ...(exported.includes(secret) ? [`${name} in a span`] : []),
      ...(logged.includes(secret) ? [`${name} in a log line`] : []),
    ]);
    expect(found).toEqual([]);
    // The routes are still there to read: templates on the spans, fingerprints in paths and lines.
    expect(new Set(pageLines().map((l) => l.path))).toEqual(new Set(accessPaths));
    expect(serverSpan('/t/:token')!.attributes['url.path']).toBe(accessPaths[0]);
    expect(serverSpan('/display/:token')!.attributes['url.path']).toBe(accessPaths[2]);
    expect(serverSpan('/cv/:token')!.name).toBe('GET /cv/:token');
    const query = String(serverSpan('/exports/tickets.csv')!.attributes['url.query']);
    expect(query).toMatch(/^branch=\d+&from=.*&signature=\[redacted\]$/);
  }, 120_000);

  it("starts the platform's own trace for an outside caller's traceparent, links it, and carries it through the gateway", async () => {
    const callerTrace = hex(16);
    const callerSpan = hex(8);
    const page = await fetch(`${origin}/t/${ticketToken}`, {
      headers: { traceparent: `00-${callerTrace}-${callerSpan}-01` },
    });
    expect(page.status).toBe(200);
    await page.arrayBuffer();
    const traceId = page.headers.get('traceresponse')?.split('-')[1];
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(traceId).not.toBe(callerTrace);
    await waitUntil(
      () =>
        collector.trace(traceId!).some((s) => s.service === 'rest-adapter' && s.kind === SERVER) &&
        collector.trace(traceId!).some((s) => s.service === 'gateway' && s.kind === SERVER),
      15_000,
      "the page's request traced through the adapter and the gateway",
    );
    const adapter = collector.trace(traceId!).find((s) => s.service === 'rest-adapter' && s.kind === SERVER)!;
    expect(adapter.parentSpanId).toBe('');
    expect(adapter.links).toEqual([{ traceId: callerTrace, spanId: callerSpan }]);
    expect(collector.trace(callerTrace)).toEqual([]);
  });
});
