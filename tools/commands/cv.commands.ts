import { OPERATOR } from '../../common/audit-log';
import type { CliContext, CommandSpec, FlagValues } from '../../common/cli';
import { billingServices } from '../../subgraphs/billing/billing.subgraph';
import { accountPlanClient, type Account } from '../../subgraphs/cv/accounts';
import { cvServices } from '../../subgraphs/cv/cv.subgraph';
import { TEMPLATE_CATEGORIES, TEMPLATE_LAYOUTS } from '../../contracts/cv/template.limits';

const CV_PLANS = ['free', 'pro', 'business'] as const;

const id = (flags: FlagValues, name: string) => flags[name] as number;

/** A CV plan key, checked in billing before anything is written. */
async function cvPlan(context: CliContext, key: string): Promise<string> {
  return (await billingServices(await context.em('billing')).subscriptions.planFor('account', key)).key;
}

function accountJson(account: Account, plan: string) {
  return { id: account.id, name: account.name, email: account.email, company_id: account.companyId, plan };
}

export const cvCommands: CommandSpec[] = [
  {
    noun: 'company',
    verb: 'create',
    summary: 'Creates a company, which may own templates its accounts see.',
    flags: { name: { description: 'Company name.', type: 'string', required: true } },
    async run(flags, context) {
      const company = await cvServices(await context.em('cv')).accounts.createCompany(flags.name as string);
      return { id: company.id, name: company.name };
    },
  },
  {
    noun: 'account',
    verb: 'create',
    summary: 'Creates a CV account on a plan (default free).',
    flags: {
      name: { description: 'Account holder name.', type: 'string', required: true },
      email: { description: 'Email address, unique.', type: 'string', required: true },
      plan: { description: 'CV plan (default free).', type: 'string', choices: CV_PLANS },
      company: { description: 'Company id.', type: 'integer' },
    },
    async run(flags, context) {
      const plan = await cvPlan(context, (flags.plan as string | undefined) ?? 'free');
      const account = await cvServices(await context.em('cv')).accounts.createAccount({
        name: flags.name as string,
        email: flags.email as string,
        companyId: (flags.company as number | undefined) ?? null,
      });
      await billingServices(await context.em('billing')).subscriptions.subscribe('account', account.id, plan);
      return accountJson(account, plan);
    },
  },
  {
    noun: 'account',
    verb: 'set-plan',
    summary: 'Moves an account to another CV plan; limits follow at once.',
    flags: {
      id: { description: 'Account id.', type: 'integer', required: true },
      plan: { description: 'CV plan.', type: 'string', required: true, choices: CV_PLANS },
    },
    async run(flags, context) {
      const { accounts } = cvServices(await context.em('cv'));
      const account = await accounts.getAccount(id(flags, 'id'));
      const plan = await cvPlan(context, flags.plan as string);
      await billingServices(await context.em('billing')).subscriptions.subscribe('account', account.id, plan);
      // Limits follow at once: the cv subgraph's cached copy of the plan goes.
      await accountPlanClient(context.config, await context.redis()).forget(account.id);
      await accounts.recordPlanChange(account.id, OPERATOR, plan, null);
      return accountJson(account, plan);
    },
  },
  {
    noun: 'account-key',
    verb: 'create',
    summary: 'Issues an API key (X-API-Key) for an account; the key is shown once.',
    flags: {
      account: { description: 'Account id.', type: 'integer', required: true },
      name: { description: 'Key name (default "API key").', type: 'string' },
    },
    async run(flags, context) {
      return cvServices(await context.em('cv')).accounts.issueKey(
        id(flags, 'account'),
        (flags.name as string | undefined) ?? 'API key',
      );
    },
  },
  {
    noun: 'account-key',
    verb: 'revoke',
    summary: 'Revokes an account key; requests with it answer 401 from then on.',
    flags: { id: { description: 'Account key id.', type: 'integer', required: true } },
    async run(flags, context) {
      const key = await cvServices(await context.em('cv')).accounts.revokeKey(id(flags, 'id'));
      return { id: key.id, account_id: key.accountId, revoked_at: key.revokedAt?.toISOString() ?? null };
    },
  },
  {
    noun: 'template',
    verb: 'create',
    summary: "Creates a company's own template, seen only by that company's accounts.",
    flags: {
      company: { description: 'Company id.', type: 'integer', required: true },
      slug: { description: 'Short identifier, unique within the company.', type: 'string', required: true },
      name: { description: 'Display name.', type: 'string', required: true },
      layout: { description: 'Arrangement.', type: 'string', required: true, choices: TEMPLATE_LAYOUTS },
      category: {
        description: 'Category (default professional).',
        type: 'string',
        choices: TEMPLATE_CATEGORIES,
      },
      description: { description: 'One line about the design.', type: 'string' },
      premium: { description: 'Only plans with premium templates may use it.', type: 'boolean' },
    },
    async run(flags, context) {
      const { accounts, templates } = cvServices(await context.em('cv'));
      const companyId = id(flags, 'company');
      await accounts.getCompany(companyId);
      const template = await templates.create({
        companyId,
        slug: flags.slug as string,
        name: flags.name as string,
        layout: flags.layout as string,
        ...(flags.category ? { category: flags.category as string } : {}),
        ...(flags.description ? { description: flags.description as string } : {}),
        isPremium: flags.premium === true,
      });
      return {
        id: template.id,
        company_id: template.companyId,
        slug: template.slug,
        name: template.name,
        description: template.description,
        category: template.category,
        layout: template.layout,
        is_premium: template.isPremium,
      };
    },
  },
];
