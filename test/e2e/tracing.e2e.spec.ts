import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadConfig, type Config } from '../../common/config';
import { projectRoot } from '../../common/paths';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { OtlpReceiver, spanTree, type ReceivedSpan } from '../support/otlp-receiver';
import { newTicketBranch, type TicketBranch, hookReceiver } from '../support/platform';
import { startStack, type RunningStack } from '../support/processes';
import { waitUntil } from '../support/wait';
import { WebhookReceiver } from '../support/webhook-receiver';
import { jsonLines } from '../support/recording-logger';

const hex = (bytes: number) => randomBytes(bytes).toString('hex');
const traceIdOf = (header: string | string[] | null | undefined) =>
  (Array.isArray(header) ? header[0] : header)?.split('-')[1];

interface LogLine {
  service?: string;
  msg?: string;
  trace_id?: string;
  span_id?: string;
}

describe('one trace from a POS request to its webhook, exported by every process over OTLP/HTTP JSON', () => {
  let database: TestDatabase;
  let stack: RunningStack;
  let config: Config;
  let branch: TicketBranch;
  const collector = new OtlpReceiver();
  const receiver = new WebhookReceiver();

  beforeAll(async () => {
    database = await createTestDatabase();
    const env: NodeJS.ProcessEnv = {
      DATABASE_URL: database.url,
      REDIS_PREFIX: `test:${database.name}:`,
      WEBHOOK_ALLOW_INSECURE: 'true',
      LOG_LEVEL: 'info',
      OTEL_EXPORTER_OTLP_ENDPOINT: await collector.start(),
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '100',
      OTEL_TRACES_SAMPLER: 'parentbased_always_on',
      // The POS reaches the adapter through the platform's own proxy, whose traceparent is honoured.
      TRUSTED_PROXIES: '127.0.0.1',
    };
    stack = await startStack(env);
    config = loadConfig({ ...process.env, ...env, INTERNAL_SECRET: stack.internalSecret });
    branch = await newTicketBranch(config);
    await hookReceiver(config, branch.venueId, receiver, 'ticket.created');
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    await receiver.stop();
    await collector.stop();
    await database?.drop();
  });

  it("continues a POS's traceparent, passed on by a trusted proxy, through the adapter, gateway, tickets, Postgres and the webhook", async () => {
    const traceId = hex(16);
    const posSpanId = hex(8);
    const response = await fetch(`${stack.restUrl}/tickets`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${branch.key}`,
        'content-type': 'application/json',
        traceparent: `00-${traceId}-${posSpanId}-01`,
      },
      body: JSON.stringify({ external_id: 'POS-TRACE-1' }),
    });
    expect(response.status).toBe(201);
    // The trace id to quote in a support request, beside the request id that was always there.
    expect(traceIdOf(response.headers.get('traceresponse'))).toBe(traceId);
    expect(response.headers.get('x-request-id')).toBeTruthy();

    await receiver.waitFor((received) => received.length >= 1);
    const [webhook] = receiver.received;
    expect(webhook!.verdict.ok).toBe(true);
    expect(webhook!.headers.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    expect(traceIdOf(webhook!.headers.traceparent)).toBe(traceId);

    const spans = () => collector.trace(traceId);
    const ancestorsIn = (trace: ReceivedSpan[], span: ReceivedSpan): ReceivedSpan[] => {
      const byId = new Map(trace.map((s) => [s.spanId, s]));
      const up = (from: ReceivedSpan): ReceivedSpan[] => {
        const parent = byId.get(from.parentSpanId);
        return parent === undefined ? [] : [parent, ...up(parent)];
      };
      return up(span);
    };
    const chainOf = (trace: ReceivedSpan[]) => {
      const adapterServer = trace.find((s) => s.service === 'rest-adapter' && s.parentSpanId === posSpanId);
      const delivery = trace.find(
        (s) => s.service === 'tickets-events' && s.name.startsWith('webhook deliver'),
      );
      const postgres = trace.find((s) => s.service === 'tickets' && isPostgres(s));
      return { adapterServer, delivery, postgres };
    };
    // Each process exports on its own schedule, and a parent span ends (and is queued) only after
    // its children: the test waits until the chain from the POS's span down to the webhook delivery
    // and the Postgres query is whole, rather than for the leaves alone.
    await waitUntil(
      () => {
        const trace = spans();
        const { adapterServer, delivery, postgres } = chainOf(trace);
        if (adapterServer === undefined || delivery === undefined || postgres === undefined) return false;
        const services = new Set(ancestorsIn(trace, delivery).map((s) => s.service));
        return (
          ['tickets-events', 'tickets', 'gateway', 'rest-adapter'].every((service) =>
            services.has(service),
          ) &&
          ancestorsIn(trace, postgres).includes(adapterServer) &&
          trace.some((s) => s.service === 'gateway' && s.name === 'subgraph tickets')
        );
      },
      15_000,
      'the chain of spans from the POS through the adapter, gateway, tickets, Postgres and the webhook delivery',
    );
    const trace = spans();
    const tree = spanTree(trace);
    process.stdout.write(`trace ${traceId}:\n${tree}\n`);
    await mkdir(join(projectRoot(), 'test-artifacts'), { recursive: true });
    await writeFile(join(projectRoot(), 'test-artifacts', 'trace-tree.txt'), `trace ${traceId}\n${tree}\n`);

    // The POS's span is the parent of the adapter's server span.
    const { adapterServer, delivery, postgres } = chainOf(trace);
    expect(adapterServer).toBeDefined();
    expect(adapterServer!.kind).toBe(2); // SERVER
    for (const service of ['rest-adapter', 'gateway', 'tickets', 'tickets-events']) {
      expect(trace.some((s) => s.service === service)).toBe(true);
    }
    // Each link of the chain is a child of the one before it, not a trace of its own per process.
    expect(ancestorsIn(trace, delivery!).map((s) => s.service)).toEqual(
      expect.arrayContaining(['tickets-events', 'tickets', 'gateway', 'rest-adapter']),
    );
    expect(ancestorsIn(trace, postgres!)).toContain(adapterServer);
  });

  it('names the trace and span in every log line written inside it', async () => {
    const traceId = hex(16);
    const response = await fetch(`${stack.restUrl}/tickets`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${branch.key}`,
        'content-type': 'application/json',
        traceparent: `00-${traceId}-${hex(8)}-01`,
      },
      body: JSON.stringify({ external_id: 'POS-TRACE-2' }),
    });
    expect(response.status).toBe(201);
    const lines = () => jsonLines<LogLine>(stack.output()).filter((line) => line.trace_id === traceId);
    await waitUntil(
      () => lines().some((l) => l.service === 'tickets-events' && l.msg === 'webhook attempt'),
      15_000,
      'the webhook attempt logged with the trace id',
    );
    const services = new Set(lines().map((l) => l.service));
    expect(services).toEqual(new Set(['rest-adapter', 'gateway', 'tickets-subgraph', 'tickets-events']));
    for (const line of lines()) expect(line.span_id).toMatch(/^[0-9a-f]{16}$/);
  });

  it('makes the text of a ready ticket a span of the trace of the request that readied it', async () => {
    const smsBranch = await newTicketBranch(config, { sms: 'on' });
    const call = (path: string, body: unknown, traceparent?: string) =>
      fetch(`${stack.restUrl}${path}`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${smsBranch.key}`,
          'content-type': 'application/json',
          ...(traceparent === undefined ? {} : { traceparent }),
        },
        body: JSON.stringify(body),
      });
    const created = (await (await call('/tickets', { customer_phone: '0770 123 4567' })).json()) as {
      id: number;
    };
    const traceId = hex(16);
    expect((await call(`/tickets/${created.id}/ready`, {}, `00-${traceId}-${hex(8)}-01`)).status).toBe(200);
    await waitUntil(
      () => collector.trace(traceId).some((s) => s.service === 'tickets-events' && s.name === 'sms send'),
      15_000,
      'the text sent in the trace of the ready call',
    );
  });

  it('links the live message of a change to the trace of that change', async () => {
    const traceId = hex(16);
    await fetch(`${stack.restUrl}/tickets`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${branch.key}`,
        'content-type': 'application/json',
        traceparent: `00-${traceId}-${hex(8)}-01`,
      },
      body: JSON.stringify({ external_id: 'POS-TRACE-3' }),
    });
    const linked = () =>
      collector.spans.find(
        (s) => s.name.startsWith('live publish') && s.links.some((l) => l.traceId === traceId),
      );
    await waitUntil(() => linked() !== undefined, 15_000, 'the live publication linked to the change');
    expect(linked()!.service).toBe('tickets-events');
    expect(linked()!.traceId).not.toBe(traceId);
  });
});

function isPostgres(span: ReceivedSpan): boolean {
  return span.attributes['db.system'] === 'postgresql' || span.attributes['db.system.name'] === 'postgresql';
}
