import type { Config } from '../common/config';
import { ensureDatabase, migrateSchema, openSchema } from '../common/database';
import type { Logger } from '../common/logger';
import { cvSubgraph } from '../subgraphs/cv/cv.subgraph';
import { TemplateService } from '../subgraphs/cv/template.service';
import { PlanService } from '../subgraphs/billing/plan.service';
import { billingSubgraph } from '../subgraphs/billing/billing.subgraph';
import { SUBGRAPHS } from '../subgraphs';
import { SubscriptionService } from '../subgraphs/billing/subscription.service';
import { ApiKeyService } from '../subgraphs/tickets/api-key.service';
import { ticketsSubgraph } from '../subgraphs/tickets/tickets.subgraph';
import { VenueService } from '../subgraphs/tickets/venue.service';

/** A fixed key, so the README's examples work after every restart; created outside production only. */
export const DEMO_TICKET_KEY = 'tk_demoLocalDevelopmentOnly00000000';

export interface DemoData {
  ticketKey: string;
  venue: string;
  branch: string;
  plan: string;
}

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

/** Writes the reference data every environment needs: the plan catalogue and the platform templates. */
export async function seedReferenceData(
  config: Config,
  logger?: Logger,
): Promise<{ plans: number; templates: number }> {
  const billing = await openSchema(config, billingSubgraph.schemaModule, logger);
  const cv = await openSchema(config, cvSubgraph.schemaModule, logger);
  try {
    return {
      plans: await new PlanService(billing.em.fork()).seedCatalogue(),
      templates: await new TemplateService(cv.em.fork()).seedPlatform(),
    };
  } finally {
    await billing.close(true);
    await cv.close(true);
  }
}

/** A demo venue on the growth plan with one branch and the demo key; idempotent. */
export async function seedDemoData(config: Config, logger?: Logger): Promise<DemoData> {
  const demo: DemoData = {
    ticketKey: DEMO_TICKET_KEY,
    venue: 'Demo Kitchen',
    branch: 'Main counter',
    plan: 'growth',
  };
  const tickets = await openSchema(config, ticketsSubgraph.schemaModule, logger);
  const billing = await openSchema(config, billingSubgraph.schemaModule, logger);
  try {
    const keys = new ApiKeyService(tickets.em.fork());
    if ((await keys.authenticate(DEMO_TICKET_KEY)) !== null) return demo;
    const venues = new VenueService(tickets.em.fork());
    const venue = await venues.create({ name: demo.venue, language: 'ar' });
    const branch = await venues.createBranch(venue.id, demo.branch);
    await new SubscriptionService(billing.em.fork()).subscribe('venue', venue.id, demo.plan);
    await keys.issue(branch.id, 'Demo key', undefined, DEMO_TICKET_KEY);
    return demo;
  } finally {
    await tickets.close(true);
    await billing.close(true);
  }
}
