import BeeQueue from 'bee-queue';
import type { Config } from '../../../common/config';

export interface DeliveryJob {
  /** A row of tickets.webhook_deliveries, sms_messages or push_messages: Postgres holds the truth. */
  id: number;
}

export type QueueName = 'webhooks' | 'sms' | 'push';

/**
 * The bee-queue queues that carry delivery work. A job only names a row; the row says whether
 * there is still anything to do, so a job that runs twice or late does no harm, and a lost job is
 * found again by the worker's sweep of overdue rows.
 */
export class JobQueues {
  private readonly queues = new Map<QueueName, BeeQueue<DeliveryJob>>();

  constructor(
    private readonly config: Config,
    private readonly worker: boolean,
  ) {}

  queue(name: QueueName): BeeQueue<DeliveryJob> {
    let queue = this.queues.get(name);
    if (queue === undefined) {
      queue = new BeeQueue<DeliveryJob>(name, {
        prefix: `${this.config.redisPrefix}bq`,
        // bee-queue's typings name node-redis' ClientOpts without shipping them; `url` is one of them.
        redis: { url: this.config.redisUrl } as never,
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
   * sweep and a redelivery asking for the same attempt add one job, not three.
   */
  async enqueue(name: QueueName, id: number, attemptsSoFar: number, at?: Date): Promise<void> {
    const job = this.queue(name).createJob({ id }).setId(`${name}-${id}-${attemptsSoFar}`);
    if (at !== undefined && at.getTime() > Date.now()) job.delayUntil(at);
    await job.save();
  }

  async close(): Promise<void> {
    await Promise.all([...this.queues.values()].map((q) => q.close(5_000)));
    this.queues.clear();
  }
}
