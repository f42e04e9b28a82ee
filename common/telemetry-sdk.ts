import type { IncomingMessage } from 'node:http';
import {
  diag,
  DiagLogLevel,
  type Attributes,
  type DiagLogger,
  type Span as ApiSpan,
} from '@opentelemetry/api';
import { OTLPTraceExporter as OtlpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { ExpressInstrumentation, ExpressLayerType } from '@opentelemetry/instrumentation-express';
import { GraphQLInstrumentation } from '@opentelemetry/instrumentation-graphql';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import {
  detectResources,
  envDetector,
  hostDetector,
  processDetector,
  resourceFromAttributes,
} from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  type Span,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { redactAttribute, redactUrl } from './redaction';
import type { Telemetry } from './telemetry';
import { isCallerTraceTrusted, linkTo } from './trace-context';

/** The SDK's own complaints (an exporter that cannot reach its collector) as one JSON line each. */
function stderrDiagLogger(serviceName: string): DiagLogger {
  const write =
    (level: string) =>
    (message: string, ...args: unknown[]) => {
      const detail = args.map((a) => (a instanceof Error ? a.message : String(a))).join(' ');
      process.stderr.write(
        `${JSON.stringify({ level, service: serviceName, msg: `opentelemetry: ${message} ${detail}`.trim() })}\n`,
      );
    };
  return {
    error: write('error'),
    warn: write('warn'),
    info: () => undefined,
    debug: () => undefined,
    verbose: () => undefined,
  };
}

const UNTRACED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/** The W3C headers by which a caller says which trace a request belongs to. */
const CALLER_CONTEXT_HEADERS = ['traceparent', 'tracestate', 'baggage'] as const;

/** The `traceparent` an untrusted caller sent, by its request, kept for its server span's link. */
const untrustedParents = new WeakMap<object, string>();

/**
 * A caller that is neither a trusted proxy nor the platform (common/trace-context.ts) chooses
 * neither the trace nor whether it is sampled: its trace headers are taken off the request before
 * the instrumentation reads them, so its server span starts a trace of the platform's own, sampled
 * by the platform's sampler, and `linkCallerTrace` then links that span to the caller's.
 */
function setAsideUntrustedTrace(request: IncomingMessage): void {
  const traceparent = request.headers.traceparent;
  if (traceparent === undefined || isCallerTraceTrusted(request)) return;
  for (const header of CALLER_CONTEXT_HEADERS) delete request.headers[header];
  untrustedParents.set(request, Array.isArray(traceparent) ? (traceparent[0] ?? '') : traceparent);
}

function linkCallerTrace(span: ApiSpan, request: object): void {
  const traceparent = untrustedParents.get(request);
  if (traceparent !== undefined) span.addLinks(linkTo(traceparent));
}

/** Each string (or string in a list) of `attributes` as common/redaction.ts lets it leave. */
function redactAttributes(
  attributes: Attributes,
  set: (key: string, value: string | string[]) => void,
): void {
  for (const [key, value] of Object.entries(attributes)) {
    if (typeof value === 'string') {
      const redacted = redactAttribute(key, value);
      if (redacted !== value) set(key, redacted);
    } else if (Array.isArray(value) && value.some((item) => typeof item === 'string')) {
      const redacted = (value as string[]).map((item) => redactAttribute(key, item));
      if (redacted.some((item, i) => item !== value[i])) set(key, redacted);
    }
  }
}

/**
 * Hides what a span would otherwise carry out of the process (common/redaction.ts): capability
 * tokens in `url.path`, `url.full` and the span's name, signed links' `signature` in `url.query`,
 * the literals of `db.query.text`, and any of them in an exception's message or stack. It works
 * as the span ends, when every instrumentation has set all it will (the route, the status, the
 * exception) and the span can still be written; a span that never ends is never exported.
 * `onEnding` is the SDK's one hook at that moment (experimental in 2.x, so common/telemetry.spec.ts
 * fails should an upgrade stop calling it).
 */
export class RedactingSpanProcessor implements SpanProcessor {
  onStart(): void {}

  onEnding(span: Span): void {
    redactAttributes(span.attributes, (key, value) => span.setAttribute(key, value));
    for (const event of span.events) {
      const attributes = event.attributes;
      if (attributes !== undefined) redactAttributes(attributes, (key, value) => (attributes[key] = value));
    }
    const name = redactUrl(span.name);
    if (name !== span.name) span.updateName(name);
    const message = span.status.message;
    if (message !== undefined && redactUrl(message) !== message) {
      span.setStatus({ code: span.status.code, message: redactUrl(message) });
    }
  }

  onEnd(): void {}

  forceFlush(): Promise<void> {
    return Promise.resolve();
  }

  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/**
 * The SDK wired for one process: the OTLP exporter of the protocol asked for, the resource named
 * after the process, the sampler and batch settings from the environment, and the instrumentations.
 * Loaded by common/telemetry.ts only when tracing is on.
 */
export function startSdk(serviceName: string, protocol: 'http/protobuf' | 'http/json'): Telemetry {
  diag.setLogger(stderrDiagLogger(serviceName), DiagLogLevel.WARN);
  const exporter: SpanExporter =
    protocol === 'http/json' ? new OtlpJsonExporter() : new OtlpProtobufExporter();
  const resource = resourceFromAttributes({ [ATTR_SERVICE_NAME]: serviceName }).merge(
    detectResources({ detectors: [envDetector, processDetector, hostDetector] }),
  );
  // The sampler comes from OTEL_TRACES_SAMPLER (parent-based, always on, by default): a request
  // through a trusted proxy that sampled it is traced through, whatever ratio the platform samples
  // on its own; anyone else's trace is only linked (setAsideUntrustedTrace).
  const provider = new NodeTracerProvider({
    resource,
    spanProcessors: [new RedactingSpanProcessor(), new BatchSpanProcessor(exporter)],
  });
  provider.register();
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new HttpInstrumentation({
        // Probes and scrapes arrive every few seconds and would drown the traces worth reading.
        ignoreIncomingRequestHook: (req) => UNTRACED_PATHS.has((req.url ?? '').split('?')[0] ?? ''),
        // Called before the instrumentation reads the request's trace headers; requestHook after
        // the server span started.
        startIncomingSpanHook: (req) => {
          setAsideUntrustedTrace(req);
          return {};
        },
        requestHook: linkCallerTrace,
      }),
      // Each middleware as a span of its own says nothing the route's span does not.
      new ExpressInstrumentation({ ignoreLayersType: [ExpressLayerType.MIDDLEWARE] }),
      // Root fields only: the resolver that did the work (its Postgres spans beneath it), not a span
      // for every field of every object the answer holds.
      new GraphQLInstrumentation({ depth: 1, ignoreTrivialResolveSpans: true, mergeItems: true }),
      // The relay and the workers poll Postgres and Redis every second or two; only the queries and
      // commands of a traced request or delivery belong in a trace.
      new PgInstrumentation({ requireParentSpan: true }),
      new IORedisInstrumentation({ requireParentSpan: true }),
    ],
  });
  return { shutdown: () => provider.shutdown() };
}
