import { readFile } from 'node:fs/promises';
import { projectRoot } from '../../common/paths';
import { OtlpReceiver } from '../support/otlp-receiver';
import { distScript, run } from '../support/processes';

/**
 * A process as a platform entry starts it (common/telemetry.ts first), serving and calling itself
 * once over HTTP, then flushing as it would on SIGTERM. It prints whether the SDK started and
 * whether `http` was patched, which is what tracing costs a process that has it off.
 */
const PROBE = `
const { startTelemetry } = require(process.argv[1]);
const telemetry = startTelemetry('probe');
const http = require('node:http');
const server = http.createServer((req, res) => res.end('ok')).listen(0, '127.0.0.1', () => {
  http.get('http://127.0.0.1:' + server.address().port + '/work', (res) => {
    res.resume();
    res.on('end', async () => {
      server.close();
      await telemetry?.shutdown();
      const sdk = Object.keys(require.cache).some((path) => path.includes('/@opentelemetry/sdk-trace'));
      process.stdout.write(JSON.stringify({ started: telemetry !== undefined, sdk, patched: '__wrapped' in http.request }));
    });
  });
});
`;

describe('tracing configured by the OTEL_* variables alone, in a real process', () => {
  const collector = new OtlpReceiver();
  let endpoint: string;

  beforeAll(async () => {
    endpoint = await collector.start();
  });
  afterAll(() => collector.stop());
  beforeEach(() => {
    collector.spans.length = 0;
    collector.contentTypes.length = 0;
  });

  const probe = async (env: NodeJS.ProcessEnv) => {
    const base = Object.fromEntries(
      Object.entries(process.env).filter(([name]) => !name.startsWith('OTEL_')),
    );
    const finished = await run(
      process.execPath,
      ['-e', PROBE, distScript('common/telemetry.js')],
      { ...base, OTEL_BSP_SCHEDULE_DELAY: '50', ...env },
      20_000,
    );
    expect(finished.stderr).toBe('');
    expect(finished.code).toBe(0);
    return JSON.parse(finished.stdout) as { started: boolean; patched: boolean };
  };

  it('with no endpoint loads no SDK and patches nothing: no span is made, none exported', async () => {
    expect(await probe({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })).toEqual({
      started: false,
      sdk: false,
      patched: false,
    });
    expect(collector.contentTypes).toEqual([]);
  });

  it('exports nothing with OTEL_SDK_DISABLED=true, even with an endpoint set', async () => {
    const outcome = await probe({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_SDK_DISABLED: 'true' });
    expect(outcome).toEqual({ started: false, sdk: false, patched: false });
    expect(collector.contentTypes).toEqual([]);
  });

  it('exports the server and client spans as OTLP JSON under the process name, or OTEL_SERVICE_NAME', async () => {
    expect(
      await probe({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }),
    ).toEqual({ started: true, sdk: true, patched: true });
    expect(collector.contentTypes[0]).toMatch(/^application\/json/);
    expect(collector.spans.map((s) => [s.service, s.kind]).sort()).toEqual([
      ['probe', 2],
      ['probe', 3],
    ]);
    const [client, server] = [3, 2].map((kind) => collector.spans.find((s) => s.kind === kind)!);
    // No platform frame says whom to trust here, so the server's span links to its caller's.
    expect(server!.parentSpanId).toBe('');
    expect(server!.links).toEqual([{ traceId: client!.traceId, spanId: client!.spanId }]);

    collector.spans.length = 0;
    await probe({
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_SERVICE_NAME: 'tickets-eu-1',
    });
    expect(new Set(collector.spans.map((s) => s.service))).toEqual(new Set(['tickets-eu-1']));
  });

  it('speaks OTLP protobuf by default, as the specification says', async () => {
    await probe({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint });
    // The two spans may leave in one export or two, as the batch delay falls.
    expect(collector.contentTypes.length).toBeGreaterThanOrEqual(1);
    expect(new Set(collector.contentTypes)).toEqual(new Set(['application/x-protobuf']));
  });

  it('samples by OTEL_TRACES_SAMPLER and its argument: a ratio of 0 exports nothing', async () => {
    const outcome = await probe({
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_TRACES_SAMPLER: 'traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0',
    });
    expect(outcome.started).toBe(true);
    expect(collector.spans).toEqual([]);
  });

  it('is started first by every process entry, before anything it instruments is loaded', async () => {
    const entries = [
      'rest-adapter/main.ts',
      'gateway/main.ts',
      'subgraphs/tickets/main.ts',
      'subgraphs/cv/main.ts',
      'subgraphs/billing/main.ts',
      'subgraphs/identity/main.ts',
      'subgraphs/tickets/events/main.ts',
    ];
    for (const entry of entries) {
      const source = await readFile(`${projectRoot()}/${entry}`, 'utf8');
      const firstStatements = source
        .split('\n')
        .filter((line) => /^(import|const)\b/.test(line))
        .slice(0, 2);
      expect([entry, ...firstStatements]).toEqual([
        entry,
        expect.stringMatching(/^import \{ startTelemetry \} from '[./]+\/common\/telemetry';$/),
        expect.stringMatching(/^const telemetry = startTelemetry\('[a-z-]+'\);$/),
      ]);
    }
  });
});

/**
 * A process serving in the platform's frame (common/http-service.ts), asked once by a caller that
 * sends the `traceparent` the test chose (over a bare socket, so no instrumentation writes its own),
 * and flushed. It prints the answer's status and `traceresponse`.
 */
const FRAMED_PROBE = `
const [telemetryJs, httpServiceJs, loggerJs] = process.argv.slice(1);
const telemetry = require(telemetryJs).startTelemetry('probe');
const net = require('node:net');
const { HttpService } = require(httpServiceJs);
const { createLogger } = require(loggerJs);
const service = new HttpService({
  name: 'probe',
  logger: createLogger({ service: 'probe', level: 'silent' }),
  checks: [],
  readyCheckTimeoutMs: 1000,
  shutdownTimeoutMs: 1000,
  trustedProxies: (process.env.PROBE_TRUSTED_PROXIES || '').split(',').filter(Boolean),
  internalSecrets: [process.env.PROBE_INTERNAL_SECRET],
});
service.app.get('/work', (req, res) => res.send('ok'));
service.listen(0, '127.0.0.1').then((port) => {
  const headers = JSON.parse(process.env.PROBE_HEADERS);
  const lines = ['GET /work HTTP/1.1', 'Host: probe', 'Connection: close'];
  for (const name of Object.keys(headers)) lines.push(name + ': ' + headers[name]);
  let answer = '';
  const socket = net.connect(port, '127.0.0.1', () => socket.end(lines.join('\\r\\n') + '\\r\\n\\r\\n'));
  socket.on('data', (chunk) => (answer += chunk));
  socket.on('close', async () => {
    await service.close();
    await telemetry.shutdown();
    const header = (name) => (new RegExp('^' + name + ': (.*)$', 'im').exec(answer) || [])[1];
    process.stdout.write(JSON.stringify({ status: Number(answer.split(' ')[1]), traceresponse: header('traceresponse') }));
  });
});
`;

describe("a caller's traceparent: continued from a trusted proxy or the platform, only linked from anyone else", () => {
  const collector = new OtlpReceiver();
  let endpoint: string;
  const INTERNAL_SECRET = 'probe-internal-secret-0123456789abcdef';
  const callerTrace = 'c0ffee00c0ffee00c0ffee00c0ffee00';
  const callerSpan = 'feedfacefeedface';
  const sampled = `00-${callerTrace}-${callerSpan}-01`;

  beforeAll(async () => {
    endpoint = await collector.start();
  });
  afterAll(() => collector.stop());
  beforeEach(() => {
    collector.spans.length = 0;
  });

  const ask = async (headers: Record<string, string>, env: NodeJS.ProcessEnv = {}) => {
    const base = Object.fromEntries(
      Object.entries(process.env).filter(([name]) => !name.startsWith('OTEL_')),
    );
    const finished = await run(
      process.execPath,
      [
        '-e',
        FRAMED_PROBE,
        distScript('common/telemetry.js'),
        distScript('common/http-service.js'),
        distScript('common/logger.js'),
      ],
      {
        ...base,
        OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_BSP_SCHEDULE_DELAY: '50',
        PROBE_INTERNAL_SECRET: INTERNAL_SECRET,
        PROBE_HEADERS: JSON.stringify(headers),
        ...env,
      },
      20_000,
    );
    expect(finished.stderr).toBe('');
    expect(finished.code).toBe(0);
    const answer = JSON.parse(finished.stdout) as { status: number; traceresponse?: string };
    expect(answer.status).toBe(200);
    return { answer, server: collector.spans.find((s) => s.kind === 2) };
  };

  it('starts a trace of its own for a caller outside TRUSTED_PROXIES, linked to the caller’s span', async () => {
    const { answer, server } = await ask({ traceparent: sampled, tracestate: 'caller=1' });
    expect(server).toBeDefined();
    expect(server!.traceId).not.toBe(callerTrace);
    expect(server!.parentSpanId).toBe('');
    expect(server!.links).toEqual([{ traceId: callerTrace, spanId: callerSpan }]);
    expect(answer.traceresponse).toBe(`00-${server!.traceId}-${server!.spanId}-01`);
  });

  it('samples such a request as the platform samples its own, whatever its sampled flag says', async () => {
    const ratio = { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' };
    const { answer } = await ask({ traceparent: sampled }, ratio);
    // Not sampled: no span exported, and the answer names a trace of the platform's, unsampled.
    expect(collector.spans).toEqual([]);
    expect(answer.traceresponse).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/);
    expect(answer.traceresponse).not.toContain(callerTrace);
  });

  it('continues the trace a trusted proxy passes on, and the one another process of the platform sends', async () => {
    for (const [headers, env] of [
      [{ traceparent: sampled }, { PROBE_TRUSTED_PROXIES: '127.0.0.1' }],
      [{ traceparent: sampled, 'x-internal-credential': INTERNAL_SECRET }, {}],
    ] as const) {
      collector.spans.length = 0;
      const { server } = await ask(headers, env);
      expect(server).toMatchObject({ traceId: callerTrace, parentSpanId: callerSpan, links: [] });
    }
    // A wrong credential is anyone's.
    collector.spans.length = 0;
    const { server } = await ask({ traceparent: sampled, 'x-internal-credential': 'not-the-secret' });
    expect(server!.traceId).not.toBe(callerTrace);
  });
});
