import express from 'express';
import { HttpService } from './http-service';
import { createLogger } from './logger';
import { BoundedLabel, metricsPortFor, ProcessMetrics, templateOf } from './metrics';

const logger = createLogger({ service: 'metrics-spec', level: 'silent' });

describe('templateOf', () => {
  it('writes express parameters in OpenTelemetry form', () => {
    expect(templateOf('/api/v1/tickets/:id')).toBe('/api/v1/tickets/{id}');
    expect(templateOf('/t/:token/qr.png')).toBe('/t/{token}/qr.png');
    expect(templateOf('/files/*path')).toBe('/files/{path}');
    expect(templateOf('/b/:code{/:step}')).toBe('/b/{code}{/{step}}');
    expect(templateOf('')).toBe('/');
  });
});

describe('BoundedLabel', () => {
  it('keeps the first names up to its cap and calls every later one other', () => {
    const label = new BoundedLabel(3);
    expect(['a', 'b', 'c'].map((name) => label.value(name))).toEqual(['a', 'b', 'c']);
    expect(label.value('d')).toBe('other');
    expect(label.value('e')).toBe('other');
    expect(label.value('a')).toBe('a');
  });

  it('calls a name longer than a label should be other, even under the cap', () => {
    expect(new BoundedLabel(10).value('x'.repeat(101))).toBe('other');
  });

  it('answers a value already kept, and other for any new one, without keeping it', () => {
    const label = new BoundedLabel(3);
    label.value('a');
    expect(label.kept('a')).toBe('a');
    expect(label.kept('b')).toBe('other');
    expect(['b', 'c', 'd'].map((name) => label.value(name))).toEqual(['b', 'c', 'other']);
  });
});

describe('metricsPortFor', () => {
  it('is METRICS_PORT when set, else the public port + 5000, and 0 for a free public port', () => {
    expect(metricsPortFor(undefined, 4000)).toBe(9000);
    expect(metricsPortFor(undefined, 3000)).toBe(8000);
    expect(metricsPortFor(0, 4000)).toBe(0);
    expect(metricsPortFor(9100, 4000)).toBe(9100);
    expect(metricsPortFor(undefined, 0)).toBe(0);
  });
});

describe('a process serving metrics', () => {
  let service: HttpService;
  let metrics: ProcessMetrics;
  let publicBase: string;
  let metricsBase: string;

  beforeAll(async () => {
    metrics = new ProcessMetrics('spec');
    service = new HttpService({
      name: 'spec',
      logger,
      checks: [],
      readyCheckTimeoutMs: 1_000,
      shutdownTimeoutMs: 1_000,
      metrics: { registry: metrics, host: '127.0.0.1', port: 0 },
    });
    const router = express.Router();
    router.get('/tickets/:id', (_req, res) => {
      res.json({ ok: true });
    });
    service.app.use('/api/v1', router);
    const port = await service.listen(0, '127.0.0.1');
    publicBase = `http://127.0.0.1:${port}`;
    metricsBase = `http://127.0.0.1:${service.metricsPort}`;
  });

  afterAll(() => service.close());

  const scrape = async () => (await fetch(`${metricsBase}/metrics`)).text();

  it('answers /metrics on its own port and 404 on the public one', async () => {
    expect(service.metricsPort).not.toBe(Number(new URL(publicBase).port));
    const text = await scrape();
    expect(text).toContain('process_cpu_seconds_total');
    expect(text).toContain('nodejs_eventloop_lag_seconds');
    expect((await fetch(`${publicBase}/metrics`)).status).toBe(404);
  });

  it('labels requests by route template, never by the raw id, and unknown paths as unmatched', async () => {
    for (const id of ['8121', '99', 'tok_secret']) await fetch(`${publicBase}/api/v1/tickets/${id}`);
    await fetch(`${publicBase}/no/such/${Math.random()}`);
    const text = await scrape();
    expect(text).toMatch(
      /http_server_request_duration_seconds_count\{http_request_method="GET",http_route="\/api\/v1\/tickets\/\{id\}",http_response_status_code="200"\} 3/,
    );
    expect(text).toContain('http_route="unmatched",http_response_status_code="404"');
    expect(text).not.toContain('tok_secret');
    expect(text).not.toContain('/no/such');
  });

  it('keeps each registry apart, so two processes in one Node process do not share series', async () => {
    const other = new ProcessMetrics('other');
    other.counter('nida_only_here_total', 'A family of the other registry only.').inc();
    expect(await other.registry.metrics()).toContain('nida_only_here_total');
    expect(await scrape()).not.toContain('nida_only_here_total');
  });

  it('stops serving metrics when the process closes', async () => {
    const extra = new ProcessMetrics('closing');
    const closing = new HttpService({
      name: 'closing',
      logger,
      checks: [],
      readyCheckTimeoutMs: 1_000,
      shutdownTimeoutMs: 1_000,
      metrics: { registry: extra, host: '127.0.0.1', port: 0 },
    });
    await closing.listen(0, '127.0.0.1');
    const port = closing.metricsPort;
    expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(200);
    await closing.close();
    await expect(fetch(`http://127.0.0.1:${port}/metrics`)).rejects.toThrow();
  });
});
