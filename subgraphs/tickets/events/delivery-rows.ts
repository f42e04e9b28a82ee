import type { MikroORM } from '../../../common/database';
import type { Logger } from '../../../common/logger';
import { DeliveryRepository, type DeliveryTableName } from './delivery.repository';
import { QueueUnavailableError, type JobQueues, type QueueName } from './job-queues';

/** The document's limit for webhooks, used for SMS too: up to 5 retries after the first attempt. */
export const MAX_RETRIES = 5;

/** The wait before retry `n` (1-based): the schedule's entry, its last one once it runs out. */
export function retryDelayMs(schedule: readonly number[], retry: number): number {
  return schedule[Math.min(retry, schedule.length) - 1] ?? 0;
}

const SWEEP_MS = 2_000;

/** bee-queue's stallInterval: a job whose worker stopped renewing it for this long is stalled. */
const STALLED_CHECK_MS = 5_000;

/** A table of delivery rows: `pending` → busy (claimed by a worker) → settled. */
export interface DeliveryTable {
  table: DeliveryTableName;
  queue: QueueName;
  busyStatus: 'delivering' | 'sending';
}

export const WEBHOOK_ROWS: DeliveryTable = {
  table: 'tickets.webhook_deliveries',
  queue: 'webhooks',
  busyStatus: 'delivering',
};

export const SMS_ROWS: DeliveryTable = { table: 'tickets.sms_messages', queue: 'sms', busyStatus: 'sending' };

export const PUSH_ROWS: DeliveryTable = {
  table: 'tickets.push_messages',
  queue: 'push',
  busyStatus: 'sending',
};

/**
 * The safety net under the job queue: frees rows whose worker died mid-attempt, and enqueues due
 * rows whose job was lost (a crash between commit and enqueue, a Redis restart). Job ids make a
 * job that still exists count once. Answers the due rows the queue could not take (Redis away),
 * for the worker to deliver itself.
 */
export async function sweepOverdue(
  deliveries: DeliveryRepository,
  queues: JobQueues,
  rows: DeliveryTable,
): Promise<number[]> {
  await deliveries.releaseExpiredClaims(rows.table, rows.busyStatus);
  const due = await deliveries.overdue(rows.table);
  for (const [index, row] of due.entries()) {
    try {
      await queues.enqueue(rows.queue, row.id, row.attempts);
    } catch (error) {
      if (!(error instanceof QueueUnavailableError)) throw error;
      // One refusal is enough to know: the rest would wait for the same absent Redis.
      return due.slice(index).map((r) => r.id);
    }
  }
  return [];
}

/**
 * A worker over one delivery table: `deliver` for each job of its queue, and the overdue sweep
 * every two seconds. The queue itself stops with JobQueues.
 */
export abstract class DeliveryRowWorker {
  private sweeper?: NodeJS.Timeout;
  /** A sweep that delivers rows itself (Redis away) may outlast the interval; one runs at a time. */
  private sweeping = false;

  protected constructor(
    private readonly rows: DeliveryTable,
    private readonly concurrency: number,
    protected readonly orm: MikroORM,
    protected readonly queues: JobQueues,
    protected readonly logger: Logger,
  ) {}

  start(): void {
    const queue = this.queues.queue(this.rows.queue);
    queue.process(this.concurrency, (job) => this.deliver(job.data.id));
    // A job held by a worker that was killed stays active for ever unless checked, and its id (the
    // row and attempt) then refuses the sweep's new job for the same attempt: the row would wait
    // for nobody. The check puts such a job back in the queue for a live worker; the row's own
    // claim still keeps it from being sent while that claim lasts.
    queue.checkStalledJobs(STALLED_CHECK_MS).catch((error: unknown) => {
      this.logger.warn({ err: error, queue: this.rows.queue }, 'stalled job check failed');
    });
    this.sweeper = setInterval(() => void this.sweep(), SWEEP_MS);
  }

  stop(): void {
    clearInterval(this.sweeper);
  }

  /** Attempts the row once; a job for a row with nothing left to do does nothing. */
  abstract deliver(id: number): Promise<void>;

  /** The delivery rows through an EntityManager of their own, one per job or write. */
  protected deliveries(): DeliveryRepository {
    return new DeliveryRepository(this.orm.em.fork());
  }

  /**
   * One sweep at a time: while the queue is away a sweep delivers the due rows itself, as many at
   * once as the queue would, and may outlast the interval. Deliveries go on without Redis, each a
   * sweep later than the queue would have made it.
   */
  private async sweep(): Promise<void> {
    if (this.sweeping) return;
    this.sweeping = true;
    try {
      const unqueued = await sweepOverdue(this.deliveries(), this.queues, this.rows);
      await Promise.all(
        Array.from({ length: Math.min(this.concurrency, unqueued.length) }, async () => {
          for (let id = unqueued.shift(); id !== undefined; id = unqueued.shift()) {
            await this.deliverWithoutQueue(id);
          }
        }),
      );
    } catch (error) {
      this.logger.warn({ err: error, table: this.rows.table }, 'overdue sweep failed');
    } finally {
      this.sweeping = false;
    }
  }

  private async deliverWithoutQueue(id: number): Promise<void> {
    try {
      await this.deliver(id);
    } catch (error) {
      // The attempt is recorded before its retry is enqueued, so a refused enqueue leaves the row
      // pending with its next time, this sweep's again when due.
      if (error instanceof QueueUnavailableError) return;
      this.logger.warn({ err: error, table: this.rows.table, id }, 'delivery without the queue failed');
    }
  }
}
