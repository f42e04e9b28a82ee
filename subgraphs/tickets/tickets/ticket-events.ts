/** The events a ticket's changes cause, as the ticket document names them, in its order. */
export const DOCUMENTED_EVENTS = [
  'ticket.created',
  'ticket.linked',
  'ticket.ready',
  'ticket.collected',
  'ticket.cancelled',
  'feedback.submitted',
] as const;

/**
 * Every event an endpoint can choose. `ticket.rung` is not in the document, so legacy receivers
 * never see it unless someone chose it for their endpoint (docs/API-DECISIONS.md).
 */
export const WEBHOOK_EVENTS = [...DOCUMENTED_EVENTS, 'ticket.rung'] as const;

export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/**
 * Events that only move the ticket's live subscribers (its page): no endpoint can choose them, as
 * `parseEvents` takes WEBHOOK_EVENTS only, so the relay writes no delivery for them and webhook
 * receivers never see them. `ticket.whatsapp_linked`: the customer's chat was linked to the ticket.
 */
export const LIVE_ONLY_EVENTS = ['ticket.whatsapp_linked'] as const;

/** What an outbox row may record: a webhook event, or one for live subscribers only. */
export type OutboxEventName = WebhookEvent | (typeof LIVE_ONLY_EVENTS)[number];

/** The customer's rating as an event carries it, in the document's snake_case. */
export interface FeedbackPayload {
  rating: number;
  comment: string | null;
  created_at: string;
}

export function isWebhookEvent(value: string): value is WebhookEvent {
  return (WEBHOOK_EVENTS as readonly string[]).includes(value);
}
