import type { EntityManager } from '../../common/database';
import { PLAN_CATALOGUE } from './plan.catalogue';
import { Plan, type Product } from './plan.entity';

export class PlanService {
  constructor(private readonly em: EntityManager) {}

  /** The catalogue in its selling order, optionally for one product. */
  list(product?: Product | null): Promise<Plan[]> {
    return this.em.find(Plan, product ? { product } : {}, { orderBy: { sortOrder: 'asc' } });
  }

  findByKey(key: string): Promise<Plan | null> {
    return this.em.findOne(Plan, { key });
  }

  /**
   * Writes the catalogue as code into the table: missing plans are inserted and existing ones
   * brought to the catalogue's values, so running it again changes nothing.
   */
  async seedCatalogue(): Promise<number> {
    const rows = PLAN_CATALOGUE.map((entry, index) => ({ ...entry, sortOrder: index + 1 }));
    await this.em.transactional(async (em) => {
      await em.upsertMany(Plan, rows, { onConflictFields: ['key'], onConflictAction: 'merge' });
    });
    return rows.length;
  }
}
