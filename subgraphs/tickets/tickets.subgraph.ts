import { SubgraphClient } from '../../common/subgraph-call';
import { ticketsMigrations } from '../../migrations/tickets';
import type { RequestScope, SubgraphDefinition } from '../../common/subgraph';
import { AccessCache, announceAccessChange } from './access-cache';
import { ApiKey } from './api-key.entity';
import { ApiKeyService } from './api-key.service';
import { Branch } from './branch.entity';
import { OutboxEvent } from './outbox-event.entity';
import { TICKET_TOKEN_HEADER } from '../../contracts/tickets/live-event';
import { TicketAccess } from './ticket-access';
import { Ticket } from './ticket.entity';
import { BranchResolver, TicketResolver } from './ticket.resolver';
import { TicketCustomerResolver } from './ticket-customer.resolver';
import { TicketCustomerService } from './ticket-customer.service';
import { TicketService } from './ticket.service';
import type { PresentOptions } from './ticket.type';
import { languageOf } from '../../common/language';
import { Venue } from './venue.entity';
import { VenuePlanClient } from './venue-plan.client';
import { VenueManagementResolver } from './venue-management.resolver';
import { VenueManagement } from './venue-management.service';
import { VenueService } from './venue.service';
import { parseRecordId } from '../../common/input.rules';
import { SESSION_USER_HEADER } from '../../contracts/identity/session';
import { VenueType } from './venue.type';

function accessCacheOf(scope: RequestScope): AccessCache {
  if (!(scope.shared instanceof AccessCache))
    throw new Error('the tickets subgraph started without its access cache');
  return scope.shared;
}

function presentOptions(scope: RequestScope): PresentOptions {
  return {
    publicBaseUrl: scope.config.publicBaseUrl,
    language: languageOf(scope.headers['accept-language']),
  };
}

function ticketResolver(scope: RequestScope): TicketResolver {
  const apiKeys = new ApiKeyService(scope.em);
  const plans = new VenuePlanClient(
    SubgraphClient.of(scope.config, 'billing'),
    scope.redis,
    scope.config.redisPrefix,
  );
  return new TicketResolver(
    new TicketService(scope.em),
    new VenueService(scope.em),
    new TicketAccess(
      { authorization: scope.headers.authorization, ticketToken: scope.headers[TICKET_TOKEN_HEADER] },
      apiKeys,
      plans,
      accessCacheOf(scope),
      scope.requestId,
    ),
    presentOptions(scope),
    scope.config.push?.publicKey ?? null,
  );
}

const TICKET_SUBSCRIPTIONS = `
type Subscription {
  """
  The ticket after every change (status, ring, link). Needs no key: the ticket's token is the
  credential, and it does not reveal externalId, customerName or note.
  """
  ticketUpdated(token: String!): Ticket!

  """
  Every change of every ticket of the branch of the key given as {"authorization": "Bearer …"} in
  connection_init. Needs tickets:read.
  """
  branchTicketsUpdated: Ticket!
}
`;

/** Ticket calling: venues, branches, keys and tickets live in the `tickets` schema. */
export const ticketsSubgraph: SubgraphDefinition = {
  name: 'tickets',
  schemaModule: {
    schema: 'tickets',
    entities: [Venue, Branch, ApiKey, Ticket, OutboxEvent],
    migrations: ticketsMigrations,
  },
  resolvers: [TicketResolver, BranchResolver, TicketCustomerResolver, VenueManagementResolver],
  orphanedTypes: [VenueType],
  referenceResolvers: {
    Ticket: {
      // Only a key of the ticket's branch with tickets:read sees it, as through `ticket(id)`.
      __resolveReference: (reference: { id: string }, { scope }) =>
        ticketResolver(scope).ticket(reference.id),
    },
    Venue: {
      __resolveReference: (reference: { id: string }, { scope }) =>
        ticketResolver(scope).venueReference(String(reference.id)),
    },
  },
  subscriptionTypeDefs: TICKET_SUBSCRIPTIONS,
  startShared: ({ config, redis }) => AccessCache.listen(redis, config.redisPrefix),
  createResolvers: (scope) => [
    ticketResolver(scope),
    new BranchResolver(new VenueService(scope.em)),
    new TicketCustomerResolver(
      new TicketCustomerService(scope.em),
      new TicketService(scope.em),
      presentOptions(scope),
      scope.config.push,
      scope.config.webhooks.allowInsecure,
    ),
    new VenueManagementResolver(
      new VenueManagement(
        scope.em,
        parseRecordId(scope.headers[SESSION_USER_HEADER]),
        SubgraphClient.of(scope.config, 'billing'),
        scope.requestId,
        (change) => announceAccessChange(scope.redis, scope.config.redisPrefix, change),
      ),
    ),
  ],
};
