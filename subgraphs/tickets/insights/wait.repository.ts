import type { EntityManager } from '../../../common/database';
import {
  ESTIMATE_CREATED_WITHIN_MS,
  ESTIMATE_SAMPLE,
  ESTIMATE_WINDOW_MS,
  type ReadySample,
} from './estimate';

/** How long the board's median wait looks back. */
export const WAIT_WINDOW_MS = 3_600_000;

/** A branch's wait as the board shows it. */
export interface BranchWait {
  waiting: number;
  oldestWaitingSince: Date | null;
  /** percentile_cont(0.5) of created → ready over the tickets that became ready in the last hour. */
  medianWaitSeconds: number | null;
  readyLastHour: number;
  alertMinutes: number;
}

/**
 * What the live wait and the customer's estimate read, each in one statement: waiting tickets
 * through `tickets_branch_waiting_index` (waiting ones only, however many the branch has had or left
 * ready), recent ready ones through the branch's creation index over the last
 * ESTIMATE_CREATED_WITHIN_MS.
 */
export class WaitRepository {
  constructor(private readonly em: EntityManager) {}

  /** The estimate's inputs for a waiting ticket at `now`. */
  async estimateInputs(
    ticket: { id: number; branchId: number; createdAt: Date },
    now: Date,
  ): Promise<{ recent: ReadySample[]; ahead: number }> {
    const rows = await this.em.execute<
      { created_ms: number | null; ready_ms: number | null; ahead: string }[]
    >(
      `with recent as (
         select created_at, ready_at from tickets.tickets
          where branch_id = ? and created_at > ? and ready_at <= ? and ready_at > ?
          order by ready_at desc limit ?
       ), ahead as (
         select count(*) as ahead from tickets.tickets
          where branch_id = ? and status = 'waiting' and (created_at, id) < (?, ?)
       )
       select extract(epoch from r.created_at) * 1000 as created_ms,
              extract(epoch from r.ready_at) * 1000 as ready_ms, a.ahead
         from ahead a left join recent r on true`,
      [
        ticket.branchId,
        new Date(now.getTime() - ESTIMATE_CREATED_WITHIN_MS),
        now,
        new Date(now.getTime() - ESTIMATE_WINDOW_MS),
        ESTIMATE_SAMPLE,
        ticket.branchId,
        ticket.createdAt,
        ticket.id,
      ],
    );
    const recent: ReadySample[] = [];
    for (const row of rows) {
      if (row.created_ms !== null && row.ready_ms !== null) {
        recent.push({ createdAt: Number(row.created_ms), readyAt: Number(row.ready_ms) });
      }
    }
    return { recent, ahead: Number(rows[0]?.ahead ?? 0) };
  }

  /** The branch's wait at `now`, or null for no such branch. */
  async branchWait(branchId: number, now: Date): Promise<BranchWait | null> {
    const [row] = await this.em.execute<
      {
        waiting: string;
        oldest: Date | string | null;
        median_seconds: number | null;
        ready_last_hour: string;
        alert_minutes: number;
      }[]
    >(
      `select q.waiting, q.oldest, w.median_seconds, w.ready_last_hour, v.wait_alert_minutes as alert_minutes
       from tickets.branches b
       join tickets.venues v on v.id = b.venue_id
       cross join lateral (
         select count(*) as waiting, min(created_at) as oldest
           from tickets.tickets where branch_id = b.id and status = 'waiting'
       ) q
       cross join lateral (
         select percentile_cont(0.5) within group (order by extract(epoch from ready_at - created_at))
                  as median_seconds,
                count(*) as ready_last_hour
           from tickets.tickets
          where branch_id = b.id and created_at > ? and ready_at <= ? and ready_at > ?
       ) w
       where b.id = ?`,
      [
        new Date(now.getTime() - ESTIMATE_CREATED_WITHIN_MS),
        now,
        new Date(now.getTime() - WAIT_WINDOW_MS),
        branchId,
      ],
    );
    if (row === undefined) return null;
    return {
      waiting: Number(row.waiting),
      oldestWaitingSince: row.oldest === null ? null : new Date(row.oldest),
      medianWaitSeconds: row.median_seconds === null ? null : Number(row.median_seconds),
      readyLastHour: Number(row.ready_last_hour),
      alertMinutes: row.alert_minutes,
    };
  }
}
