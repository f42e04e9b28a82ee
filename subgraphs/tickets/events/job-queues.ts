import { readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import BeeQueue from 'bee-queue';
import type { Config } from '../../../common/config';
import type { Redis } from '../../../common/redis';

export interface DeliveryJob {
  /** A row of tickets.webhook_deliveries, sms_messages or push_messages: Postgres holds the truth. */
  id: number;
}

export type QueueName = 'webhooks' | 'sms' | 'push';

/**
 * Longest an enqueue may take. bee-queue's Redis client holds commands while Redis is away rather
 * than failing them; the rows in Postgres are the truth and the sweep finds them, so a caller
 * moves on instead of waiting for Redis to come back.
 */
const ENQUEUE_TIMEOUT_MS = 1_000;

/** The job queue did not take the job (Redis away or refusing); the row waits for the sweep. */
export class QueueUnavailableError extends Error {
  constructor(message: string, options?: { cause: unknown }) {
    super(message, options);
    this.name = 'QueueUnavailableError';
  }
}

/**
 * bee-queue loads its Lua scripts into Redis once, when a queue connects, and calls them by hash
 * ever after; a Redis restart forgets them, and every enqueue would fail with NOSCRIPT until the
 * process restarted. They are loaded again from bee-queue's own files.
 */
async function loadBeeQueueScripts(redis: Redis): Promise<void> {
  const folder = dirname(require.resolve('bee-queue/lib/lua/index.js'));
  const files = (await readdir(folder)).filter((file) => file.endsWith('.lua'));
  for (const file of files) await redis.script('LOAD', await readFile(join(folder, file), 'utf8'));
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([promise, timedOut]).finally(() => clearTimeout(timer));
}

/**
 * The bee-queue queues that carry delivery work. A job only names a row; the row says whether
 * there is still anything to do, so a job that runs twice or late does no harm, and a lost job is
 * found again by the worker's sweep of overdue rows.
 */
export class JobQueues {
  private readonly queues = new Map<QueueName, BeeQueue<DeliveryJob>>();

  /**
   * `redis`, a connection that fails fast (common/redis.ts), tells whether Redis answers now, so
   * that an enqueue while it is away fails at once, and reloads bee-queue's scripts after a restart.
   */
  constructor(
    private readonly config: Config,
    private readonly worker: boolean,
    private readonly redis?: Redis,
  ) {}

  queue(name: QueueName): BeeQueue<DeliveryJob> {
    let queue = this.queues.get(name);
    if (queue === undefined) {
      queue = new BeeQueue<DeliveryJob>(name, {
        prefix: `${this.config.redisPrefix}bq`,
        // bee-queue's typings name node-redis' ClientOpts without shipping them; `url` is one of them.
        redis: {
          url: this.config.redisUrl,
          // As common/redis.ts: back within two seconds of Redis, however long it was away (node-redis
          // would otherwise wait ever longer between attempts).
          retry_strategy: ({ attempt }: { attempt: number }) => Math.min(attempt * 200, 2_000),
        } as never,
        isWorker: this.worker,
        getEvents: false,
        sendEvents: false,
        activateDelayedJobs: this.worker,
        removeOnSuccess: true,
        removeOnFailure: true,
        // Delivery timing is the rows' business; bee-queue only needs to wake the worker.
        delayedDebounce: 50,
      });
      queue.on('error', () => undefined);
      this.queues.set(name, queue);
    }
    return queue;
  }

  /**
   * Enqueues work for a row. The job id names the row and its attempt count, so the relay, the
   * sweep and a redelivery asking for the same attempt add one job, not three. Any failure is a
   * QueueUnavailableError.
   */
  async enqueue(name: QueueName, id: number, attemptsSoFar: number, at?: Date): Promise<void> {
    if (this.redis !== undefined && this.redis.status !== 'ready') {
      throw new QueueUnavailableError(`the ${name} queue is unavailable: Redis is ${this.redis.status}`);
    }
    const save = () => {
      const job = this.queue(name).createJob({ id }).setId(`${name}-${id}-${attemptsSoFar}`);
      if (at !== undefined && at.getTime() > Date.now()) job.delayUntil(at);
      return withTimeout(job.save(), ENQUEUE_TIMEOUT_MS, `no answer within ${ENQUEUE_TIMEOUT_MS} ms`);
    };
    try {
      try {
        await save();
      } catch (error) {
        if (this.redis === undefined || !/^NOSCRIPT/.test((error as Error).message)) throw error;
        await loadBeeQueueScripts(this.redis);
        await save();
      }
    } catch (error) {
      throw new QueueUnavailableError(`the ${name} queue did not take the job: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }

  /** A queue's job counts, or undefined while Redis does not answer within the enqueue timeout. */
  async health(
    name: QueueName,
  ): Promise<{ waiting: number; delayed: number; active: number; failed: number } | undefined> {
    if (this.redis !== undefined && this.redis.status !== 'ready') return undefined;
    try {
      return await withTimeout(this.queue(name).checkHealth(), ENQUEUE_TIMEOUT_MS, 'no answer');
    } catch {
      return undefined;
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.queues.values()].map((q) => q.close(5_000)));
    this.queues.clear();
  }
}
