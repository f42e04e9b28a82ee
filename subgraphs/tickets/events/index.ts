/**
 * Events: the outbox relay, webhook endpoints and their deliveries (signed), the one SMS, Web Push,
 * and the tickets-events process that runs them (events.ts). What the root module of the tickets
 * subgraph composes and the admin tools use; the rest of events/ is its own.
 */
export { OutboxEvent } from './outbox-event.entity';
export { JobQueues } from './job-queues';
export { WebhookEndpointService } from './webhook-endpoint.service';
export { WEBHOOK_RESOLVERS, webhookResolvers } from './webhook-management.resolver';
export { DEFAULT_ENDPOINT_EVENTS, parseEvents } from './webhook-events';
export { startEvents, type RunningEvents } from './events';
export { graphTicketOf } from './webhook-body';
export { ticketDeliveryLog, type TicketDeliveryEntry } from './ticket-deliveries';
export { TicketDeliveriesResolver } from './ticket-deliveries.resolver';
