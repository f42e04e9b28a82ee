import type { RequiredEntityData } from '@mikro-orm/core';
import type { EntityManager } from '../../common/database';
import { Subscription, type SubjectType } from './subscription.entity';

/** Who is on which plan: `billing.subscriptions`, one row per subject. */
export class SubscriptionRepository {
  constructor(private readonly em: EntityManager) {}

  findBySubject(subjectType: SubjectType, subjectId: number): Promise<Subscription | null> {
    return this.em.findOne(Subscription, { subjectType, subjectId });
  }

  findActive(subjectType: SubjectType, subjectId: number): Promise<Subscription | null> {
    return this.em.findOne(Subscription, { subjectType, subjectId, status: 'active' });
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
