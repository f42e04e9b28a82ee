import { Writable } from 'node:stream';
import { context, propagation, trace } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { createLogger } from './logger';
import { startTelemetry, traceExportOf } from './telemetry';
import { RedactingSpanProcessor } from './telemetry-sdk';
import { currentTraceparent, currentTraceresponse, inSpan, linkTo, traceHeaders } from './trace-context';

const ENDPOINT = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' };

describe('traceExportOf: tracing is on only when an OTLP endpoint is set and nothing turns it off', () => {
  it('is off with no endpoint, whatever else is set', () => {
    expect(traceExportOf({})).toBeUndefined();
    expect(
      traceExportOf({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_SERVICE_NAME: 'x' }),
    ).toBeUndefined();
    expect(traceExportOf({ OTEL_EXPORTER_OTLP_ENDPOINT: '  ' })).toBeUndefined();
  });

  it('is off with OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none, endpoint or not', () => {
    expect(traceExportOf({ ...ENDPOINT, OTEL_SDK_DISABLED: 'true' })).toBeUndefined();
    expect(traceExportOf({ ...ENDPOINT, OTEL_SDK_DISABLED: 'TRUE' })).toBeUndefined();
    expect(traceExportOf({ ...ENDPOINT, OTEL_TRACES_EXPORTER: 'none' })).toBeUndefined();
    expect(traceExportOf({ ...ENDPOINT, OTEL_SDK_DISABLED: 'false' })).toEqual({ protocol: 'http/protobuf' });
  });

  it("speaks http/protobuf unless told http/json; the traces' own variables win", () => {
    expect(traceExportOf(ENDPOINT)).toEqual({ protocol: 'http/protobuf' });
    expect(traceExportOf({ ...ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })).toEqual({
      protocol: 'http/json',
    });
    expect(
      traceExportOf({
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
      }),
    ).toEqual({ protocol: 'http/json' });
  });

  it('refuses a protocol it cannot speak rather than exporting nothing in silence', () => {
    expect(() => traceExportOf({ ...ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(
      'OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported: use http/protobuf or http/json',
    );
  });
});

describe('with tracing off', () => {
  it('starts nothing: no tracer provider, spans that record nothing, no trace headers', async () => {
    expect(startTelemetry('tickets', {})).toBeUndefined();
    const span = trace.getTracer('probe').startSpan('probe');
    expect(span.isRecording()).toBe(false);
    span.end();
    await inSpan('work', {}, () => {
      expect(currentTraceparent()).toBeNull();
      expect(currentTraceresponse()).toBeUndefined();
      return Promise.resolve();
    });
  });
});

describe('inside a trace', () => {
  const exporter = new InMemorySpanExporter();

  // As startTelemetry registers it (context manager, propagator, provider), exporting to memory.
  beforeAll(() => new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).register());

  afterAll(() => {
    trace.disable();
    context.disable();
    propagation.disable();
  });

  it('writes trace_id and span_id on every log line inside a span, and neither outside one', async () => {
    const lines: Record<string, unknown>[] = [];
    const logger = createLogger({
      service: 'probe',
      level: 'info',
      destination: new Writable({
        write(chunk: Buffer, _encoding, done) {
          lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
          done();
        },
      }),
    });
    let ids: { traceId: string; spanId: string } | undefined;
    await inSpan('work', {}, async () => {
      ids = trace.getActiveSpan()!.spanContext();
      logger.info('inside');
      await Promise.resolve();
      logger.info('after an await, still inside');
    });
    logger.info('outside');
    expect(lines.map((l) => [l.msg, l.trace_id, l.span_id])).toEqual([
      ['inside', ids!.traceId, ids!.spanId],
      ['after an await, still inside', ids!.traceId, ids!.spanId],
      ['outside', undefined, undefined],
    ]);
  });

  it('continues a stored traceparent as the parent of a later span, and links to one', async () => {
    const stored = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    await inSpan('delivery', { parent: stored }, () => {
      expect(currentTraceparent()).toMatch(/^00-0af7651916cd43dd8448eb211c80319c-[0-9a-f]{16}-01$/);
      return Promise.resolve();
    });
    await inSpan('publish', { parent: null, links: linkTo(stored) }, () => Promise.resolve());
    const [delivery, publish] = exporter.getFinishedSpans().slice(-2);
    expect(delivery!.parentSpanContext?.spanId).toBe('b7ad6b7169203331');
    expect(publish!.spanContext().traceId).not.toBe('0af7651916cd43dd8448eb211c80319c');
    expect(publish!.parentSpanContext).toBeUndefined();
    expect(publish!.links.map((l) => l.context.spanId)).toEqual(['b7ad6b7169203331']);
  });

  it('puts the active trace on the headers of a request leaving the platform', async () => {
    await inSpan('webhook', {}, () => {
      expect(traceHeaders().traceparent).toBe(currentTraceparent());
      return Promise.resolve();
    });
  });

  it('ignores a stored traceparent that is not one, starting a trace of its own', async () => {
    await inSpan('delivery', { parent: 'not-a-traceparent' }, () => Promise.resolve());
    expect(linkTo('00-zz')).toEqual([]);
    expect(exporter.getFinishedSpans().at(-1)!.parentSpanContext).toBeUndefined();
  });

  it('marks a span that threw as failed and rethrows', async () => {
    await expect(inSpan('failing', {}, () => Promise.reject(new Error('receiver away')))).rejects.toThrow(
      'receiver away',
    );
    const failed = exporter.getFinishedSpans().at(-1)!;
    expect(failed.status.code).toBe(2);
    expect(failed.events.map((e) => e.name)).toEqual(['exception']);
  });
});

describe('what a span carries out of the process', () => {
  const TOKEN = 'Zq3v9Xk2LmNp4Rs7Tu8Vw1Yx5Ab6Cd0E';
  const SIGNATURE = 'k1J2h3G4f5D6s7A8q9W0e1R2t3Y4u5I6o7P8a9S0d1F';

  it('holds no capability token, signature or SQL literal in its name, attributes, events or status', async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({
      spanProcessors: [new RedactingSpanProcessor(), new SimpleSpanProcessor(exporter)],
    });
    const span = provider.getTracer('probe').startSpan(`GET /t/${TOKEN}`, {
      attributes: { 'url.path': `/t/${TOKEN}/qr.png`, 'http.request.method': 'GET' },
    });
    // Set after the start, as the http instrumentation sets the route and the status at the answer.
    span.setAttribute(
      'url.full',
      `http://127.0.0.1:4001/internal/ticket-exports.csv?branch=1&signature=${SIGNATURE}`,
    );
    span.setAttribute('url.query', `branch=1&signature=${SIGNATURE}`);
    span.setAttribute('db.query.text', `select * from tickets.tickets where token = '${TOKEN}'`);
    span.setAttribute('http.route', '/t/:token/qr.png');
    span.setAttribute('nida.paths', [`/cv/${TOKEN}`, '/board']);
    span.recordException(new Error(`fetching /display/dsp_${TOKEN} failed`));
    span.setStatus({ code: 2, message: `GET /t/${TOKEN} failed` });
    span.end();
    await provider.forceFlush();

    const [exported] = exporter.getFinishedSpans();
    const written = JSON.stringify({
      name: exported!.name,
      attributes: exported!.attributes,
      events: exported!.events,
      status: exported!.status,
    });
    expect(written).not.toContain(TOKEN);
    expect(written).not.toContain(SIGNATURE);
    expect(exported!.name).toMatch(/^GET \/t\/\{token:[0-9a-f]{8}\}$/);
    expect(exported!.attributes).toMatchObject({
      'url.path': expect.stringMatching(/^\/t\/\{token:[0-9a-f]{8}\}\/qr\.png$/) as unknown,
      'url.query': 'branch=1&signature=[redacted]',
      'db.query.text': "select * from tickets.tickets where token = '?'",
      'http.route': '/t/:token/qr.png',
      'http.request.method': 'GET',
    });
    await provider.shutdown();
  });
});
