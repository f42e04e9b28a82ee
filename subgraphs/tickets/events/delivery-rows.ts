import type { EntityManager } from '../../../common/database';
import type { JobQueues, QueueName } from './job-queues';

/** The document's limit for webhooks, used for SMS too: up to 5 retries after the first attempt. */
export const MAX_RETRIES = 5;

/** The wait before retry `n` (1-based): the schedule's entry, its last one once it runs out. */
export function retryDelayMs(schedule: readonly number[], retry: number): number {
  return schedule[Math.min(retry, schedule.length) - 1] ?? 0;
}

/** A table of delivery rows: `pending` → busy (claimed by a worker) → settled. */
export interface DeliveryTable {
  table: 'tickets.webhook_deliveries' | 'tickets.sms_messages';
  queue: QueueName;
  busyStatus: 'delivering' | 'sending';
}

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
