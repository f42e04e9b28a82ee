import { hashApiKey } from '../common/api-keys';
import type { Config } from '../common/config';
import { migrateSchema, openSchema, type EntityManager } from '../common/database';
import { ensureDatabase } from '../common/postgres';
import { fullCvPayload } from '../subgraphs/cv/render';
import type { Logger } from '../common/logger';
import { cvServices, cvSubgraph } from '../subgraphs/cv/cv.subgraph';
import { billingServices, billingSubgraph } from '../subgraphs/billing/billing.subgraph';
import { SUBGRAPHS } from '../subgraphs';
import { ApiKeyService } from '../subgraphs/tickets/access';
import { ticketsSubgraph } from '../subgraphs/tickets/tickets.subgraph';
import { VenueService, MembershipRepository } from '../subgraphs/tickets/venues';
import { identitySubgraph } from '../subgraphs/identity/identity.subgraph';
import { IdentityRepository } from '../subgraphs/identity/identity.repository';
import { hashPassword } from '../subgraphs/identity/passwords';

/** A fixed key, so the README's examples work after every restart; created outside production only. */
export const DEMO_TICKET_KEY = 'tk_demoLocalDevelopmentOnly00000000';
export const DEMO_CV_KEY = 'cv_demoLocalDevelopmentOnly00000000';
/** The demo owner's sign-in: fixed like the keys, printed by `npm start`, never created in production. */
export const DEMO_OWNER_EMAIL = 'owner@demo.local';
export const DEMO_OWNER_PASSWORD = 'demo-owner-local-only';

export interface DemoData {
  ticketKey: string;
  venue: string;
  branch: string;
  plan: string;
  cvKey: string;
  cvAccount: string;
  cvPlan: string;
  cvId: string;
  ownerEmail: string;
  ownerPassword: string;
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
      plans: await billingServices(billing.em.fork()).plans.seedCatalogue(),
      templates: await cvServices(cv.em.fork()).templates.seedPlatform(),
    };
  } finally {
    await billing.close(true);
    await cv.close(true);
  }
}

/** A demo venue on the growth plan with one branch and the demo key, and a demo CV account; idempotent. */
export async function seedDemoData(config: Config, logger?: Logger): Promise<DemoData> {
  const demo: DemoData = {
    ticketKey: DEMO_TICKET_KEY,
    venue: 'Demo Kitchen',
    branch: 'Main counter',
    plan: 'growth',
    cvKey: DEMO_CV_KEY,
    cvAccount: 'Demo CV account',
    cvPlan: 'pro',
    cvId: '',
    ownerEmail: DEMO_OWNER_EMAIL,
    ownerPassword: DEMO_OWNER_PASSWORD,
  };
  const tickets = await openSchema(config, ticketsSubgraph.schemaModule, logger);
  const billing = await openSchema(config, billingSubgraph.schemaModule, logger);
  const cv = await openSchema(config, cvSubgraph.schemaModule, logger);
  const identity = await openSchema(config, identitySubgraph.schemaModule, logger);
  try {
    const keys = new ApiKeyService(tickets.em.fork());
    if ((await keys.authenticate(DEMO_TICKET_KEY)) === null) {
      const venues = new VenueService(tickets.em.fork());
      const venue = await venues.create({ name: demo.venue, language: 'ar' });
      const branch = await venues.createBranch(venue.id, demo.branch);
      await billingServices(billing.em.fork()).subscriptions.subscribe('venue', venue.id, demo.plan);
      await keys.issue(branch.id, 'Demo key', undefined, DEMO_TICKET_KEY);
    }
    const venueId = (await keys.authenticate(DEMO_TICKET_KEY))!.venueId;
    const owner = await seedDemoOwner(identity.em.fork());
    await new MembershipRepository(tickets.em.fork()).add(venueId, owner, 'OWNER');
    demo.cvId = await seedDemoCv(cv.em.fork(), billing.em.fork(), demo);
    // The demo owner signs in to the demo CV account too (its key keeps working).
    await cv.em.fork().execute(
      `update cv.accounts set user_id = ?
          where user_id is null and id = (select account_id from cv.account_api_keys where key_hash = ?)`,
      [owner, hashApiKey(DEMO_CV_KEY)],
    );
    return demo;
  } finally {
    await tickets.close(true);
    await billing.close(true);
    await cv.close(true);
    await identity.close(true);
  }
}

/** The demo owner, verified, with the fixed password; returns their id. */
async function seedDemoOwner(em: EntityManager): Promise<number> {
  const users = new IdentityRepository(em);
  const existing = await users.userByEmail(DEMO_OWNER_EMAIL);
  if (existing !== null) return existing.id;
  const created = await users.createUser({
    email: DEMO_OWNER_EMAIL,
    name: 'Demo owner',
    language: 'en',
    passwordHash: await hashPassword(DEMO_OWNER_PASSWORD),
  });
  await users.markVerified(created!.id);
  return created!.id;
}

/** A demo CV account on the pro plan, its fixed key and one filled-in Arabic CV; idempotent. */
async function seedDemoCv(cvEm: EntityManager, billingEm: EntityManager, demo: DemoData): Promise<string> {
  const { accounts, cvs } = cvServices(cvEm, 'en');
  const existing = await accounts.authenticate(DEMO_CV_KEY);
  if (existing !== null) {
    const [first] = await cvs.list(existing);
    if (first !== undefined) return first.id;
  }
  const principal =
    existing ??
    (await (async () => {
      const account = await accounts.createAccount({
        name: demo.cvAccount,
        email: 'demo@example.com',
        companyId: null,
      });
      await billingServices(billingEm).subscriptions.subscribe('account', account.id, demo.cvPlan);
      await accounts.issueKey(account.id, 'Demo key', DEMO_CV_KEY);
      return (await accounts.authenticate(DEMO_CV_KEY))!;
    })());
  const [template] = await cvEm.execute<{ id: string }[]>(
    "select id from cv.templates where slug = 'classic' and company_id is null",
  );
  const created = await cvs.create(
    principal,
    { planKey: demo.cvPlan, cvLimit: null, downloadLimit: null, premiumTemplates: true, watermark: false },
    { title: 'CV', locale: 'ar', templateId: template!.id },
  );
  await cvs.update(principal, created.id, fullCvPayload(2));
  return created.id;
}
