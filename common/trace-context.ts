import type { IncomingMessage } from 'node:http';
import {
  context,
  isSpanContextValid,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Link,
  type SpanContext,
} from '@opentelemetry/api';

/**
 * The platform's own spans and the trace context it keeps between processes (outbox rows, delivery
 * rows, the webhook header). Only the OpenTelemetry API is used here: with no SDK started
 * (common/telemetry.ts) every call is a no-op, so none of this costs anything while tracing is off.
 */
const tracer = trace.getTracer('nida-platform');

/** The W3C header a traced request carries; also the header of a webhook (docs/API-DECISIONS.md). */
export const TRACEPARENT_HEADER = 'traceparent';

/**
 * W3C Trace Context Level 2's response header: a support request quotes the trace id it names. It
 * is set beside X-Request-Id, which stays the id of the request whether traced or not.
 */
export const TRACERESPONSE_HEADER = 'traceresponse';

const TRACEPARENT_FORM = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** Nobody's until the process's HTTP frame says whose (common/http-service.ts). */
let callerTraceTrusted: (request: IncomingMessage) => boolean = () => false;

/**
 * Says whose `traceparent` a server span continues: the others' start a trace of the platform's
 * own, linked to theirs (common/telemetry-sdk.ts), since a caller that chose the trace id and the
 * sampled flag would choose what the platform samples. One rule per process, set by its frame.
 */
export function trustCallerTraceWhen(rule: (request: IncomingMessage) => boolean): void {
  callerTraceTrusted = rule;
}

/** Whether the request's own `traceparent` may be the parent of its server span. */
export function isCallerTraceTrusted(request: IncomingMessage): boolean {
  return callerTraceTrusted(request);
}

function format(span: SpanContext): string {
  return `00-${span.traceId}-${span.spanId}-${span.traceFlags.toString(16).padStart(2, '0')}`;
}

function activeSpanContext(): SpanContext | undefined {
  const span = trace.getSpan(context.active())?.spanContext();
  return span !== undefined && isSpanContextValid(span) ? span : undefined;
}

/** The active span as a `traceparent` value, to be stored with work done later; null outside a trace. */
export function currentTraceparent(): string | null {
  const span = activeSpanContext();
  return span === undefined ? null : format(span);
}

/** The `traceresponse` value of the active span; undefined outside a trace. */
export function currentTraceresponse(): string | undefined {
  const span = activeSpanContext();
  return span === undefined ? undefined : format(span);
}

/** The ids a log line written inside a trace names; empty outside one. */
export function traceFields(): { trace_id?: string; span_id?: string } {
  const span = activeSpanContext();
  return span === undefined ? {} : { trace_id: span.traceId, span_id: span.spanId };
}

/**
 * A stored `traceparent` as a context to start spans in; the root context when there is none. Read
 * here rather than by the global propagator, which a process may configure otherwise (B3, say):
 * what the platform stores is always its own W3C form.
 */
function contextOf(traceparent: string | null | undefined): Context {
  const parts = TRACEPARENT_FORM.exec(traceparent ?? '');
  if (parts === null) return ROOT_CONTEXT;
  const stored: SpanContext = {
    traceId: parts[1]!,
    spanId: parts[2]!,
    traceFlags: parseInt(parts[3]!, 16),
    isRemote: true,
  };
  return isSpanContextValid(stored) ? trace.setSpanContext(ROOT_CONTEXT, stored) : ROOT_CONTEXT;
}

/** A stored `traceparent` as a link, for work that follows a change without being part of it. */
export function linkTo(traceparent: string | null | undefined): Link[] {
  const span = trace.getSpanContext(contextOf(traceparent));
  return span === undefined || !isSpanContextValid(span) ? [] : [{ context: span }];
}

/** The headers that carry the active trace to a receiver outside the platform. */
export function traceHeaders(): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier;
}

export interface SpanOptions {
  kind?: SpanKind;
  attributes?: Attributes;
  /** A `traceparent` stored by the change that caused this work: the span becomes its child. */
  parent?: string | null;
  /** Spans this one follows without being their child. */
  links?: Link[];
}

/**
 * Runs `work` in a span of its own, active for every span started inside it (HTTP, Postgres,
 * Redis); a throw marks the span failed and is rethrown. Without `parent` the span is a child of
 * the active one; with a stored one it continues that trace, as a job does for the change behind it.
 */
export function inSpan<T>(name: string, options: SpanOptions, work: () => Promise<T>): Promise<T> {
  const parent = options.parent === undefined ? context.active() : contextOf(options.parent);
  return tracer.startActiveSpan(
    name,
    { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes, links: options.links },
    parent,
    async (span) => {
      try {
        return await work();
      } catch (error) {
        span.recordException(error instanceof Error ? error : String(error));
        span.setStatus({ code: SpanStatusCode.ERROR });
        throw error;
      } finally {
        span.end();
      }
    },
  );
}

/**
 * Links the active span to work it waited for without causing it, such as a subgraph fetch another
 * request sent and this one joined; nothing outside a trace or for a missing `traceparent`.
 */
export function linkActiveSpanTo(traceparent: string | null | undefined): void {
  const links = linkTo(traceparent);
  if (links.length > 0) trace.getSpan(context.active())?.addLinks(links);
}

/** Marks the active span failed for an outcome that is not a throw (a 5xx answer, a refusal). */
export function markActiveSpanFailed(message: string): void {
  trace.getSpan(context.active())?.setStatus({ code: SpanStatusCode.ERROR, message });
}

export { SpanKind };
