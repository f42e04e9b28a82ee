import { distScript, run } from '../support/processes';

/** Start-up must fail fast and say what to do, not hang or print a stack. */
describe('starting without its backing services', () => {
  const env = (overrides: NodeJS.ProcessEnv): NodeJS.ProcessEnv => ({
    ...process.env,
    LOG_LEVEL: 'silent',
    ...overrides,
  });

  it('npm start stops within seconds naming the Postgres URL and how to start it', async () => {
    const result = await run(
      process.execPath,
      [distScript('tools/start.js')],
      env({ DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nida' }),
    );
    expect(result.code).toBe(1);
    expect(result.durationMs).toBeLessThan(15_000);
    expect(result.stderr).toContain('Cannot reach PostgreSQL at postgres://postgres@127.0.0.1:1/nida');
    expect(result.stderr).toContain('bash scripts/setup.sh');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('npm start stops within seconds naming the Redis URL and how to start it', async () => {
    const result = await run(
      process.execPath,
      [distScript('tools/start.js')],
      env({ REDIS_URL: 'redis://127.0.0.1:1' }),
    );
    expect(result.code).toBe(1);
    expect(result.durationMs).toBeLessThan(15_000);
    expect(result.stderr).toContain('Cannot reach Redis at redis://127.0.0.1:1');
    expect(result.stderr).toContain('bash scripts/setup.sh');
  });

  it('npm start stops within seconds naming the Sentinels when none answers', async () => {
    const result = await run(
      process.execPath,
      [distScript('tools/start.js')],
      env({ REDIS_SENTINELS: '127.0.0.1:1,127.0.0.1:2', REDIS_SENTINEL_MASTER: 'nida' }),
    );
    expect(result.code).toBe(1);
    expect(result.durationMs).toBeLessThan(20_000);
    expect(result.stderr).toContain(
      'Cannot reach Redis at master "nida" of the Sentinels 127.0.0.1:1,127.0.0.1:2 (no answer within 10000 ms)',
    );
  });

  it('names the bad entry of REDIS_SENTINELS', async () => {
    const result = await run(
      process.execPath,
      [distScript('gateway/main.js')],
      env({ REDIS_SENTINELS: '127.0.0.1:26379,sentinel-b' }),
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'REDIS_SENTINELS: "sentinel-b" is not a Sentinel address like 10.0.0.5:26379',
    );
  });

  it('a subgraph started on its own fails the same way', async () => {
    const result = await run(
      process.execPath,
      [distScript('subgraphs/billing/main.js')],
      env({ DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nida' }),
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^billing-subgraph: Cannot reach PostgreSQL at postgres:\/\/postgres@127\.0\.0\.1:1\/nida/,
    );
  });

  it('lists every bad variable at once and exits 1', async () => {
    const result = await run(
      process.execPath,
      [distScript('gateway/main.js')],
      env({ GATEWAY_PORT: 'four thousand', REDIS_URL: 'localhost:6379', PUBLIC_BASE_URL: 'ftp://x' }),
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Invalid configuration:');
    for (const name of ['GATEWAY_PORT', 'REDIS_URL', 'PUBLIC_BASE_URL'])
      expect(result.stderr).toContain(`- ${name}:`);
  });

  it('the test suite’s own setup names the URL too', async () => {
    const result = await run(
      process.execPath,
      [distScript('tools/migrate.js')],
      env({ DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nida' }),
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'migrate: Cannot reach PostgreSQL at postgres://postgres@127.0.0.1:1/nida',
    );
  });
});
