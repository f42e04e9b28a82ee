import type { EntityData } from '@mikro-orm/core';
import type { EntityManager } from '../../common/database';
import { Plan, type Product } from './plan.entity';

/**
 * How long a process answers from the catalogue it read. The table changes when the catalogue is
 * seeded (each release), which drops the copy at once in the process that seeds; another process,
 * or a row edited by hand, is seen within this.
 */
export const CATALOGUE_FRESH_MS = 60_000;

interface Snapshot {
  readAt: number;
  plans: Promise<readonly Plan[]>;
}

/**
 * The catalogue as each database last gave it, by connection: every `me`, plan list and entitlement
 * check reads it, and reading six unchanging rows through the ORM on each was 15% of the billing
 * subgraph's CPU per plan list, besides Postgres's own work (docs/performance-log/peers.md).
 */
const snapshots = new WeakMap<object, Snapshot>();

/** The plan catalogue in `billing.plans`. */
export class PlanRepository {
  constructor(private readonly em: EntityManager) {}

  /** Plans in selling order, all of them or one product's. */
  async list(product?: Product | null): Promise<Plan[]> {
    const plans = await this.catalogue();
    return plans.filter((plan) => !product || plan.product === product);
  }

  async findByKey(key: string): Promise<Plan | null> {
    return (await this.catalogue()).find((plan) => plan.key === key) ?? null;
  }

  /** Inserts missing plans and brings existing ones (by key) to these values, in one transaction. */
  async upsertAll(rows: EntityData<Plan>[]): Promise<void> {
    try {
      await this.em.transactional(async (em) => {
        await em.upsertMany(Plan, rows, { onConflictFields: ['key'], onConflictAction: 'merge' });
      });
    } finally {
      snapshots.delete(this.em.getConnection());
    }
  }

  /**
   * The rows in selling order, read at most once per CATALOGUE_FRESH_MS and connection. Read in an
   * EntityManager of their own, so no request's unit of work ever holds (or flushes) them; a read
   * that fails is forgotten, so the next request reads again.
   */
  private catalogue(): Promise<readonly Plan[]> {
    const connection = this.em.getConnection();
    const held = snapshots.get(connection);
    if (held !== undefined && Date.now() - held.readAt < CATALOGUE_FRESH_MS) return held.plans;
    const plans = this.em
      .fork({ clear: true })
      .find(Plan, {}, { orderBy: { sortOrder: 'asc' } })
      .then((rows) => Object.freeze(rows));
    const snapshot = { readAt: Date.now(), plans };
    snapshots.set(connection, snapshot);
    plans.catch(() => {
      if (snapshots.get(connection) === snapshot) snapshots.delete(connection);
    });
    return plans;
  }
}
