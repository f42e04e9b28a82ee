import { ValidationError } from '../../../common/errors';
import { say } from '../../../common/messages';
import { DOCUMENTED_EVENTS, isWebhookEvent, WEBHOOK_EVENTS, type WebhookEvent } from '../tickets';

/**
 * Every event a delivery may carry: the ticket events and `ping`, the test a venue sends one
 * endpoint from the panel. Nobody subscribes to `ping`, so it is in no endpoint's events.
 */
export const DELIVERY_EVENTS = [...WEBHOOK_EVENTS, 'ping'] as const;

export type DeliveryEvent = (typeof DELIVERY_EVENTS)[number];

/** What an endpoint created without --events receives. */
export const DEFAULT_ENDPOINT_EVENTS: readonly WebhookEvent[] = DOCUMENTED_EVENTS;

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
