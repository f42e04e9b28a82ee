/**
 * Observe: the gateway's own metric families beside those every process has (common/metrics.ts):
 * operations answered and refused, rate-limit refusals, subgraph fetch durations and shared
 * fetches, live sockets and subscriptions, with operation names as bounded label values, hooked
 * into Apollo by one plugin. Traces start in common/telemetry.ts; the gateway's own span per
 * subgraph fetch is its data source's (fetch/header-forwarding.data-source.ts).
 * What the root module may use; the rest of observe/ is its own.
 * It uses context/ only.
 */
export { GatewayMetrics, senderOf, type LiveFigures, type OperationSender } from './gateway-metrics';
