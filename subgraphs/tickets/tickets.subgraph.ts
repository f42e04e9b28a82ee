import { ticketsMigrations } from '../../migrations/tickets';
import type { SubgraphDefinition } from '../../common/subgraph';

/** Ticket calling: venues, branches, keys and tickets live in the `tickets` schema. */
export const ticketsSubgraph: SubgraphDefinition = {
  name: 'tickets',
  schemaModule: { schema: 'tickets', entities: [], migrations: ticketsMigrations },
  resolvers: [],
  createResolvers: () => [],
};
