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
    expect(server!.parentSpanId).toBe(client!.spanId);

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
