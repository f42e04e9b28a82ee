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

/** The customer's rating as an event carries it, in the document's snake_case. */
export interface FeedbackPayload {
  rating: number;
  comment: string | null;
  created_at: string;
}

export function isWebhookEvent(value: string): value is WebhookEvent {
  return (WEBHOOK_EVENTS as readonly string[]).includes(value);
}
