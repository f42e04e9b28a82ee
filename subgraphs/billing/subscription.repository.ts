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

  /** Writes the changes made to a subscription this repository returned. */
  async save(subscription: Subscription): Promise<void> {
    await this.em.persist(subscription).flush();
  }
}
