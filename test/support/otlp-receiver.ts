import { createServer, type Server } from 'node:http';
import { closeServer, loopbackUrl } from './loopback';

/** One span as an OTLP/HTTP JSON export carries it, with the service that sent it. */
export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  /** Nanoseconds since the epoch, as a number: precise enough to order spans. */
  start: number;
  links: { traceId: string; spanId: string }[];
  attributes: Record<string, string | number | boolean>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string | number;
  links?: { traceId: string; spanId: string }[];
  attributes?: { key: string; value: OtlpValue }[];
}
interface OtlpExport {
  resourceSpans: {
    resource: { attributes: { key: string; value: OtlpValue }[] };
    scopeSpans: { spans: OtlpSpan[] }[];
  }[];
}

/** OTLP/JSON says hex for ids; some encoders send base64 as protobuf's JSON mapping does. */
function hexId(id: string | undefined): string {
  if (id === undefined || id === '') return '';
  return /^[0-9a-f]+$/.test(id) && (id.length === 32 || id.length === 16)
    ? id
    : Buffer.from(id, 'base64').toString('hex');
}

function valueOf(value: OtlpValue): string | number | boolean {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  return value.boolValue ?? '';
}

function attributesOf(list: { key: string; value: OtlpValue }[] | undefined) {
  return Object.fromEntries((list ?? []).map((a) => [a.key, valueOf(a.value)]));
}

/**
 * An OpenTelemetry collector as far as the platform can tell: a real HTTP server on 127.0.0.1
 * taking OTLP/HTTP exports (`POST /v1/traces`) and keeping every span of the JSON ones.
 */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  /** Every export's content type, to tell what protocol the exporters spoke. */
  readonly contentTypes: string[] = [];
  /** Every JSON export as it arrived, to search for what no span may carry. */
  readonly bodies: string[] = [];
  private server?: Server;

  /** Starts listening; answers the base URL to give as OTEL_EXPORTER_OTLP_ENDPOINT. */
  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        if (req.method !== 'POST' || req.url !== '/v1/traces') {
          res.writeHead(404).end();
          return;
        }
        const contentType = req.headers['content-type'] ?? '';
        this.contentTypes.push(contentType);
        // Protobuf exports are counted, not read: what they hold is the JSON tests' business.
        if (!contentType.startsWith('application/json')) {
          res.writeHead(200, { 'content-type': contentType }).end();
          return;
        }
        const body = Buffer.concat(chunks).toString('utf8');
        this.bodies.push(body);
        try {
          this.take(JSON.parse(body) as OtlpExport);
        } catch {
          res.writeHead(400).end();
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    return loopbackUrl(this.server);
  }

  async stop(): Promise<void> {
    if (this.server === undefined) return;
    await closeServer(this.server);
    this.server = undefined;
  }

  /** The spans of one trace. */
  trace(traceId: string): ReceivedSpan[] {
    return this.spans.filter((span) => span.traceId === traceId);
  }

  private take(body: OtlpExport): void {
    for (const resourceSpans of body.resourceSpans ?? []) {
      const service = String(attributesOf(resourceSpans.resource.attributes)['service.name'] ?? '');
      for (const scope of resourceSpans.scopeSpans ?? []) {
        for (const span of scope.spans ?? []) {
          this.spans.push({
            service,
            traceId: hexId(span.traceId),
            spanId: hexId(span.spanId),
            parentSpanId: hexId(span.parentSpanId),
            name: span.name,
            kind: span.kind,
            start: Number(span.startTimeUnixNano),
            links: (span.links ?? []).map((l) => ({ traceId: hexId(l.traceId), spanId: hexId(l.spanId) })),
            attributes: attributesOf(span.attributes),
          });
        }
      }
    }
  }
}

/**
 * A trace as indented text, one span a line (service, name, and the span it is a child of), roots
 * first; a parent outside the spans received (the client's own span) is named by its id.
 */
export function spanTree(spans: ReceivedSpan[]): string {
  const ids = new Set(spans.map((s) => s.spanId));
  const children = new Map<string, ReceivedSpan[]>();
  for (const span of [...spans].sort((a, b) => a.start - b.start)) {
    const key = ids.has(span.parentSpanId) ? span.parentSpanId : '';
    children.set(key, [...(children.get(key) ?? []), span]);
  }
  const lines: string[] = [];
  const walk = (parent: string, depth: number) => {
    for (const span of children.get(parent) ?? []) {
      const from = span.parentSpanId === '' ? 'root' : `parent ${span.parentSpanId}`;
      lines.push(`${'  '.repeat(depth)}[${span.service}] ${span.name}  (span ${span.spanId}, ${from})`);
      walk(span.spanId, depth + 1);
    }
  };
  walk('', 0);
  return lines.join('\n');
}
