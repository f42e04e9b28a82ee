import type { EntityManager } from '../../common/database';
import type { SubjectType } from './subscription.entity';

/** Metered usage per subject and calendar month (UTC): `billing.usage_months`. */
export class UsageRepository {
  constructor(private readonly em: EntityManager) {}

  /**
   * Adds one download to this month's count unless it already reached `limit` (null: no limit), in
   * one statement so parallel calls at the limit let exactly the remaining ones through. Returns the
   * new count, or null when nothing was added.
   */
  async addDownload(
    subjectType: SubjectType,
    subjectId: number,
    limit: number | null,
  ): Promise<number | null> {
    const [row] = await this.em.execute<{ downloads: number }[]>(
      `insert into billing.usage_months (subject_type, subject_id, month, downloads)
       values (?, ?, date_trunc('month', now() at time zone 'utc')::date, 1)
       on conflict (subject_type, subject_id, month) do update
         set downloads = usage_months.downloads + 1
         where ?::integer is null or usage_months.downloads < ?::integer
       returning downloads`,
      [subjectType, subjectId, limit, limit],
    );
    return row === undefined ? null : row.downloads;
  }

  /** Takes one download off this month's count, never below zero. */
  async removeDownload(subjectType: SubjectType, subjectId: number): Promise<void> {
    await this.em.execute(
      `update billing.usage_months set downloads = downloads - 1
        where subject_type = ? and subject_id = ? and downloads > 0
          and month = date_trunc('month', now() at time zone 'utc')::date`,
      [subjectType, subjectId],
    );
  }
}
