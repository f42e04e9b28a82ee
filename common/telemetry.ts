import type * as Sdk from './telemetry-sdk';

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

/**
 * Starts tracing for the process named `serviceName` (OTEL_SERVICE_NAME overrides it) when an OTLP
 * endpoint is set. When none is, it answers undefined having loaded nothing: no SDK module, no
 * patched `http`; the API's no-op tracer stays in place and a span costs a function call.
 */
export function startTelemetry(
  serviceName: string,
  env: NodeJS.ProcessEnv = process.env,
): Telemetry | undefined {
  const exporting = traceExportOf(env);
  if (exporting === undefined) return undefined;
  // Synchronous on purpose: the instrumentations must be in place before the entry's next require,
  // and an import() would resolve after it. Loading the SDK only here spares an untraced process
  // its quarter-second of startup.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { startSdk } = require('./telemetry-sdk') as typeof Sdk;
  return startSdk(serviceName, exporting.protocol);
}
