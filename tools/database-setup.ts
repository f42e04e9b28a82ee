import type { Config } from '../common/config';
import { ensureDatabase, migrateSchema, openSchema } from '../common/database';
import type { Logger } from '../common/logger';
import { PlanService } from '../subgraphs/billing/plan.service';
import { billingSubgraph } from '../subgraphs/billing/billing.subgraph';
import { SUBGRAPHS } from '../subgraphs';

export interface MigrationReport {
  createdDatabase: boolean;
  applied: Record<string, string[]>;
}

/** Creates the database when missing and applies every subgraph's pending migrations. */
export async function migrateAll(config: Config, logger?: Logger): Promise<MigrationReport> {
  const createdDatabase = await ensureDatabase(config.databaseUrl);
  const applied: Record<string, string[]> = {};
  for (const subgraph of SUBGRAPHS) {
    applied[subgraph.name] = await migrateSchema(config, subgraph.schemaModule, logger);
  }
  return { createdDatabase, applied };
}

/** Writes the reference data every environment needs: the plan catalogue. */
export async function seedReferenceData(config: Config, logger?: Logger): Promise<{ plans: number }> {
  const orm = await openSchema(config, billingSubgraph.schemaModule, logger);
  try {
    return { plans: await new PlanService(orm.em.fork()).seedCatalogue() };
  } finally {
    await orm.close(true);
  }
}
