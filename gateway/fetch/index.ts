/**
 * Fetch: how an operation reaches the subgraphs. The query planner and its data source per
 * subgraph (the client's headers forwarded, the platform's credential added, a `subgraph <name>`
 * span), identical fetches in flight shared (InflightFetches), the kept-alive HTTP client that
 * sends them, and operations seen before run again without Apollo's request pipeline
 * (PreparedOperations, with its plugin).
 * What the other folders of the gateway may use; the rest of fetch/ is its own.
 * It uses context/ and limits/.
 */
export { plannerOf, type SubgraphPlannerBacking } from './subgraph-planner';
export { InflightFetches, type InflightFetchesOptions } from './inflight-fetches';
export { subgraphFetcher } from './subgraph-fetcher';
export {
  PreparedOperations,
  type PreparedAnswer,
  type PreparedChecks,
  type PreparedOutcome,
} from './prepared-operations';
