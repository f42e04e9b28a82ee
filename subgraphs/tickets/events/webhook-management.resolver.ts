import { Arg, FieldResolver, ID, Int, Mutation, Resolver, Root } from 'type-graphql';
import { SlicedBy } from '../../../common/cost.graphql';
import { NotFoundError } from '../../../common/errors';
import { parseRecordId } from '../../../common/input.rules';
import { say, type Message } from '../../../common/messages';
import { parseEvents } from './webhook-events';
import { WebhookEndpointService } from './webhook-endpoint.service';
import { VENUE_CAPS, VenueRoles, VenueType } from '../venues';
import {
  AddedWebhookEndpointType,
  AddWebhookEndpointInput,
  RotatedWebhookSecretType,
  toWebhookDeliveryType,
  toWebhookEndpointType,
  UpdateWebhookEndpointInput,
  WebhookAttemptType,
  WebhookDeliveryType,
  WebhookEndpointType,
} from './webhook-management.type';

const LIST_MAX = 100;

/** Every list here takes a page size, so the gateway weighs it by that rather than by 100. */
function bounded(first: number): number {
  return Math.min(Math.max(first, 0), LIST_MAX);
}

/** A venue's webhook endpoints on the graph, for its owners and managers (roles in VenueRoles). */
@Resolver(() => VenueType)
export class WebhookManagementResolver {
  constructor(
    private readonly roles: VenueRoles,
    private readonly webhooks: WebhookEndpointService,
  ) {}

  @SlicedBy('first')
  @FieldResolver(() => [WebhookEndpointType], {
    description: 'The venue’s webhook endpoints, oldest first; deleted ones are gone. Owners and managers.',
  })
  async webhookEndpoints(
    @Root() venue: VenueType,
    @Arg('first', () => Int, { defaultValue: 10, description: `At most ${LIST_MAX}.` }) first: number,
  ): Promise<WebhookEndpointType[]> {
    const venueId = Number(venue.id);
    await this.roles.require(venueId, 'manage');
    return (await this.webhooks.list(venueId)).slice(0, bounded(first)).map(toWebhookEndpointType);
  }

  @Mutation(() => AddedWebhookEndpointType, {
    description: `Adds a webhook endpoint to a venue; its signing secret is shown this once. Owners and managers; past ${VENUE_CAPS.webhookEndpoints} endpoints at the venue, BAD_USER_INPUT on venueId.`,
  })
  async addWebhookEndpoint(
    @Arg('input', () => AddWebhookEndpointInput, { description: 'The venue, the URL and the events.' })
    input: AddWebhookEndpointInput,
  ): Promise<AddedWebhookEndpointType> {
    const venueId = parseRecordId(input.venueId);
    if (venueId === null) throw new NotFoundError(say('venue.not_found'));
    await this.roles.require(venueId, 'manage');
    const events =
      input.events === undefined || input.events === null ? undefined : parseEvents(input.events.join(','));
    const { secret, ...endpoint } = await this.webhooks.create(venueId, input.url, events);
    await this.roles.audit(venueId, 'webhook.added', `webhook:${endpoint.id}`, {
      url: endpoint.url,
      events: endpoint.events.join(','),
    });
    return { secret, endpoint: toWebhookEndpointType(endpoint) };
  }

  @Mutation(() => WebhookEndpointType, {
    description: 'Replaces the events an endpoint receives, from the next event on. Owners and managers.',
  })
  async updateWebhookEndpoint(
    @Arg('input', () => UpdateWebhookEndpointInput, { description: 'The endpoint and its events.' })
    input: UpdateWebhookEndpointInput,
  ): Promise<WebhookEndpointType> {
    const { id, venueId } = await this.managedEndpoint(input.endpointId);
    const events = parseEvents(input.events.join(','));
    const updated = await this.webhooks.updateEvents(id, events);
    await this.roles.audit(venueId, 'webhook.events_changed', `webhook:${id}`, {
      events: events.join(','),
    });
    return toWebhookEndpointType(updated);
  }

  @Mutation(() => RotatedWebhookSecretType, {
    description:
      'Replaces an endpoint’s signing secret; the new one, shown this once, signs every attempt from now on, retries included. Owners and managers.',
  })
  async rotateWebhookSecret(
    @Arg('endpointId', () => ID, { description: 'The endpoint.' }) endpointId: string,
  ): Promise<RotatedWebhookSecretType> {
    const { id, venueId } = await this.managedEndpoint(endpointId);
    const { secret } = await this.webhooks.rotateSecret(id);
    await this.roles.audit(venueId, 'webhook.secret_rotated', `webhook:${id}`);
    return { secret, endpoint: toWebhookEndpointType(await this.webhooks.endpoint(id)) };
  }

  @Mutation(() => Boolean, {
    description:
      'Deletes an endpoint: nothing more is sent to it, retries included. Deleting it again is true too. Owners and managers.',
  })
  async deleteWebhookEndpoint(
    @Arg('endpointId', () => ID, { description: 'The endpoint.' }) endpointId: string,
  ): Promise<boolean> {
    const { id, venueId } = await this.managedEndpoint(endpointId);
    await this.webhooks.delete(id);
    await this.roles.audit(venueId, 'webhook.deleted', `webhook:${id}`);
    return true;
  }

  @Mutation(() => WebhookDeliveryType, {
    description:
      'Sends a succeeded or failed delivery again: same event id and body, a fresh round of retries. Owners and managers.',
  })
  async redeliverWebhook(
    @Arg('deliveryId', () => ID, { description: 'The delivery.' }) deliveryId: string,
  ): Promise<WebhookDeliveryType> {
    const id = parseRecordId(deliveryId);
    const venueId = id === null ? undefined : await this.webhooks.venueOfDelivery(id);
    await this.manage(venueId, say('webhook.delivery_not_found', { id: deliveryId }));
    await this.webhooks.redeliver(id!);
    await this.roles.audit(venueId!, 'webhook.redelivered', `delivery:${id!}`);
    return toWebhookDeliveryType(await this.webhooks.delivery(id!));
  }

  @Mutation(() => WebhookDeliveryType, {
    description:
      'Sends the endpoint a signed ping event ({"id", "event": "ping", "data": {"endpoint_id"}}), delivered, retried and logged like any delivery. Owners and managers.',
  })
  async sendTestWebhook(
    @Arg('endpointId', () => ID, { description: 'The endpoint.' }) endpointId: string,
  ): Promise<WebhookDeliveryType> {
    const { id, venueId } = await this.managedEndpoint(endpointId);
    const delivery = await this.webhooks.ping(id);
    await this.roles.audit(venueId, 'webhook.pinged', `webhook:${id}`);
    return toWebhookDeliveryType(delivery);
  }

  /** The endpoint's id, once the caller is known to manage its venue (deleted endpoints included). */
  private async managedEndpoint(endpointId: string): Promise<{ id: number; venueId: number }> {
    const id = parseRecordId(endpointId);
    const venueId = id === null ? undefined : await this.webhooks.venueOfEndpoint(id);
    await this.manage(venueId, say('webhook.endpoint_not_found', { id: endpointId }));
    return { id: id!, venueId: venueId! };
  }

  /** An endpoint or delivery of a venue the caller is not at is as unknown as the venue itself. */
  private async manage(venueId: number | undefined, notFound: Message): Promise<void> {
    // A signed-out caller hears that first, whether or not the id exists.
    this.roles.user();
    if (venueId === undefined) throw new NotFoundError(notFound);
    try {
      await this.roles.require(venueId, 'manage');
    } catch (error) {
      if (error instanceof NotFoundError) throw new NotFoundError(notFound);
      throw error;
    }
  }
}

/** An endpoint's deliveries; an endpoint is only ever reached through a venue its reader manages. */
@Resolver(() => WebhookEndpointType)
export class WebhookEndpointResolver {
  constructor(private readonly webhooks: WebhookEndpointService) {}

  @SlicedBy('first')
  @FieldResolver(() => [WebhookDeliveryType], {
    description: 'The latest deliveries to the endpoint, newest first, pings included.',
  })
  async deliveries(
    @Root() endpoint: WebhookEndpointType,
    @Arg('first', () => Int, { defaultValue: 20, description: `At most ${LIST_MAX}.` }) first: number,
  ): Promise<WebhookDeliveryType[]> {
    const deliveries = await this.webhooks.deliveries(Number(endpoint.id), bounded(first));
    return deliveries.map(toWebhookDeliveryType);
  }
}

/** A delivery's attempts, already read with the delivery. */
@Resolver(() => WebhookDeliveryType)
export class WebhookDeliveryResolver {
  @SlicedBy('last')
  @FieldResolver(() => [WebhookAttemptType], {
    description: 'The delivery’s latest attempts, oldest first, with what each receiver answered.',
  })
  attemptLog(
    @Root() delivery: WebhookDeliveryType,
    @Arg('last', () => Int, {
      defaultValue: 6,
      description: `At most ${LIST_MAX}; 6, the default, is a whole round (the first attempt and 5 retries).`,
    })
    last: number,
  ): WebhookAttemptType[] {
    const count = bounded(last);
    return count === 0 ? [] : delivery.allAttempts.slice(-count);
  }
}

/** The resolver classes above, for the subgraph's schema. */
export const WEBHOOK_RESOLVERS = [
  WebhookManagementResolver,
  WebhookEndpointResolver,
  WebhookDeliveryResolver,
];

/** Their instances for one request. */
export function webhookResolvers(roles: VenueRoles, webhooks: WebhookEndpointService): object[] {
  return [
    new WebhookManagementResolver(roles, webhooks),
    new WebhookEndpointResolver(webhooks),
    new WebhookDeliveryResolver(),
  ];
}
