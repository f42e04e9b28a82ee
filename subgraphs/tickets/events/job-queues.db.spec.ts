import { loadConfig } from '../../../common/config';
import { connectRedis, type Redis } from '../../../common/redis';
import { startOwnRedis, type OwnServer } from '../../../test/support/own-servers';
import { waitUntil } from '../../../test/support/wait';
import { JobQueues, QueueUnavailableError } from './job-queues';

describe('JobQueues across a Redis restart, on a Redis of the test’s own', () => {
  let server: OwnServer;
  let redis: Redis;
  let queues: JobQueues;
  const processed: number[] = [];

  beforeAll(async () => {
    server = await startOwnRedis();
    const config = loadConfig({ ...process.env, REDIS_URL: server.url, REDIS_PREFIX: 'job-queues-spec:' });
    redis = await connectRedis(config.redis, 'job-queues-spec');
    queues = new JobQueues(config, true, redis);
    queues.queue('webhooks').process(1, (job) => {
      processed.push(job.data.id);
      return Promise.resolve();
    });
    await queues.enqueue('webhooks', 1, 0);
    await waitUntil(() => processed.includes(1), 10_000, 'the first job');
  });

  afterAll(async () => {
    await queues?.close();
    redis?.disconnect();
    await server?.destroy();
  });

  it('refuses a job with QueueUnavailableError while Redis is away, instead of holding it', async () => {
    await server.stop();
    await waitUntil(() => redis.status !== 'ready', 5_000, 'the connection to notice');
    const refused = queues.enqueue('webhooks', 2, 0);
    await expect(refused).rejects.toBeInstanceOf(QueueUnavailableError);
    await expect(refused).rejects.toThrow('the webhooks queue is unavailable: Redis is');
  });

  it('takes and runs jobs again once Redis is back empty, its scripts loaded anew', async () => {
    await server.start();
    // bee-queue's own connection returns on its own schedule; until then an enqueue times out.
    await waitUntil(
      () =>
        queues.enqueue('webhooks', 3, 0).then(
          () => true,
          () => false,
        ),
      15_000,
      'an enqueue to succeed',
    );
    await waitUntil(() => processed.includes(3), 10_000, 'the job after the restart');
  });
});
