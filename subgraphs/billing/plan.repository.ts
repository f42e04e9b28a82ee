import type { EntityData } from '@mikro-orm/core';
import type { EntityManager } from '../../common/database';
import { Plan, type Product } from './plan.entity';

/** The plan catalogue in `billing.plans`. */
export class PlanRepository {
  constructor(private readonly em: EntityManager) {}

  /** Plans in selling order, all of them or one product's. */
  list(product?: Product | null): Promise<Plan[]> {
    return this.em.find(Plan, product ? { product } : {}, { orderBy: { sortOrder: 'asc' } });
  }

  findByKey(key: string): Promise<Plan | null> {
    return this.em.findOne(Plan, { key });
  }

  /** Inserts missing plans and brings existing ones (by key) to these values, in one transaction. */
  async upsertAll(rows: EntityData<Plan>[]): Promise<void> {
    await this.em.transactional(async (em) => {
      await em.upsertMany(Plan, rows, { onConflictFields: ['key'], onConflictAction: 'merge' });
    });
  }
}
