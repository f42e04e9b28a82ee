/**
 * Limits: what one client may ask of the gateway. Its rate budgets (GatewayRateLimits, counted in
 * the Redis counters every door shares, and the Apollo plugin that applies them), which queries may
 * run ahead of their counts (RunAhead), the bounds on an operation (tokens, depth, aliases, root
 * fields, and its cost from the subgraphs' declared list sizes) and the input guard on arguments.
 * What the other folders of the gateway may use; the rest of limits/ is its own.
 * It uses context/ only.
 */
export { CostModel, estimateCost, type CostEstimate } from './operation-cost';
export {
  costError,
  parseWithinLimits,
  queryLimitOptions,
  queryLimitRules,
  withoutSuggestions,
  workUnitsOf,
  type CostCheck,
  type QueryLimits,
} from './query-limits';
export { argumentErrors, inputGuardPlugin } from './input-guard.plugin';
export { GatewayRateLimits, rateLimitedError, type GatewayRateLimitOptions } from './rate-limit';
export { rateLimitPlugin } from './rate-limit.plugin';
export { RunAhead } from './run-ahead';
export { mayReplayOfflineWork, replaysOfflineWork } from './sync-operations';
