/**
 * Venue insights: rollups of ticket events by hour and day in the venue's time zone, and exact
 * percentiles read from them. What the other folders of the tickets subgraph may use.
 */
export { InsightsRepository } from './insights.repository';
export { InsightsService, checkRange, type InsightRange } from './insights.service';
export { BranchInsightsResolver, VenueInsightsResolver } from './insights.resolver';
export { WaitRepository } from './wait.repository';
export { BranchWaitResolver, TicketEstimateResolver } from './wait.resolver';
export { InsightBucketSizeValue, InsightsType, InsightBucketType } from './insights.type';
