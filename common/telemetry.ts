import { diag, DiagLogLevel, type DiagLogger } from '@opentelemetry/api';
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
import { BatchSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';

/**
 * Tracing of one process, configured by the standard variables only
 * (https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/):
 * OTEL_EXPORTER_OTLP_ENDPOINT (or …_TRACES_ENDPOINT), OTEL_EXPORTER_OTLP_PROTOCOL (http/protobuf,
 * the default, or http/json), OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES, OTEL_TRACES_SAMPLER and
 * OTEL_TRACES_SAMPLER_ARG, OTEL_BSP_*, OTEL_SDK_DISABLED, OTEL_TRACES_EXPORTER=none.
 *
 * This module must be the first a process entry loads: an instrumentation patches a module (http,
 * express, pg, ioredis, graphql) as it is first required, and one required before is never traced.
 * It imports nothing of the platform for that reason.
 */

/** A started SDK; `shutdown` exports what is still buffered, for a process about to exit. */
export interface Telemetry {
  shutdown(): Promise<void>;
}

const PROTOCOLS = ['http/protobuf', 'http/json'] as const;

/** The variables that say whether to trace, and where; undefined when nothing is to be exported. */
export function traceExportOf(env: NodeJS.ProcessEnv): { protocol: (typeof PROTOCOLS)[number] } | undefined {
  const on = (name: string) => (env[name] ?? '').trim() !== '';
  if ((env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') return undefined;
  if ((env.OTEL_TRACES_EXPORTER ?? '').trim().toLowerCase() === 'none') return undefined;
  if (!on('OTEL_EXPORTER_OTLP_ENDPOINT') && !on('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT')) return undefined;
  const protocol = (
    env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ??
    env.OTEL_EXPORTER_OTLP_PROTOCOL ??
    'http/protobuf'
  ).trim();
  const known = PROTOCOLS.find((p) => p === protocol);
  if (known === undefined) {
    // grpc would need its own exporter and native HTTP/2 plumbing; a collector speaks both HTTP forms.
    throw new Error(
      `OTEL_EXPORTER_OTLP_PROTOCOL=${protocol} is not supported: use ${PROTOCOLS.join(' or ')}`,
    );
  }
  return { protocol: known };
}

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

/**
 * Starts tracing for the process named `serviceName` (OTEL_SERVICE_NAME overrides it) when an OTLP
 * endpoint is set, and answers undefined without loading anything into the request path when none
 * is: with tracing off the API's no-op tracer stays in place and a span costs a function call.
 */
export function startTelemetry(
  serviceName: string,
  env: NodeJS.ProcessEnv = process.env,
): Telemetry | undefined {
  const exporting = traceExportOf(env);
  if (exporting === undefined) return undefined;
  diag.setLogger(stderrDiagLogger(serviceName), DiagLogLevel.WARN);
  const exporter: SpanExporter =
    exporting.protocol === 'http/json' ? new OtlpJsonExporter() : new OtlpProtobufExporter();
  const resource = resourceFromAttributes({ [ATTR_SERVICE_NAME]: serviceName }).merge(
    detectResources({ detectors: [envDetector, processDetector, hostDetector] }),
  );
  // The sampler comes from OTEL_TRACES_SAMPLER (parent-based, always on, by default): a POS that
  // sampled its request has it traced through, whatever ratio the platform samples on its own.
  const provider = new NodeTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(exporter)] });
  provider.register();
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new HttpInstrumentation({
        // Probes and scrapes arrive every few seconds and would drown the traces worth reading.
        ignoreIncomingRequestHook: (req) => UNTRACED_PATHS.has((req.url ?? '').split('?')[0] ?? ''),
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
