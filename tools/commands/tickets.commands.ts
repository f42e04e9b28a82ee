import { NotFoundError, PaymentRequiredError, ValidationError } from '../../common/errors';
import { say } from '../../common/messages';
import { SubgraphClient } from '../../common/subgraph-call';
import type { CliContext, CommandSpec, FlagValues } from '../../common/cli';
import { keyRevoked } from '../../contracts/tickets/access-change';
import { billingServices } from '../../subgraphs/billing/billing.subgraph';
import {
  announceAccessChange,
  ApiKeyRepository,
  ApiKeyService,
  parseScopes,
  TICKET_SCOPES,
  VenuePlanClient,
} from '../../subgraphs/tickets/access';
import { MembershipRepository, VenueService, type Venue } from '../../subgraphs/tickets/venues';
import { auditVenue as audit } from './venue-audit';

const TICKET_PLANS = ['starter', 'growth', 'enterprise'] as const;
const ON_OFF = ['on', 'off'] as const;

function venueJson(venue: Venue, plan: string | null) {
  return {
    id: venue.id,
    name: venue.name,
    language: venue.language,
    timezone: venue.timezone,
    sms_enabled: venue.smsEnabled,
    whatsapp_enabled: venue.whatsappEnabled,
    plan,
  };
}

/** A ticket plan key, checked in billing before anything is written. */
async function ticketPlan(context: CliContext, key: string): Promise<string> {
  return (await billingServices(await context.em('billing')).subscriptions.planFor('venue', key)).key;
}

/** Puts the venue on the plan in billing and drops the tickets side's cached copy of it. */
async function subscribe(context: CliContext, venueId: number, plan: string): Promise<void> {
  await billingServices(await context.em('billing')).subscriptions.subscribe('venue', venueId, plan);
  const { config } = context;
  await new VenuePlanClient(
    SubgraphClient.of(config, 'billing'),
    await context.redis(),
    config.redisPrefix,
  ).forget(venueId);
}

const id = (flags: FlagValues, name: string) => flags[name] as number;

export const ticketsCommands: CommandSpec[] = [
  {
    noun: 'venue',
    verb: 'create',
    summary: 'Creates a venue on a ticket plan.',
    flags: {
      name: { description: 'Venue name.', type: 'string', required: true },
      plan: { description: 'Ticket plan.', type: 'string', required: true, choices: TICKET_PLANS },
      sms: { description: 'SMS on ready (default off).', type: 'string', choices: ON_OFF },
      language: { description: 'Language of texts (default ar).', type: 'string', choices: ['ar', 'en'] },
      timezone: { description: 'IANA time zone (default Asia/Baghdad).', type: 'string' },
    },
    async run(flags, context) {
      const plan = await ticketPlan(context, flags.plan as string);
      const venue = await new VenueService(await context.em('tickets')).create({
        name: flags.name as string,
        smsEnabled: flags.sms === 'on',
        ...(flags.language ? { language: flags.language as 'ar' | 'en' } : {}),
        ...(flags.timezone ? { timezone: flags.timezone as string } : {}),
      });
      await subscribe(context, venue.id, plan);
      await audit(context, venue.id, 'venue.created', `venue:${venue.id}`, { name: venue.name, plan });
      return venueJson(venue, plan);
    },
  },
  {
    noun: 'venue',
    verb: 'set-plan',
    summary: 'Moves a venue to another ticket plan; API access follows at once.',
    flags: {
      id: { description: 'Venue id.', type: 'integer', required: true },
      plan: { description: 'Ticket plan.', type: 'string', required: true, choices: TICKET_PLANS },
    },
    async run(flags, context) {
      const venue = await new VenueService(await context.em('tickets')).get(id(flags, 'id'));
      const plan = await ticketPlan(context, flags.plan as string);
      await subscribe(context, venue.id, plan);
      await audit(context, venue.id, 'plan.changed', `venue:${venue.id}`, { plan });
      return venueJson(venue, plan);
    },
  },
  {
    noun: 'venue',
    verb: 'set-sms',
    summary: 'Switches the one SMS on ready on or off for a venue.',
    flags: {
      id: { description: 'Venue id.', type: 'integer', required: true },
      sms: { description: 'on or off.', type: 'string', required: true, choices: ON_OFF },
    },
    async run(flags, context) {
      const venue = await new VenueService(await context.em('tickets')).setSms(
        id(flags, 'id'),
        flags.sms === 'on',
      );
      await audit(context, venue.id, 'sms.changed', `venue:${venue.id}`, { enabled: venue.smsEnabled });
      const plan = await billingServices(await context.em('billing')).subscriptions.activePlanOf(
        'venue',
        venue.id,
      );
      return venueJson(venue, plan?.key ?? null);
    },
  },
  {
    noun: 'venue',
    verb: 'set-whatsapp',
    summary:
      'Switches the ready alert on WhatsApp on or off for a venue (on needs WHATSAPP_* and a plan with it).',
    flags: {
      id: { description: 'Venue id.', type: 'integer', required: true },
      whatsapp: { description: 'on or off.', type: 'string', required: true, choices: ON_OFF },
    },
    async run(flags, context) {
      const on = flags.whatsapp === 'on';
      const venues = new VenueService(await context.em('tickets'));
      const before = await venues.get(id(flags, 'id'));
      const plan = await billingServices(await context.em('billing')).subscriptions.activePlanOf(
        'venue',
        before.id,
      );
      if (on && context.config.whatsapp === null) {
        throw new ValidationError({ whatsapp: [say('whatsapp.platform_off')] });
      }
      if (on && plan?.whatsapp !== true) throw new PaymentRequiredError(say('whatsapp.plan'));
      const venue = await venues.setWhatsApp(before.id, on);
      await audit(context, venue.id, 'whatsapp.changed', `venue:${venue.id}`, { enabled: on });
      return venueJson(venue, plan?.key ?? null);
    },
  },
  {
    noun: 'branch',
    verb: 'create',
    summary: 'Creates a branch (a counter with its own numbers and keys) of a venue.',
    flags: {
      venue: { description: 'Venue id.', type: 'integer', required: true },
      name: { description: 'Branch name.', type: 'string', required: true },
    },
    async run(flags, context) {
      const branch = await new VenueService(await context.em('tickets')).createBranch(
        id(flags, 'venue'),
        flags.name as string,
      );
      await audit(context, branch.venueId, 'branch.created', `branch:${branch.id}`, { name: branch.name });
      return { id: branch.id, venue_id: branch.venueId, name: branch.name };
    },
  },
  {
    noun: 'key',
    verb: 'create',
    summary: 'Issues an API key for a branch; the key is shown once, only its hash is kept.',
    flags: {
      branch: { description: 'Branch id.', type: 'integer', required: true },
      scopes: { description: `Comma-separated (default ${TICKET_SCOPES.join(',')}).`, type: 'string' },
      name: { description: 'Label (default "API key").', type: 'string' },
    },
    async run(flags, context) {
      const scopes = flags.scopes === undefined ? TICKET_SCOPES : parseScopes(flags.scopes as string);
      const em = await context.em('tickets');
      const issued = await new ApiKeyService(em).issue(
        id(flags, 'branch'),
        (flags.name as string | undefined) ?? 'API key',
        scopes,
      );
      const venueId = await new MembershipRepository(em).branchVenue(issued.branch_id);
      await audit(context, venueId!, 'api_key.issued', `api_key:${issued.id}`, {
        name: issued.name,
        prefix: issued.prefix,
        branch_id: issued.branch_id,
        scopes: issued.scopes.join(','),
      });
      return issued;
    },
  },
  {
    noun: 'key',
    verb: 'revoke',
    summary: 'Revokes an API key; requests with it answer 401 from then on.',
    flags: { id: { description: 'API key id.', type: 'integer', required: true } },
    async run(flags, context) {
      const em = await context.em('tickets');
      const owner = await new ApiKeyRepository(em).ownerOfKey(id(flags, 'id'));
      if (owner === null) throw new NotFoundError(`API key ${id(flags, 'id')} not found.`);
      // A device is revoked, audited and listed as a device, on the graph, as revokeApiKey says.
      if (owner.board) throw new NotFoundError(say('venue.key_is_board_device'));
      const { venueId } = owner;
      const { keyHash, ...revoked } = await new ApiKeyService(em).revoke(id(flags, 'id'));
      // Processes that cached the key forget it now (their TTL covers a missed announcement), and
      // live sockets presenting it are checked again.
      await announceAccessChange(
        await context.redis(),
        context.config.redisPrefix,
        keyRevoked(revoked.id, venueId, keyHash),
        keyHash,
      );
      await audit(context, venueId, 'api_key.revoked', `api_key:${revoked.id}`);
      return revoked;
    },
  },
];
