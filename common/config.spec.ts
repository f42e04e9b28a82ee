import {
  ConfigError,
  DEVELOPMENT_INTERNAL_SECRET,
  DEVELOPMENT_SECRET_KEY,
  loadConfig,
  redactUrl,
} from './config';

describe('loadConfig', () => {
  it('falls back to the documented defaults when nothing is set', () => {
    const config = loadConfig({});
    expect(config.databaseUrl).toBe('postgres://postgres@127.0.0.1:5432/nida');
    expect(config.redis).toEqual({ kind: 'url', url: 'redis://127.0.0.1:6379' });
    expect(config.ports).toEqual({
      rest: 3000,
      gateway: 4000,
      tickets: 4001,
      cv: 4002,
      billing: 4003,
      identity: 4005,
    });
    expect(config.publicBaseUrl).toBe('http://localhost:3000');
    expect(config.gatewayUrl).toBe('http://127.0.0.1:4000/graphql');
    expect(config.subgraphUrls.billing).toBe('http://127.0.0.1:4003/graphql');
  });

  it('treats an empty variable as unset', () => {
    expect(loadConfig({ REST_PORT: '' }).ports.rest).toBe(3000);
  });

  it('derives the gateway and subgraph URLs from the ports unless given', () => {
    const config = loadConfig({ GATEWAY_PORT: '5000', BILLING_SUBGRAPH_URL: 'http://billing:4003/graphql' });
    expect(config.gatewayUrl).toBe('http://127.0.0.1:5000/graphql');
    expect(config.subgraphUrls.billing).toBe('http://billing:4003/graphql');
  });

  it('drops a trailing slash from PUBLIC_BASE_URL so paths can be appended', () => {
    expect(loadConfig({ PUBLIC_BASE_URL: 'https://q.example.iq/' }).publicBaseUrl).toBe(
      'https://q.example.iq',
    );
  });

  it('names every bad variable at once, with the value it got', () => {
    let caught: unknown;
    try {
      loadConfig({
        REST_PORT: 'abc',
        DATABASE_URL: 'mysql://x/y',
        REDIS_URL: 'localhost',
        LOG_LEVEL: 'loud',
      });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const problems = (caught as ConfigError).problems;
    expect(problems).toHaveLength(4);
    expect(problems.find((p) => p.startsWith('REST_PORT:'))).toContain('"abc"');
    expect(problems.find((p) => p.startsWith('DATABASE_URL:'))).toContain('postgres://');
    expect(problems.find((p) => p.startsWith('REDIS_URL:'))).toContain('redis://');
    expect(problems.find((p) => p.startsWith('LOG_LEVEL:'))).toBeDefined();
    expect((caught as ConfigError).message).toMatch(/^Invalid configuration:\n {2}- /);
  });

  it('reaches Redis through Sentinel when REDIS_SENTINELS and REDIS_SENTINEL_MASTER are given', () => {
    const config = loadConfig({
      REDIS_SENTINELS: ' 10.0.0.5:26379,sentinel-b.internal:26380 ,[fd00::7]:26381',
      REDIS_SENTINEL_MASTER: 'nida',
      REDIS_SENTINEL_PASSWORD: 's3cret',
    });
    expect(config.redis).toEqual({
      kind: 'sentinel',
      sentinels: [
        { host: '10.0.0.5', port: 26379 },
        { host: 'sentinel-b.internal', port: 26380 },
        { host: 'fd00::7', port: 26381 },
      ],
      masterName: 'nida',
      sentinelPassword: 's3cret',
    });
  });

  it('names each bad REDIS_SENTINELS entry', () => {
    expect(() =>
      loadConfig({
        REDIS_SENTINELS: '10.0.0.5:26379,10.0.0.6,10.0.0.7:99999',
        REDIS_SENTINEL_MASTER: 'nida',
      }),
    ).toThrow(/"10\.0\.0\.6" is not a Sentinel address[\s\S]*"10\.0\.0\.7:99999" is not a Sentinel address/);
  });

  it('wants both REDIS_SENTINELS and REDIS_SENTINEL_MASTER, or neither', () => {
    expect(() => loadConfig({ REDIS_SENTINELS: '10.0.0.5:26379' })).toThrow(
      /REDIS_SENTINELS, REDIS_SENTINEL_MASTER: give both/,
    );
    expect(() => loadConfig({ REDIS_SENTINEL_MASTER: 'nida' })).toThrow(
      /REDIS_SENTINELS, REDIS_SENTINEL_MASTER: give both/,
    );
    expect(() => loadConfig({ REDIS_SENTINEL_PASSWORD: 'x' })).toThrow(/REDIS_SENTINEL_PASSWORD: only with/);
  });

  it('refuses to run in production without its own INTERNAL_SECRET', () => {
    const production = { NODE_ENV: 'production', WEBHOOK_SECRET_KEY: Buffer.alloc(32, 7).toString('base64') };
    expect(() => loadConfig(production)).toThrow(/INTERNAL_SECRET: required in production/);
    expect(() => loadConfig({ ...production, INTERNAL_SECRET: DEVELOPMENT_INTERNAL_SECRET })).toThrow(
      /INTERNAL_SECRET: the development value is public/,
    );
    expect(() => loadConfig({ ...production, INTERNAL_SECRET: 'short' })).toThrow(/at least 32 characters/);
    const secret = 'k'.repeat(40);
    expect(loadConfig({ ...production, INTERNAL_SECRET: secret }).internalSecret).toBe(secret);
  });

  it('refuses WEBHOOK_ALLOW_INSECURE=true in production, naming it beside every other bad variable', () => {
    const production = {
      NODE_ENV: 'production',
      WEBHOOK_SECRET_KEY: Buffer.alloc(32, 7).toString('base64'),
      INTERNAL_SECRET: 'k'.repeat(40),
    };
    expect(loadConfig({ ...production, WEBHOOK_ALLOW_INSECURE: 'false' }).webhooks.allowInsecure).toBe(false);
    let refused: unknown;
    try {
      loadConfig({ ...production, WEBHOOK_ALLOW_INSECURE: 'true', INTERNAL_SECRET: undefined });
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(ConfigError);
    expect((refused as ConfigError).problems).toEqual([
      'INTERNAL_SECRET: required in production (openssl rand -base64 32)',
      'WEBHOOK_ALLOW_INSECURE: never true in production (development and tests only)',
    ]);
    for (const NODE_ENV of ['development', 'test']) {
      expect(loadConfig({ NODE_ENV, WEBHOOK_ALLOW_INSECURE: 'true' }).webhooks.allowInsecure).toBe(true);
    }
  });

  it('accepts a secondary secret and webhook key during a rotation, sending and sealing only with the primary', () => {
    const primary = 'p'.repeat(40);
    const secondary = 's'.repeat(40);
    const key = Buffer.alloc(32, 1);
    const secondaryKey = Buffer.alloc(32, 2);
    const config = loadConfig({
      INTERNAL_SECRET: primary,
      INTERNAL_SECRET_SECONDARY: secondary,
      WEBHOOK_SECRET_KEY: key.toString('base64'),
      WEBHOOK_SECRET_KEY_SECONDARY: secondaryKey.toString('base64'),
    });
    expect(config.internalSecret).toBe(primary);
    expect(config.acceptedInternalSecrets).toEqual([primary, secondary]);
    expect(config.webhooks.secretKey.equals(key)).toBe(true);
    expect(config.webhooks.secondarySecretKey?.equals(secondaryKey)).toBe(true);
    const outside = loadConfig({ INTERNAL_SECRET: primary });
    expect(outside.acceptedInternalSecrets).toEqual([primary]);
    expect(outside.webhooks.secondarySecretKey).toBeNull();
  });

  it('holds the secondary values to the rules of the primary and names each slip', () => {
    const production = {
      NODE_ENV: 'production',
      WEBHOOK_SECRET_KEY: Buffer.alloc(32, 7).toString('base64'),
      INTERNAL_SECRET: 'k'.repeat(40),
    };
    expect(() => loadConfig({ ...production, INTERNAL_SECRET_SECONDARY: 'short' })).toThrow(
      /INTERNAL_SECRET_SECONDARY: at least 32 characters/,
    );
    expect(() => loadConfig({ ...production, INTERNAL_SECRET_SECONDARY: 'a b'.repeat(20) })).toThrow(
      /INTERNAL_SECRET_SECONDARY: printable ASCII without spaces/,
    );
    expect(() => loadConfig({ ...production, WEBHOOK_SECRET_KEY_SECONDARY: 'c2hvcnQ=' })).toThrow(
      /WEBHOOK_SECRET_KEY_SECONDARY: must be 32 random bytes/,
    );
    expect(() =>
      loadConfig({ ...production, INTERNAL_SECRET_SECONDARY: DEVELOPMENT_INTERNAL_SECRET }),
    ).toThrow(/INTERNAL_SECRET_SECONDARY: the development value is public/);
    expect(() => loadConfig({ ...production, WEBHOOK_SECRET_KEY: DEVELOPMENT_SECRET_KEY })).toThrow(
      /WEBHOOK_SECRET_KEY: the development value is public/,
    );
    expect(() => loadConfig({ ...production, WEBHOOK_SECRET_KEY_SECONDARY: DEVELOPMENT_SECRET_KEY })).toThrow(
      /WEBHOOK_SECRET_KEY_SECONDARY: the development value is public/,
    );
    expect(() =>
      loadConfig({ ...production, INTERNAL_SECRET_SECONDARY: production.INTERNAL_SECRET }),
    ).toThrow(/INTERNAL_SECRET_SECONDARY: the same as INTERNAL_SECRET/);
    // The same 32 bytes, spelt without base64 padding, are still the same key.
    expect(() =>
      loadConfig({
        ...production,
        WEBHOOK_SECRET_KEY_SECONDARY: production.WEBHOOK_SECRET_KEY.replace(/=+$/, ''),
      }),
    ).toThrow(/WEBHOOK_SECRET_KEY_SECONDARY: the same as WEBHOOK_SECRET_KEY/);
  });

  it('trusts no proxy unless TRUSTED_PROXIES names some, as addresses or CIDR ranges', () => {
    expect(loadConfig({}).trustedProxies).toEqual([]);
    expect(loadConfig({ TRUSTED_PROXIES: ' 10.0.0.7, 10.1.0.0/16 ,fd00::/8,' }).trustedProxies).toEqual([
      '10.0.0.7',
      '10.1.0.0/16',
      'fd00::/8',
    ]);
  });

  it('names each bad TRUSTED_PROXIES entry', () => {
    let caught: unknown;
    try {
      loadConfig({ TRUSTED_PROXIES: '10.0.0.7,lb.internal,10.0.0.0/33' });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const problems = (caught as ConfigError).problems.filter((p) => p.startsWith('TRUSTED_PROXIES:'));
    expect(problems).toHaveLength(2);
    expect(problems[0]).toContain('"lb.internal" is not an IP address or a CIDR range');
    expect(problems[1]).toContain('"10.0.0.0/33" is not a CIDR range');
  });

  it('refuses ports outside 0-65535', () => {
    expect(() => loadConfig({ GATEWAY_PORT: '70000' })).toThrow(/GATEWAY_PORT/);
  });

  it('serves metrics on 127.0.0.1 at each public port + 5000 unless METRICS_HOST or METRICS_PORT say otherwise', () => {
    expect(loadConfig({}).metrics).toEqual({ host: '127.0.0.1', port: undefined });
    expect(loadConfig({ METRICS_HOST: '0.0.0.0', METRICS_PORT: '0' }).metrics).toEqual({
      host: '0.0.0.0',
      port: 0,
    });
    expect(() => loadConfig({ METRICS_PORT: 'nine thousand' })).toThrow(/METRICS_PORT/);
    expect(() => loadConfig({ METRICS_PORT: '70000' })).toThrow(/METRICS_PORT/);
  });
});

describe('redactUrl', () => {
  it('hides a password but keeps the user, host and database', () => {
    expect(redactUrl('postgres://app:s3cret@db:5432/nida')).toBe('postgres://app:***@db:5432/nida');
    expect(redactUrl('postgres://postgres@127.0.0.1:5432/nida')).toBe(
      'postgres://postgres@127.0.0.1:5432/nida',
    );
  });
});
