import { Field, ID, InputType, Int, ObjectType } from 'type-graphql';
import { AssumedSize } from '../../../common/cost.graphql';
import { WEBHOOK_EVENTS } from '../tickets';
import { DEFAULT_ENDPOINT_EVENTS } from './webhook-events';
import type { DeliveryJson, EndpointJson } from './webhook-endpoint.service';

/** Events an endpoint receives only when chosen (docs/API-DECISIONS.md, "Event of ring"). */
const NOT_BY_DEFAULT = WEBHOOK_EVENTS.filter((event) => !DEFAULT_ENDPOINT_EVENTS.includes(event));

@ObjectType('WebhookEndpoint', {
  description: 'A receiver of the venue’s ticket events, signed with its secret; never the secret itself.',
})
export class WebhookEndpointType {
  @Field(() => ID, { description: 'The endpoint’s id.' })
  id!: string;

  @Field(() => String, { description: 'Where deliveries are POSTed.' })
  url!: string;

  @AssumedSize(WEBHOOK_EVENTS.length)
  @Field(() => [String], { description: 'The events it receives, such as ticket.created.' })
  events!: string[];

  @Field(() => Date, { description: 'When it was added.' })
  createdAt!: Date;
}

@ObjectType('WebhookAttempt', { description: 'One attempt to deliver: what the receiver answered.' })
export class WebhookAttemptType {
  @Field(() => Int, { description: '1 for the first attempt, counting on through redeliveries.' })
  attempt!: number;

  @Field(() => Int, {
    nullable: true,
    description: 'The receiver’s HTTP status; null when there was no answer.',
  })
  statusCode!: number | null;

  @Field(() => String, {
    nullable: true,
    description: 'Why there was no answer (a timeout, a refused connection); null when there was one.',
  })
  error!: string | null;

  @Field(() => Int, { description: 'How long the attempt took, in milliseconds.' })
  durationMs!: number;

  @Field(() => Date, { description: 'When the attempt started.' })
  at!: Date;
}

@ObjectType('WebhookDelivery', {
  description: 'One event sent to one endpoint, with the same id and body on every attempt.',
})
export class WebhookDeliveryType {
  @Field(() => ID, { description: 'The delivery’s id, for redeliverWebhook.' })
  id!: string;

  @Field(() => String, {
    description: 'The event’s id: the body’s `id` and X-Service-Event-Id, what receivers dedupe on.',
  })
  eventId!: string;

  @Field(() => String, { description: 'The event, such as ticket.ready, or ping for sendTestWebhook.' })
  event!: string;

  @Field(() => String, {
    description: 'pending (waiting for its next attempt), delivering, succeeded or failed.',
  })
  status!: string;

  @Field(() => Int, { description: 'Attempts made since it was last sent or redelivered.' })
  attempts!: number;

  @Field(() => Date, { nullable: true, description: 'When the next attempt is due; null unless pending.' })
  nextAttemptAt!: Date | null;

  @Field(() => Date, { description: 'When the event was written for this endpoint.' })
  createdAt!: Date;

  /** Every attempt, oldest first; `attemptLog` answers the latest of them. */
  allAttempts!: WebhookAttemptType[];
}

@ObjectType('AddedWebhookEndpoint', {
  description: 'A new endpoint and its signing secret, shown this once.',
})
export class AddedWebhookEndpointType {
  @Field(() => String, {
    description: 'The signing secret (`whsec_…`): verify X-Service-Signature with it. Shown once.',
  })
  secret!: string;

  @Field(() => WebhookEndpointType, { description: 'The endpoint as the venue lists it.' })
  endpoint!: WebhookEndpointType;
}

@ObjectType('RotatedWebhookSecret', {
  description: 'An endpoint’s new signing secret, shown this once; it signs every attempt from now on.',
})
export class RotatedWebhookSecretType {
  @Field(() => String, { description: 'The new signing secret (`whsec_…`). Shown once.' })
  secret!: string;

  @Field(() => WebhookEndpointType, { description: 'The endpoint.' })
  endpoint!: WebhookEndpointType;
}

@InputType('AddWebhookEndpointInput', { description: 'A new receiver of a venue’s ticket events.' })
export class AddWebhookEndpointInput {
  @Field(() => ID, { description: 'The venue.' })
  venueId!: string;

  @Field(() => String, {
    description: 'https, at most 2048 characters, no credentials, resolving to public addresses only.',
  })
  url!: string;

  @Field(() => [String], {
    nullable: true,
    description: `Of ${WEBHOOK_EVENTS.join(', ')}; all but ${NOT_BY_DEFAULT.join(', ')} by default.`,
  })
  events?: string[] | null;
}

@InputType('UpdateWebhookEndpointInput', { description: 'The events an endpoint receives from now on.' })
export class UpdateWebhookEndpointInput {
  @Field(() => ID, { description: 'The endpoint.' })
  endpointId!: string;

  @Field(() => [String], { description: 'The events, as for addWebhookEndpoint; at least one.' })
  events!: string[];
}

export function toWebhookEndpointType(endpoint: EndpointJson): WebhookEndpointType {
  return {
    id: String(endpoint.id),
    url: endpoint.url,
    events: endpoint.events,
    createdAt: new Date(endpoint.created_at),
  };
}

export function toWebhookDeliveryType(delivery: DeliveryJson): WebhookDeliveryType {
  return {
    id: String(delivery.id),
    eventId: delivery.event_id,
    event: delivery.event,
    status: delivery.status,
    attempts: delivery.attempts,
    nextAttemptAt: delivery.next_attempt_at === null ? null : new Date(delivery.next_attempt_at),
    createdAt: new Date(delivery.created_at),
    allAttempts: delivery.attempt_log.map((a) => ({
      attempt: a.attempt,
      statusCode: a.status_code,
      error: a.error,
      durationMs: a.duration_ms,
      at: new Date(a.started_at),
    })),
  };
}
