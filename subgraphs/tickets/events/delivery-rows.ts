import type { EntityManager, MikroORM } from '../../../common/database';
import type { Logger } from '../../../common/logger';
import type { JobQueues, QueueName } from './job-queues';

/** The document's limit for webhooks, used for SMS too: up to 5 retries after the first attempt. */
export const MAX_RETRIES = 5;

/** The wait before retry `n` (1-based): the schedule's entry, its last one once it runs out. */
export function retryDelayMs(schedule: readonly number[], retry: number): number {
  return schedule[Math.min(retry, schedule.length) - 1] ?? 0;
}

const SWEEP_MS = 2_000;

/** A table of delivery rows: `pending` → busy (claimed by a worker) → settled. */
export interface DeliveryTable {
  table: 'tickets.webhook_deliveries' | 'tickets.sms_messages' | 'tickets.push_messages';
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
 * job that still exists count once.
 */
export async function sweepOverdue(em: EntityManager, queues: JobQueues, rows: DeliveryTable): Promise<void> {
  await em.execute(
    `update ${rows.table} set status = 'pending', locked_until = null, updated_at = now()
      where status = ? and locked_until < now()`,
    [rows.busyStatus],
  );
  const due = await em.execute<{ id: string; attempts: number }[]>(
    `select id, attempts from ${rows.table}
      where status = 'pending' and next_attempt_at <= now() - interval '2 seconds'
      order by next_attempt_at limit 500`,
  );
  for (const row of due) await queues.enqueue(rows.queue, Number(row.id), row.attempts);
}

/**
 * A worker over one delivery table: `deliver` for each job of its queue, and the overdue sweep
 * every two seconds. The queue itself stops with JobQueues.
 */
export abstract class DeliveryRowWorker {
  private sweeper?: NodeJS.Timeout;

  protected constructor(
    private readonly rows: DeliveryTable,
    private readonly concurrency: number,
    protected readonly orm: MikroORM,
    protected readonly queues: JobQueues,
    protected readonly logger: Logger,
  ) {}

  start(): void {
    this.queues.queue(this.rows.queue).process(this.concurrency, (job) => this.deliver(job.data.id));
    this.sweeper = setInterval(
      () =>
        void sweepOverdue(this.orm.em.fork(), this.queues, this.rows).catch((error: unknown) =>
          this.logger.warn({ err: error, table: this.rows.table }, 'overdue sweep failed'),
        ),
      SWEEP_MS,
    );
  }

  stop(): void {
    clearInterval(this.sweeper);
  }

  /** Attempts the row once; a job for a row with nothing left to do does nothing. */
  abstract deliver(id: number): Promise<void>;
}
