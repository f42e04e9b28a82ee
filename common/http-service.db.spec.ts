import { setTimeout as sleep } from 'node:timers/promises';
import type { Pool } from 'pg';
import { createTestDatabase, testConfig, type TestDatabase } from '../test/support/database';
import { createProbePool } from './postgres';
import { HttpService, type ReadinessCheck } from './http-service';
import { createLogger } from './logger';
import { connectRedis, type Redis } from './redis';

const logger = createLogger({ service: 'http-service-spec', level: 'silent' });

describe('HttpService', () => {
  let database: TestDatabase;
  let pool: Pool;
  let redis: Redis;
  const services: HttpService[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    pool = createProbePool(database.url);
    redis = await connectRedis(testConfig(database).redis, 'http-service-spec');
  });

  afterEach(async () => {
    await Promise.all(services.splice(0).map((s) => s.close()));
  });

  afterAll(async () => {
    await pool.end();
    redis.disconnect();
    await database.drop();
  });

  async function serve(
    checks: ReadinessCheck[],
    shutdownTimeoutMs = 5_000,
    shutdownDelayMs = 0,
  ): Promise<{ service: HttpService; base: string }> {
    const service = new HttpService({
      name: 'spec',
      logger,
      checks,
      readyCheckTimeoutMs: 1_000,
      shutdownTimeoutMs,
      shutdownDelayMs,
    });
    services.push(service);
    service.app.get('/slow', (_req, res) => {
      setTimeout(() => res.json({ finished: true }), 600);
    });
    const port = await service.listen(0, '127.0.0.1');
    return { service, base: `http://127.0.0.1:${port}` };
  }

  const postgres = (p: Pool): ReadinessCheck => ({ name: 'postgres', check: () => p.query('select 1') });
  const redisCheck = (r: Redis): ReadinessCheck => ({ name: 'redis', check: () => r.ping() });

  it('on close, answers /readyz 503 while still serving for the shutdown delay, then refuses connections', async () => {
    const { service, base } = await serve([postgres(pool)], 5_000, 1_000);
    const closing = service.close();
    const readiness = await fetch(`${base}/readyz`);
    expect(readiness.status).toBe(503);
    expect(readiness.headers.get('connection')).toBe('close');
    expect(await readiness.json()).toEqual({
      status: 'unavailable',
      service: 'spec',
      checks: { shutdown: 'draining' },
    });
    // A load balancer that has not seen the 503 yet still gets its answers.
    const served = await fetch(`${base}/slow`);
    expect(served.status).toBe(200);
    expect(await served.json()).toEqual({ finished: true });
    await closing;
    await expect(fetch(`${base}/healthz`)).rejects.toThrow();
  });

  it('answers /healthz while alive', async () => {
    const { base } = await serve([]);
    const response = await fetch(`${base}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok', service: 'spec' });
  });

  it('is ready when real Postgres and Redis answer', async () => {
    const { base } = await serve([postgres(pool), redisCheck(redis)]);
    const response = await fetch(`${base}/readyz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      status: 'ready',
      service: 'spec',
      checks: { postgres: 'ok', redis: 'ok' },
    });
  });

  it('answers 503 naming Postgres when the database cannot be reached', async () => {
    const unreachable = createProbePool('postgres://postgres@127.0.0.1:1/nowhere');
    try {
      const { base } = await serve([postgres(unreachable), redisCheck(redis)]);
      const response = await fetch(`${base}/readyz`);
      expect(response.status).toBe(503);
      const body = (await response.json()) as { status: string; checks: Record<string, string> };
      expect(body.status).toBe('unavailable');
      expect(body.checks.redis).toBe('ok');
      expect(body.checks.postgres).toMatch(/ECONNREFUSED|connect/);
    } finally {
      await unreachable.end();
    }
  });

  it('answers 503 naming Redis when its connection is gone', async () => {
    const lost = await connectRedis(testConfig(database).redis, 'http-service-spec-lost');
    lost.disconnect();
    const { base } = await serve([postgres(pool), redisCheck(lost)]);
    const response = await fetch(`${base}/readyz`);
    expect(response.status).toBe(503);
    const body = (await response.json()) as { checks: Record<string, string> };
    expect(body.checks.postgres).toBe('ok');
    expect(body.checks.redis).not.toBe('ok');
  });

  it('stays ready but says degraded when only a check it can serve without fails', async () => {
    const lost = await connectRedis(testConfig(database).redis, 'http-service-spec-degraded');
    lost.disconnect();
    const { base } = await serve([postgres(pool), { ...redisCheck(lost), degradesOnly: true }]);
    const response = await fetch(`${base}/readyz`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { status: string; checks: Record<string, string> };
    expect(body.status).toBe('degraded');
    expect(body.checks.postgres).toBe('ok');
    expect(body.checks.redis).not.toBe('ok');
  });

  it('lets an in-flight request finish on close while refusing new connections', async () => {
    const { service, base } = await serve([]);
    const inFlight = fetch(`${base}/slow`);
    await sleep(100);
    const closing = service.close();
    await sleep(50);
    await expect(fetch(`${base}/healthz`)).rejects.toThrow();
    const response = await inFlight;
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ finished: true });
    await closing;
  });

  it('closes a request that outlives the shutdown timeout', async () => {
    const { service, base } = await serve([], 100);
    const inFlight = fetch(`${base}/slow`).then(
      () => 'answered',
      () => 'cut off',
    );
    await sleep(50);
    const started = Date.now();
    await service.close();
    expect(Date.now() - started).toBeLessThan(550);
    expect(await inFlight).toBe('cut off');
  });

  it('echoes the caller’s request id, or gives one', async () => {
    const { base } = await serve([]);
    const given = await fetch(`${base}/healthz`, { headers: { 'x-request-id': 'pos-42.a' } });
    expect(given.headers.get('x-request-id')).toBe('pos-42.a');
    const unsafe = await fetch(`${base}/healthz`, { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(unsafe.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});
