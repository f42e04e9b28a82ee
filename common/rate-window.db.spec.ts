import { randomUUID } from 'node:crypto';
import { connect, createServer, type Socket } from 'node:net';
import { Redis } from 'ioredis';
import { connectRedis } from './redis';
import { countInWindow } from './rate-window';
import { listenOnLoopback } from '../test/support/loopback';

const redisUrl = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');

describe('countInWindow on a real Redis', () => {
  let redis: Redis;
  const prefix = `test:rate-window:${randomUUID()}:`;

  beforeAll(async () => {
    redis = await connectRedis(redisUrl.href, 'rate-window-spec');
  });

  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  it('sends the counts asked while a batch is out together once it is answered, each exact and distinct', async () => {
    // Redis itself, its answers held back 150 ms, so that a batch is surely out while more are asked.
    const sockets: Socket[] = [];
    const slow = createServer((client) => {
      const upstream = connect(Number(redisUrl.port || 6379), redisUrl.hostname);
      sockets.push(client, upstream);
      client.pipe(upstream);
      upstream.on('data', (chunk: Buffer) => setTimeout(() => client.write(chunk), 150));
      client.on('error', () => upstream.destroy());
      upstream.on('error', () => client.destroy());
    });
    const far = new Redis(`redis://127.0.0.1:${await listenOnLoopback(slow)}`);
    await far.ping();
    const pipelines = jest.spyOn(far, 'pipeline');
    const incrs = jest.spyOn(far, 'incr');
    // A batch of one key is its one command; of more, a pipeline.
    const batchesSent = () => pipelines.mock.calls.length + incrs.mock.calls.length;
    try {
      const asked = [countInWindow(far, `${prefix}a`, 3600, 5_000)];
      for (const pause of [20, 20, 20]) {
        await new Promise((resolve) => setTimeout(resolve, pause));
        asked.push(countInWindow(far, `${prefix}a`, 3600, 5_000));
      }
      asked.push(countInWindow(far, `${prefix}b`, 3600, 5_000));
      const counts = await Promise.all(asked);
      expect(counts.map(({ count }) => count)).toEqual([1, 2, 3, 4, 1]);
      // The first alone; the four asked while it was out, together (two keys: one pipeline).
      expect(batchesSent()).toBe(2);
      expect(pipelines).toHaveBeenCalledTimes(1);
      // Idle again: the next count goes out on the next turn by itself.
      expect((await countInWindow(far, `${prefix}b`, 3600, 5_000)).count).toBe(2);
      expect(batchesSent()).toBe(3);
      expect(incrs).toHaveBeenCalledTimes(2);
    } finally {
      pipelines.mockRestore();
      incrs.mockRestore();
      far.disconnect();
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => slow.close(resolve));
    }
  });

  it('fails a count waiting behind an unanswered batch open within its own allowance', async () => {
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
      const started = Date.now();
      const out = countInWindow(mute, 'x', 60, 400).then(
        () => 'answered',
        () => Date.now() - started,
      );
      await new Promise((resolve) => setTimeout(resolve, 200));
      const behindAsked = Date.now();
      const behind = countInWindow(mute, 'y', 60, 400).then(
        () => 'answered',
        () => Date.now() - behindAsked,
      );
      const [outFailedAfter, behindFailedAfter] = await Promise.all([out, behind]);
      expect(outFailedAfter).toBeGreaterThanOrEqual(390);
      expect(outFailedAfter).toBeLessThan(1_000);
      // Its own 400 ms from when it was asked, not the batch ahead's 400 plus its own.
      expect(behindFailedAfter).toBeGreaterThanOrEqual(390);
      expect(behindFailedAfter).toBeLessThan(700);
    } finally {
      mute.disconnect();
      for (const socket of held) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('counts a request whose answer came while the process was kept off the CPU past its allowance', async () => {
    const name = `${prefix}stalled`;
    const window = Math.floor(Date.now() / 60_000);
    const counting = countInWindow(redis, name, 60, 50).then(
      ({ count }) => count,
      (error: Error) => error.message,
    );
    // The batch goes out on the next turn; then the process is held 200 ms, four allowances, as a
    // busy machine holds it, while Redis answers into the socket.
    await new Promise((resolve) => setImmediate(resolve));
    const heldUntil = Date.now() + 200;
    while (Date.now() < heldUntil) {
      // Spinning: no timer and no socket is served until this turn ends.
    }
    expect(await counting).toBe(1);
    expect(await redis.get(`${name}:${window}`)).toBe('1');
  });
});
