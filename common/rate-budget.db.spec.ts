import { randomUUID } from 'node:crypto';
import { createServer, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import { Redis } from 'ioredis';
import pino from 'pino';
import { freePorts } from '../test/support/processes';
import { awayFromWindowEdge, waitUntil } from '../test/support/wait';
import {
  CredentialBudgets,
  KnownCredentials,
  rateLimitHeaders,
  RateBudgets,
  ratePolicies,
  refusalOf,
  ticketKeyIdentity,
  type RatePolicy,
} from './rate-budget';
import { connectRedis } from './redis';
import { listenOnLoopback } from '../test/support/loopback';

/** A logger whose lines are kept, to see what a budget warns about. */
function recordingLogger() {
  const lines: { level: number; msg: string }[] = [];
  const logger = pino(
    { level: 'warn' },
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString()) as { level: number; msg: string });
        done();
      },
    }),
  );
  return { logger, lines };
}

const POLICY: RatePolicy = { name: 'tickets', quota: 3, windowSeconds: 60 };

describe('RateBudgets on a real Redis', () => {
  let redis: Redis;
  const prefix = `test:rate-budget:${randomUUID()}:`;

  beforeAll(async () => {
    redis = await connectRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', 'rate-budget-spec');
  });

  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  it('lets the quota through, then refuses with the seconds left in the window', async () => {
    await awayFromWindowEdge(60, 5);
    const refused: string[] = [];
    const budgets = new RateBudgets(redis, prefix, recordingLogger().logger, {
      refused: (decision) => refused.push(decision.policy.name),
    });
    const who = ticketKeyIdentity('tk_spec');
    const decisions = [];
    for (let i = 0; i < 4; i += 1) decisions.push(await budgets.take(POLICY, who));
    expect(refused).toEqual(['tickets']);
    expect(decisions.map((d) => [d.allowed, d.remaining])).toEqual([
      [true, 2],
      [true, 1],
      [true, 0],
      [false, 0],
    ]);
    const headers = rateLimitHeaders([decisions[3]!]);
    expect(headers['RateLimit-Policy']).toBe('"tickets";q=3;w=60');
    expect(headers.RateLimit).toMatch(/^"tickets";r=0;t=\d+$/);
    expect(Number(headers['Retry-After'])).toBeGreaterThan(0);
    // Another identity has its own count.
    expect((await budgets.take(POLICY, ticketKeyIdentity('tk_other'))).remaining).toBe(2);
  });

  it('counts requests of one event-loop turn together, each exactly once, and lets Redis forget the window', async () => {
    await awayFromWindowEdge(60, 5);
    const budgets = new RateBudgets(redis, prefix, recordingLogger().logger);
    const who = ticketKeyIdentity('tk_together');
    const other = ticketKeyIdentity('tk_together_other');
    const decisions = await Promise.all([
      ...Array.from({ length: 5 }, () => budgets.take(POLICY, who)),
      budgets.take(POLICY, other),
    ]);
    expect(
      decisions
        .slice(0, 5)
        .map((d) => d.remaining)
        .sort(),
    ).toEqual([0, 0, 0, 1, 2]);
    expect(decisions.slice(0, 5).filter((d) => d.allowed)).toHaveLength(3);
    expect(decisions[5]!.remaining).toBe(2);
    const [key] = (await redis.keys(`${prefix}ratelimit:tickets:${who}:*`)) as [string];
    // One INCRBY carried the five counts of the turn: the window holds each exactly once.
    expect(Number(await redis.get(key))).toBe(5);
    await waitUntil(async () => (await redis.ttl(key)) > 0, 2_000, 'an expiry on the window');
    expect(await redis.ttl(key)).toBeLessThanOrEqual(60);
    expect(decisions[0].resetSeconds).toBeGreaterThan(0);
    expect(decisions[0].resetSeconds).toBeLessThanOrEqual(60);
  });

  it('remembers what the graph said of a credential, and that it refused one', async () => {
    const known = new KnownCredentials(redis, prefix);
    let asked = 0;
    const lookup = (answer: string | null) => () => {
      asked += 1;
      return Promise.resolve(answer);
    };
    expect(await known.of('cv', 'cv_key_a', lookup('account:7'))).toBe('account:7');
    expect(await known.of('cv', 'cv_key_a', lookup('account:8'))).toBe('account:7');
    expect(await known.of('cv', 'cv_invented', lookup(null))).toBeNull();
    expect(await known.of('cv', 'cv_invented', lookup('account:9'))).toBeNull();
    expect(asked).toBe(2);
    // Another process (a new instance) reads the same answers from Redis.
    expect(await new KnownCredentials(redis, prefix).recall('cv', 'cv_key_a')).toBe('account:7');
    // A lookup that could not tell is not remembered.
    const failing = () => Promise.reject(new Error('gateway away'));
    expect(await known.of('tickets', 'tk_x', failing)).toBeNull();
    expect(await known.recall('tickets', 'tk_x')).toBeUndefined();
  });

  it('counts an operation’s units in one window, each count of a turn taking its own place among them', async () => {
    await awayFromWindowEdge(60, 5);
    const policy: RatePolicy = { name: 'boards', quota: 20, windowSeconds: 60 };
    const budgets = new RateBudgets(redis, prefix, recordingLogger().logger);
    const who = ticketKeyIdentity(`bd_units_${randomUUID()}`);
    expect((await budgets.take(policy, who, 15)).remaining).toBe(5);
    const together = await Promise.all([budgets.take(policy, who, 3), budgets.take(policy, who)]);
    expect(together.map((d) => [d.allowed, d.remaining])).toEqual([
      [true, 2],
      [true, 1],
    ]);
    const refused = await budgets.take(policy, who, 2);
    expect([refused.allowed, refused.remaining]).toEqual([false, 0]);
    const [key] = (await redis.keys(`${prefix}ratelimit:boards:${who}:*`)) as [string];
    expect(Number(await redis.get(key))).toBe(21);
  });
});

describe('CredentialBudgets on a real Redis', () => {
  let redis: Redis;
  const prefix = `test:credential-budgets:${randomUUID()}:`;
  const policies = ratePolicies({
    ticketsRateLimit: 5,
    boardRateLimit: 4,
    boardSyncRateLimit: 6,
    cvRateLimit: 5,
    sessionRateLimit: 5,
    publicRateLimit: 6,
    publicWriteRateLimit: 3,
  });

  beforeAll(async () => {
    redis = await connectRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', 'credential-budgets-spec');
  });

  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  /** Budgets whose graph knows `known` keys, and counts what it was asked. */
  function budgetsKnowing(known: readonly string[]) {
    const asked: string[] = [];
    const counts = new CredentialBudgets(
      new RateBudgets(redis, prefix, recordingLogger().logger),
      new KnownCredentials(redis, prefix),
      policies,
      (kind, credential) => {
        asked.push(credential);
        return Promise.resolve(known.includes(credential) ? ticketKeyIdentity(credential) : null);
      },
    );
    return { counts, asked };
  }

  it('counts a known key as itself, asking the graph once', async () => {
    await awayFromWindowEdge(60, 5);
    const key = `tk_${randomUUID()}`;
    const { counts, asked } = budgetsKnowing([key]);
    const presented = [{ kind: 'tickets' as const, credential: key }];
    const remaining: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      const decisions = await counts.take(presented, '198.51.100.20');
      remaining.push(decisions.map((d) => `${d.policy.name} ${d.remaining}`).join(', '));
    }
    // The first sight also counts the address, for the look-up.
    expect(remaining).toEqual(['public 5, tickets 4', 'tickets 3', 'tickets 2', 'tickets 1', 'tickets 0']);
    expect(refusalOf(await counts.take(presented, '198.51.100.20'))?.policy.name).toBe('tickets');
    expect(asked).toEqual([key]);
  });

  it('counts invented keys against their address, until the address is refused before any look-up', async () => {
    await awayFromWindowEdge(60, 5);
    const { counts, asked } = budgetsKnowing([]);
    const address = `198.51.100.${Math.floor(Math.random() * 200) + 21}`;
    for (let i = 1; i <= 6; i += 1) {
      const decisions = await counts.take([{ kind: 'tickets', credential: `tk_${randomUUID()}` }], address);
      expect(decisions.map((d) => [d.policy.name, d.remaining])).toEqual([['public', 6 - i]]);
    }
    const refused = await counts.take([{ kind: 'tickets', credential: `tk_${randomUUID()}` }], address);
    expect(refusalOf(refused)?.policy.name).toBe('public');
    expect(asked).toHaveLength(6);
    // A refused credential met again is the address's too, without asking again.
    expect(
      refusalOf(await counts.takeUnknown([{ kind: 'tickets', credential: asked[0]! }], address))?.policy.name,
    ).toBe('public');
    expect(asked).toHaveLength(6);
  });

  it('counts an operation’s units against the key, and a refused key’s units against its address', async () => {
    await awayFromWindowEdge(60, 5);
    const key = `bd_${randomUUID()}`;
    const { counts } = budgetsKnowing([key]);
    const address = `203.0.113.${Math.floor(Math.random() * 200) + 21}`;
    const first = await counts.take([{ kind: 'board', credential: key }], address, 3);
    // The first sight counts the address once for the look-up, and the key for the work.
    expect(first.map((d) => [d.policy.name, d.remaining])).toEqual([
      ['public', 5],
      ['boards', 1],
    ]);
    const invented = await counts.take([{ kind: 'board', credential: `bd_${randomUUID()}` }], address, 3);
    expect(invented.map((d) => [d.policy.name, d.remaining])).toEqual([['public', 2]]);
  });

  it('moves a board device’s replayed offline work to its sync allowance, giving its arrival back, until the allowance is spent', async () => {
    await awayFromWindowEdge(60, 5);
    const key = `bd_${randomUUID()}`;
    const { counts } = budgetsKnowing([key]);
    const presented = [{ kind: 'board' as const, credential: key }];
    const address = '203.0.113.7';
    await counts.take(presented, address);
    const trail: string[] = [];
    for (let i = 0; i < 4; i += 1) {
      const arrival = await counts.take(presented, address);
      const synced = await counts.takeSync(presented, arrival, 2);
      trail.push(
        synced === undefined ? 'ordinary' : synced.map((d) => `${d.policy.name} ${d.remaining}`).join(),
      );
    }
    // Six in ten minutes, two units each: the fourth falls back to the ordinary budget.
    expect(trail).toEqual(['board-sync 4', 'board-sync 2', 'board-sync 0', 'ordinary']);
    // Each arrival was given back but the last: the board's minute holds its first request and that one.
    const [next] = await counts.take(presented, address);
    expect([next!.policy.name, next!.remaining]).toEqual(['boards', 1]);
    // Anything but one known board device has no allowance.
    const tickets = `tk_${randomUUID()}`;
    const other = budgetsKnowing([tickets]).counts;
    const asKey = [{ kind: 'tickets' as const, credential: tickets }];
    expect(await other.takeSync(asKey, await other.take(asKey, address), 1)).toBeUndefined();
  });
});

describe('RateBudgets without Redis', () => {
  it('lets every request through uncounted and warns once, not per request', async () => {
    const [port] = (await freePorts(1)) as [number];
    const away = new Redis(`redis://127.0.0.1:${port}`, {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    away.on('error', () => undefined);
    const { logger, lines } = recordingLogger();
    let failedOpen = 0;
    const budgets = new RateBudgets(away, 'test:', logger, { failedOpen: () => (failedOpen += 1) });
    const started = Date.now();
    for (let i = 0; i < 5; i += 1) {
      const decision = await budgets.take(POLICY, 'key:x');
      expect(decision).toEqual({ policy: POLICY, allowed: true });
      expect(rateLimitHeaders([decision])).toEqual({ 'RateLimit-Policy': '"tickets";q=3;w=60' });
    }
    expect(Date.now() - started).toBeLessThan(2_000);
    // Each one is counted for the metrics, though the log says it once.
    expect(failedOpen).toBe(5);
    expect(lines.filter((line) => line.level === 40).map((line) => line.msg)).toEqual([
      'rate limits are not enforced: their counts in Redis cannot be reached (failing open)',
    ]);
    const known = new KnownCredentials(away, 'test:');
    expect(await known.of('cv', 'cv_key', () => Promise.resolve('account:1'))).toBe('account:1');
    // Refused and not retried, the client has most likely ended already: ioredis's disconnect()
    // would then wait 2 s for its stream's close, which came and went, holding the worker open.
    if (away.status !== 'end') away.disconnect();
  });

  it("lets a turn's requests through together once a Redis that holds the line has not answered in time", async () => {
    // Accepts the connection and every command, and answers none.
    const held: Socket[] = [];
    const silent = createServer((socket) => {
      held.push(socket);
      socket.resume();
    });
    const mute = new Redis(`redis://127.0.0.1:${await listenOnLoopback(silent)}`, {
      enableReadyCheck: false,
      maxRetriesPerRequest: 0,
    });
    mute.on('error', () => undefined);
    try {
      let failedOpen = 0;
      const budgets = new RateBudgets(mute, 'test:', recordingLogger().logger, {
        failedOpen: () => (failedOpen += 1),
      });
      const started = Date.now();
      const decisions = await Promise.all([
        budgets.take(POLICY, 'key:a'),
        budgets.take(POLICY, 'key:b'),
        budgets.takeAll([{ policy: POLICY, who: 'key:c' }]),
      ]);
      const waited = Date.now() - started;
      expect(decisions.flat()).toEqual([
        { policy: POLICY, allowed: true },
        { policy: POLICY, allowed: true },
        { policy: POLICY, allowed: true },
      ]);
      expect(failedOpen).toBe(3);
      // The 250 ms allowance, once for the batch, not once after another.
      expect(waited).toBeGreaterThanOrEqual(240);
      expect(waited).toBeLessThan(1_500);
    } finally {
      mute.disconnect();
      for (const socket of held) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
