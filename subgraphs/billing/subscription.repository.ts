import type { RequiredEntityData } from '@mikro-orm/core';
import type { EntityManager } from '../../common/database';
import { Subscription, type SubjectType } from './subscription.entity';

/** A subject's subscription, if any, and what it has used this month. */
export interface Standing {
  subscription: Subscription | null;
  downloadsThisMonth: number;
}

/** Who is on which plan: `billing.subscriptions`, one row per subject. */
export class SubscriptionRepository {
  constructor(private readonly em: EntityManager) {}

  findBySubject(subjectType: SubjectType, subjectId: number): Promise<Subscription | null> {
    return this.em.findOne(Subscription, { subjectType, subjectId });
  }

  /**
   * The subject's subscription (any status) and its downloads this calendar month (UTC), in one
   * statement: what an account's `plan`, `subscription` and `usage` read together.
   */
  async standingOf(subjectType: SubjectType, subjectId: number): Promise<Standing> {
    const rows = await this.em.execute<(Record<string, unknown> & { downloads_this_month: number })[]>(
      `select s.*, coalesce(u.downloads, 0) as downloads_this_month
         from (select 1) as one
         left join billing.subscriptions s on s.subject_type = ? and s.subject_id = ?
         left join billing.usage_months u on u.subject_type = ? and u.subject_id = ?
           and u.month = date_trunc('month', now() at time zone 'utc')::date`,
      [subjectType, subjectId, subjectType, subjectId],
    );
    const { downloads_this_month: downloadsThisMonth, ...columns } = rows[0]!;
    return {
      subscription: columns.id === null ? null : this.em.map(Subscription, columns),
      downloadsThisMonth,
    };
  }

  async create(values: RequiredEntityData<Subscription>): Promise<Subscription> {
    const subscription = this.em.create(Subscription, values);
    await this.em.flush();
    return subscription;
  }

  /** Keeps the move in `billing.subscription_changes`, the subject's plan history. */
  async recordChange(change: {
    subjectType: SubjectType;
    subjectId: number;
    fromPlanKey: string | null;
    toPlanKey: string;
    changedByUserId: number | null;
  }): Promise<void> {
    await this.em.execute(
      `insert into billing.subscription_changes
         (subject_type, subject_id, from_plan_key, to_plan_key, changed_by_user_id) values (?, ?, ?, ?, ?)`,
      [change.subjectType, change.subjectId, change.fromPlanKey, change.toPlanKey, change.changedByUserId],
    );
  }

  async history(
    subjectType: SubjectType,
    subjectId: number,
  ): Promise<{ fromPlanKey: string | null; toPlanKey: string; changedByUserId: number | null; at: Date }[]> {
    const rows = await this.em.execute<
      {
        from_plan_key: string | null;
        to_plan_key: string;
        changed_by_user_id: string | null;
        created_at: Date | string;
      }[]
    >(
      `select from_plan_key, to_plan_key, changed_by_user_id, created_at from billing.subscription_changes
        where subject_type = ? and subject_id = ? order by id`,
      [subjectType, subjectId],
    );
    return rows.map((row) => ({
      fromPlanKey: row.from_plan_key,
      toPlanKey: row.to_plan_key,
      changedByUserId: row.changed_by_user_id === null ? null : Number(row.changed_by_user_id),
      at: new Date(row.created_at),
    }));
  }

  /** Writes the changes made to a subscription this repository returned. */
  async save(subscription: Subscription): Promise<void> {
    await this.em.persist(subscription).flush();
  }
}
