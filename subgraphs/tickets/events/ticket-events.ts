import { ValidationError } from '../../../common/errors';
import { say } from '../../../common/messages';

/** The events of the ticket document, in its order. */
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
 * Every event a delivery may carry: the ticket events and `ping`, the test a venue sends one
 * endpoint from the panel. Nobody subscribes to `ping`, so it is in no endpoint's events.
 */
export const DELIVERY_EVENTS = [...WEBHOOK_EVENTS, 'ping'] as const;

export type DeliveryEvent = (typeof DELIVERY_EVENTS)[number];

/** The customer's rating as an event carries it, in the document's snake_case. */
export interface FeedbackPayload {
  rating: number;
  comment: string | null;
  created_at: string;
}

/** What an endpoint created without --events receives. */
export const DEFAULT_ENDPOINT_EVENTS: readonly WebhookEvent[] = DOCUMENTED_EVENTS;

export function isWebhookEvent(value: string): value is WebhookEvent {
  return (WEBHOOK_EVENTS as readonly string[]).includes(value);
}

/** "ticket.ready,ticket.collected" → the events, or a 422-style error naming the unknown ones. */
export function parseEvents(value: string): WebhookEvent[] {
  const events = [
    ...new Set(
      value
        .split(',')
        .map((e) => e.trim())
        .filter((e) => e !== ''),
    ),
  ];
  const unknown = events.filter((e) => !isWebhookEvent(e));
  if (events.length === 0 || unknown.length > 0) {
    const choices = WEBHOOK_EVENTS.join(', ');
    throw new ValidationError({
      events: [
        unknown.length > 0
          ? say('field.choose_list_unknown', { field: 'events', choices, unknown: unknown.join(', ') })
          : say('field.choose_list', { field: 'events', choices }),
      ],
    });
  }
  return events as WebhookEvent[];
}
