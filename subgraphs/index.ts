import { billingSubgraph } from './billing/billing.subgraph';
import { cvSubgraph } from './cv/cv.subgraph';
import { identitySubgraph } from './identity/identity.subgraph';
import { ticketsSubgraph } from './tickets/tickets.subgraph';
import type { SubgraphDefinition } from '../common/subgraph';

/** Every subgraph of the platform, in the order the supergraph lists them. */
export const SUBGRAPHS: readonly SubgraphDefinition[] = [
  ticketsSubgraph,
  cvSubgraph,
  billingSubgraph,
  identitySubgraph,
];
