import { SubgraphClient } from '../../common/subgraph-call';
import type { RequestScope, SharedState, SubgraphDefinition } from '../../common/subgraph';
import { createMailer, type Mailer } from '../../common/mail';
import { PeopleClient } from '../../contracts/identity/people.client';
import type { AccessChange } from '../../contracts/tickets/access-change';
import { TICKET_TOKEN_HEADER } from '../../contracts/tickets/live-event';
import { ACCESS_RECHECK_HEADER } from '../../contracts/tickets/access-change';
import { REST_DOOR_HEADER } from '../../contracts/tickets/board-device';
import { languageOf } from '../../common/language';
import { parseRecordId } from '../../common/input.rules';
import { BRANCH_HEADER, CLIENT_ADDRESS_HEADER, SESSION_USER_HEADER } from '../../contracts/identity/session';
import {
  AccessCache,
  announceAccessChange,
  ApiKey,
  ApiKeyService,
  TicketAccess,
  VenueApiKeys,
  VenueApiKeysResolver,
  VenuePlanClient,
} from './access';
import { BoardRepository, BoardResolver, BoardService } from './boards';
import {
  BranchInsightsResolver,
  InsightsRepository,
  BranchWaitResolver,
  TicketEstimateResolver,
  WaitRepository,
  InsightsService,
  VenueInsightsResolver,
} from './insights';
import {
  TicketExportRepository,
  TicketExportResolver,
  TicketExportService,
  ticketExportRoute,
} from './exports';
import {
  JobQueues,
  OutboxEvent,
  TicketDeliveriesResolver,
  WEBHOOK_RESOLVERS,
  WebhookEndpointService,
  webhookResolvers,
} from './events';
import {
  BranchResolver,
  Ticket,
  TicketCustomerResolver,
  TicketCustomerService,
  TicketResolver,
  TicketService,
  TicketWhatsAppResolver,
  NumberLeaseResolver,
  NumberLeaseService,
  type PresentOptions,
} from './tickets';
import {
  Branch,
  MembershipRepository,
  Venue,
  VenueAuditLogResolver,
  VenueManagement,
  VenueManagementResolver,
  VenueMembers,
  VenueMembersResolver,
  VenueRoles,
  VenueService,
  VenueType,
} from './venues';

/** What every request of the tickets subgraph shares: the access cache, the mailer, the job queues. */
interface TicketsShared extends SharedState {
  accessCache: AccessCache;
  mailer: Mailer;
  /** Wakes the webhook worker for a delivery made here (a ping, a redelivery). */
  queues: JobQueues;
}

function sharedOf(scope: RequestScope): TicketsShared {
  const shared = scope.shared as TicketsShared | undefined;
  if (shared?.accessCache === undefined)
    throw new Error('the tickets subgraph started without its access cache');
  return shared;
}

function accessCacheOf(scope: RequestScope): AccessCache {
  return sharedOf(scope).accessCache;
}

/** The signed-in person of this request, as every venue operation asks about them. */
function venueRolesOf(scope: RequestScope): VenueRoles {
  return new VenueRoles(
    scope.em,
    parseRecordId(scope.headers[SESSION_USER_HEADER]),
    scope.headers[CLIENT_ADDRESS_HEADER] ?? null,
  );
}

/** Tells every tickets process and the gateway to drop what they cached of a key, venue or person. */
function announcerOf(scope: RequestScope) {
  return (change: AccessChange, revokedKeyHash?: Buffer) =>
    announceAccessChange(scope.redis, scope.config.redisPrefix, change, revokedKeyHash);
}

function presentOptions(scope: RequestScope): PresentOptions {
  return {
    publicBaseUrl: scope.config.publicBaseUrl,
    language: languageOf(scope.headers['accept-language']),
  };
}

/** Who this request is to the tickets: a key, a board device, a signed-in member or a ticket's token. */
function ticketAccessOf(scope: RequestScope): TicketAccess {
  const apiKeys = new ApiKeyService(scope.em);
  const plans = new VenuePlanClient(
    SubgraphClient.of(scope.config, 'billing'),
    scope.redis,
    scope.config.redisPrefix,
  );
  return new TicketAccess(
    {
      authorization: scope.headers.authorization,
      ticketToken: scope.headers[TICKET_TOKEN_HEADER],
      sessionUserId: parseRecordId(scope.headers[SESSION_USER_HEADER]),
      branchId: parseRecordId(scope.headers[BRANCH_HEADER]),
      restDoor: scope.headers[REST_DOOR_HEADER] !== undefined,
      recheck: scope.headers[ACCESS_RECHECK_HEADER] !== undefined,
    },
    apiKeys,
    plans,
    accessCacheOf(scope),
    scope.requestId,
    new MembershipRepository(scope.em),
  );
}

function ticketResolver(scope: RequestScope, access: TicketAccess): TicketResolver {
  return new TicketResolver(
    new TicketService(scope.em),
    new VenueService(scope.em),
    access,
    presentOptions(scope),
    scope.config.push?.publicKey ?? null,
  );
}

/**
 * The control panel's resolvers of one request: the venue, its people, its keys, its boards and
 * displays, its webhooks; all ask the same VenueRoles about the caller.
 */
function managementResolvers(scope: RequestScope, access: TicketAccess): object[] {
  const roles = venueRolesOf(scope);
  const requestId = scope.requestId;
  const billing = SubgraphClient.of(scope.config, 'billing');
  const plans = new VenuePlanClient(billing, scope.redis, scope.config.redisPrefix);
  const management = new VenueManagement(scope.em, roles, {
    billing,
    requestId,
    whatsapp: {
      configured: scope.config.whatsapp !== null,
      planAllows: async (venueId) => (await plans.entitlementsOf(venueId, requestId)).whatsapp === true,
    },
  });
  return [
    new VenueManagementResolver(management, roles),
    new VenueAuditLogResolver(management),
    new VenueMembersResolver(
      new VenueMembers(scope.em, roles, {
        people: new PeopleClient(SubgraphClient.of(scope.config, 'identity')),
        mailer: sharedOf(scope).mailer,
        appBaseUrl: scope.config.publicBaseUrl,
        requestId,
        announce: announcerOf(scope),
      }),
    ),
    new VenueApiKeysResolver(new VenueApiKeys(scope.em, roles, announcerOf(scope))),
    new BoardResolver(
      new BoardService(new BoardRepository(scope.em), roles, {
        publicBaseUrl: scope.config.publicBaseUrl,
        announce: announcerOf(scope),
        clientAddress: scope.headers[CLIENT_ADDRESS_HEADER] ?? null,
      }),
      access,
    ),
    ...webhookResolvers(roles, new WebhookEndpointService(scope.em, scope.config, sharedOf(scope).queues)),
    ...insightsResolvers(new InsightsService(new InsightsRepository(scope.em), roles)),
    new TicketExportResolver(ticketExports(scope), roles, languageOf(scope.headers['accept-language'])),
  ];
}

/** The accountants' CSV export of one request: the caller's roles when a link is made, the link's person's when one is opened. */
function ticketExports(scope: RequestScope): TicketExportService {
  return new TicketExportService(
    {
      publicBaseUrl: scope.config.publicBaseUrl,
      internalSecret: scope.config.internalSecret,
      acceptedInternalSecrets: scope.config.acceptedInternalSecrets,
    },
    (userId) => new VenueRoles(scope.em, userId, scope.headers[CLIENT_ADDRESS_HEADER] ?? null),
  );
}

function insightsResolvers(service: InsightsService): object[] {
  return [new BranchInsightsResolver(service), new VenueInsightsResolver(service)];
}

const TICKET_SUBSCRIPTIONS = `
type Subscription {
  """
  The ticket after every change (status, ring, link). Needs no key: the ticket's token is the
  credential, and it does not reveal externalId, customerName or note.
  """
  ticketUpdated(
    """
    The ticket's 32-character token, from publicUrl; an unknown one answers NOT_FOUND.
    """
    token: String!
  ): Ticket!

  """
  Every change of every ticket of a branch: of the key or board device given as
  {"authorization": "Bearer …"} in connection_init, or of the branch a signed-in member names with
  {"authorization": "Bearer ses_…", "x-branch-id": "…"}. Needs tickets:read.
  """
  branchTicketsUpdated: Ticket!

  """
  Every change of every ticket of a display's branch, as the room's screen may see it. Needs no
  key: the display's token is the credential; an unknown or revoked one answers NOT_FOUND, and a
  revoked or changed display's socket is closed (4205) so its page reads what it may now.
  """
  displayTicketsUpdated(
    """
    The display's token (dsp_…), from its URL.
    """
    token: String!
  ): DisplayTicket!
}
`;

/** Ticket calling: venues, branches, keys and tickets live in the `tickets` schema. */
export const ticketsSubgraph: SubgraphDefinition = {
  name: 'tickets',
  schemaModule: {
    schema: 'tickets',
    entities: [Venue, Branch, ApiKey, Ticket, OutboxEvent],
    migrations: () => import('../../migrations/tickets').then((m) => m.ticketsMigrations),
  },
  resolvers: [
    TicketResolver,
    NumberLeaseResolver,
    BranchResolver,
    TicketCustomerResolver,
    TicketWhatsAppResolver,
    TicketDeliveriesResolver,
    VenueManagementResolver,
    VenueAuditLogResolver,
    VenueMembersResolver,
    VenueApiKeysResolver,
    BoardResolver,
    BranchInsightsResolver,
    VenueInsightsResolver,
    TicketEstimateResolver,
    BranchWaitResolver,
    TicketExportResolver,
    ...WEBHOOK_RESOLVERS,
  ],
  orphanedTypes: [VenueType],
  referenceResolvers: {
    Ticket: {
      // Only a key of the ticket's branch with tickets:read sees it, as through `ticket(id)`.
      __resolveReference: (reference: { id: string }, { scope }) =>
        ticketResolver(scope, ticketAccessOf(scope)).ticket(reference.id),
    },
    Venue: {
      __resolveReference: (reference: { id: string }, { scope }) =>
        ticketResolver(scope, ticketAccessOf(scope)).venueReference(String(reference.id)),
    },
  },
  subscriptionTypeDefs: TICKET_SUBSCRIPTIONS,
  // The CSV a signed export link opens: a stream GraphQL cannot carry, passed through by the adapter.
  internalRoutes: (scopeOf) => [
    ticketExportRoute(scopeOf, (scope) => ({
      service: ticketExports(scope),
      repository: new TicketExportRepository(scope.em),
    })),
  ],
  startShared: async ({ config, redis, logger }) => {
    const accessCache = await AccessCache.listen(redis, config.redisPrefix);
    const mailer = createMailer(config.mail, logger);
    const queues = new JobQueues(config, false, redis);
    return {
      accessCache,
      mailer,
      queues,
      close: async () => {
        await accessCache.close();
        await mailer.close();
        await queues.close();
      },
    } satisfies TicketsShared;
  },
  createResolvers: (scope) => {
    const access = ticketAccessOf(scope);
    const waits = new WaitRepository(scope.em);
    return [
      ticketResolver(scope, access),
      new NumberLeaseResolver(new NumberLeaseService(scope.em), access),
      new TicketEstimateResolver(waits),
      new TicketWhatsAppResolver(scope.em, scope.config.whatsapp?.businessNumber ?? null),
      new TicketDeliveriesResolver(scope.em),
      new BranchWaitResolver(waits, access),
      new BranchResolver(new VenueService(scope.em)),
      new TicketCustomerResolver(
        new TicketCustomerService(scope.em),
        new TicketService(scope.em),
        presentOptions(scope),
        scope.config.push,
        scope.config.webhooks.allowInsecure,
      ),
      ...managementResolvers(scope, access),
    ];
  },
};
