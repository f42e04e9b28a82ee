import { PLAN_CATALOGUE } from './plan.catalogue';
import type { Plan, Product } from './plan.entity';
import type { PlanRepository } from './plan.repository';

/** The plan catalogue: what is sold, in which order, as the code says. */
export class PlanService {
  constructor(private readonly plans: PlanRepository) {}

  /** The catalogue in its selling order, optionally for one product. */
  list(product?: Product | null): Promise<Plan[]> {
    return this.plans.list(product);
  }

  findByKey(key: string): Promise<Plan | null> {
    return this.plans.findByKey(key);
  }

  /**
   * Writes the catalogue as code into the table: missing plans are inserted and existing ones
   * brought to the catalogue's values, so running it again changes nothing.
   */
  async seedCatalogue(): Promise<number> {
    const rows = PLAN_CATALOGUE.map((entry, index) => ({ ...entry, sortOrder: index + 1 }));
    await this.plans.upsertAll(rows);
    return rows.length;
  }
}
