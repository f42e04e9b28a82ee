import { ticketsMigrations } from '../../migrations/tickets';
import type { SubgraphDefinition } from '../../common/subgraph';
import { ApiKey } from './api-key.entity';
import { Branch } from './branch.entity';
import { OutboxEvent } from './outbox-event.entity';
import { Ticket } from './ticket.entity';
import { Venue } from './venue.entity';

/** Ticket calling: venues, branches, keys and tickets live in the `tickets` schema. */
export const ticketsSubgraph: SubgraphDefinition = {
  name: 'tickets',
  schemaModule: {
    schema: 'tickets',
    entities: [Venue, Branch, ApiKey, Ticket, OutboxEvent],
    migrations: ticketsMigrations,
  },
  resolvers: [],
  createResolvers: () => [],
};
