import { readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import BeeQueue from 'bee-queue';
import type { Config } from './config';
import { createRedisClient, Redis as IORedis, retryDelay, type Redis } from './redis';

export interface DeliveryJob {
  /** A row of tickets.webhook_deliveries, sms_messages or push_messages: Postgres holds the truth. */
  id: number;
}

/** The queues whose jobs name a delivery row (`DeliveryJob`). */
export type QueueName = 'webhooks' | 'sms' | 'push' | 'whatsapp';

/**
 * A job that carries its own work: a webhook payload Meta posted, its signature checked by the door
 * that took it (rest-adapter), for the tickets-events process to handle. Nothing else holds it, so
 * the job is retried on failure rather than left to a sweep.
 */
export interface PayloadJob {
  body: string;
  /** When the door took it (ms since the epoch). */
  receivedAt: number;
}

/** The queues whose jobs carry their payload (`PayloadJob`). */
export type PayloadQueueName = 'whatsapp-inbound';

/** How often, and how far apart, a payload job that failed (Postgres away) is run again. */
const PAYLOAD_RETRIES = 8;
const PAYLOAD_BACKOFF_MS = 1_000;

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

/**
 * bee-queue takes a client instead of options only when the client's constructor is named "Redis"
 * (node-redis' and ioredis' were); ioredis 5 mixes EventEmitter into its class, which renames it.
 */
const BeeQueueClient = class Redis extends IORedis {};

/**
 * bee-queue reads a MULTI reply as node-redis gives it (the values); from an ioredis client
 * (through Sentinel) each entry is [error, value].
 */
const multiValue = (entry: unknown) => Number(Array.isArray(entry) ? entry[1] : entry);

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
  private readonly queues = new Map<QueueName | PayloadQueueName, BeeQueue<never>>();

  /**
   * `redis`, a connection that fails fast (common/redis.ts), tells whether Redis answers now, so
   * that an enqueue while it is away fails at once, and reloads bee-queue's scripts after a restart.
   */
  constructor(
    private readonly config: Config,
    private readonly worker: boolean,
    private readonly redis?: Redis,
  ) {
    // A Redis back from a restart, or a replica promoted by Sentinel, has none of the scripts;
    // loaded at once, the worker's own script calls (delayed jobs, stalled jobs) work again too.
    redis?.on('ready', () => void loadBeeQueueScripts(redis).catch(() => undefined));
  }

  /**
   * How bee-queue reaches Redis. Its own client (node-redis 3) knows no Sentinel; through Sentinel
   * it is handed an ioredis client instead (bee-queue duplicates it for its blocking and
   * subscribing connections), which follows the master through a failover. That client holds
   * commands while the master is away, as node-redis does, so the worker's blocking wait simply
   * resumes on the new master instead of backing off ever longer; an enqueue has its own timeout.
   */
  private connection(name: QueueName | PayloadQueueName): unknown {
    const target = this.config.redis;
    if (target.kind === 'url') {
      // bee-queue's typings name node-redis' ClientOpts without shipping them; `url` is one of them.
      return {
        url: target.url,
        // As common/redis.ts: back within two seconds of Redis, however long it was away (node-redis
        // would otherwise wait ever longer between attempts).
        retry_strategy: ({ attempt }: { attempt: number }) => retryDelay(attempt),
      };
    }
    const client = createRedisClient(
      target,
      {
        connectionName: `bee-queue-${name}`,
        enableOfflineQueue: true,
        maxRetriesPerRequest: null,
        retryStrategy: retryDelay,
      },
      BeeQueueClient,
    );
    client.on('error', () => undefined);
    return client;
  }

  queue(name: QueueName): BeeQueue<DeliveryJob> {
    return this.open<DeliveryJob>(name);
  }

  payloadQueue(name: PayloadQueueName): BeeQueue<PayloadJob> {
    return this.open<PayloadJob>(name);
  }

  private open<T>(name: QueueName | PayloadQueueName): BeeQueue<T> {
    let queue = this.queues.get(name) as unknown as BeeQueue<T> | undefined;
    if (queue === undefined) {
      const created = new BeeQueue<T>(name, {
        prefix: `${this.config.redisPrefix}bq`,
        redis: this.connection(name) as never,
        // The client is this queue's alone, whatever made it.
        quitCommandClient: true,
        isWorker: this.worker,
        getEvents: false,
        sendEvents: false,
        activateDelayedJobs: this.worker,
        removeOnSuccess: true,
        removeOnFailure: true,
        // Delivery timing is the rows' business; bee-queue only needs to wake the worker.
        delayedDebounce: 50,
      });
      created.on('error', () => undefined);
      created.ready().catch(() => {
        // A queue whose first connection failed never tries again. A producer's next enqueue makes
        // a new one; a worker's keeps its handler and the sweep delivers meanwhile.
        if (this.worker || this.queues.get(name) !== (created as unknown)) return;
        this.queues.delete(name);
        created.close(0).catch(() => undefined);
      });
      this.queues.set(name, created as unknown as BeeQueue<never>);
      queue = created;
    }
    return queue;
  }

  /**
   * Enqueues work for a row. The job id names the row and its attempt count, so the relay, the
   * sweep and a redelivery asking for the same attempt add one job, not three. Any failure is a
   * QueueUnavailableError.
   */
  async enqueue(
    name: QueueName,
    id: number,
    attemptsSoFar: number,
    at?: Date,
    purpose?: string,
  ): Promise<void> {
    // `purpose` tells apart a second wake-up for the same attempt (an SMS held for WhatsApp, woken
    // early by a refusal), which the attempt's own job id would otherwise swallow.
    const jobId = `${name}-${id}-${attemptsSoFar}${purpose === undefined ? '' : `-${purpose}`}`;
    await this.save(name, () => {
      const job = this.queue(name).createJob({ id }).setId(jobId);
      if (at !== undefined && at.getTime() > Date.now()) job.delayUntil(at);
      return job;
    });
  }

  /** Enqueues a payload to handle, retried with a backoff if its handling fails; a QueueUnavailableError if not taken. */
  async enqueuePayload(name: PayloadQueueName, body: string): Promise<void> {
    await this.save(name, () =>
      this.payloadQueue(name)
        .createJob({ body, receivedAt: Date.now() })
        .retries(PAYLOAD_RETRIES)
        .backoff('exponential', PAYLOAD_BACKOFF_MS),
    );
  }

  /** Saves the job `make` builds within the enqueue timeout, loading bee-queue's scripts again after NOSCRIPT. */
  private async save(
    name: QueueName | PayloadQueueName,
    make: () => BeeQueue.Job<DeliveryJob> | BeeQueue.Job<PayloadJob>,
  ): Promise<void> {
    if (this.redis !== undefined && this.redis.status !== 'ready') {
      throw new QueueUnavailableError(`the ${name} queue is unavailable: Redis is ${this.redis.status}`);
    }
    const save = () =>
      withTimeout<unknown>(make().save(), ENQUEUE_TIMEOUT_MS, `no answer within ${ENQUEUE_TIMEOUT_MS} ms`);
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
    name: QueueName | PayloadQueueName,
  ): Promise<{ waiting: number; delayed: number; active: number; failed: number } | undefined> {
    if (this.redis !== undefined && this.redis.status !== 'ready') return undefined;
    try {
      const health = await withTimeout(this.open(name).checkHealth(), ENQUEUE_TIMEOUT_MS, 'no answer');
      return {
        waiting: multiValue(health.waiting),
        delayed: multiValue(health.delayed),
        active: multiValue(health.active),
        failed: multiValue(health.failed),
      };
    } catch {
      return undefined;
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.queues.values()].map((q) => q.close(5_000)));
    this.queues.clear();
  }
}
