import { randomBytes } from 'node:crypto';
import type { Config } from '../../../common/config';
import type { EntityManager } from '../../../common/database';
import { ConflictError, NotFoundError, ValidationError } from '../../../common/errors';
import { VenueService } from '../venue.service';
import { DeliveryRepository, type EndpointRow } from './delivery.repository';
import { seal } from './secret-box';
import { DEFAULT_ENDPOINT_EVENTS, type WebhookEvent } from './ticket-events';
import { checkWebhookUrlForm, UnsafeWebhookUrlError, vetWebhookHost } from './webhook-url';

export interface EndpointJson {
  id: number;
  venue_id: number;
  url: string;
  events: string[];
  created_at: string;
}

/** Raw SQL through MikroORM hands timestamps over as text. */
const iso = (value: Date | string): string => new Date(value).toISOString();

const endpointJson = (row: EndpointRow): EndpointJson => ({
  id: Number(row.id),
  venue_id: Number(row.venue_id),
  url: row.url,
  events: row.events,
  created_at: iso(row.created_at),
});

/** A secret shown once; receivers key their HMAC check with it. */
function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

/** Webhook endpoints of venues, their secrets sealed at rest, and what was delivered to them. */
export class WebhookEndpointService {
  private readonly venues: VenueService;
  private readonly deliveryRows: DeliveryRepository;

  constructor(
    em: EntityManager,
    private readonly config: Config,
  ) {
    this.venues = new VenueService(em);
    this.deliveryRows = new DeliveryRepository(em);
  }

  async create(
    venueId: number,
    url: string,
    events: readonly WebhookEvent[] = DEFAULT_ENDPOINT_EVENTS,
  ): Promise<EndpointJson & { secret: string }> {
    await this.venues.get(venueId);
    await this.checkUrl(url);
    const secret = newSecret();
    const row = await this.deliveryRows.createEndpoint(
      venueId,
      url,
      events,
      seal(this.config.webhooks.secretKey, secret),
    );
    return { ...endpointJson(row), secret };
  }

  async list(venueId: number): Promise<EndpointJson[]> {
    await this.venues.get(venueId);
    const rows = await this.deliveryRows.listEndpoints(venueId);
    return rows.map(endpointJson);
  }

  /** Stops all delivery to it, including retries still due; its history stays readable. */
  async delete(id: number): Promise<{ id: number; deleted_at: string }> {
    const deletedAt = await this.deliveryRows.deleteEndpoint(id);
    if (deletedAt === undefined) throw new NotFoundError(`Webhook endpoint ${id} not found.`);
    return { id, deleted_at: iso(deletedAt) };
  }

  /** A new secret, used from the next attempt on (retries of earlier events included). */
  async rotateSecret(id: number): Promise<{ id: number; secret: string }> {
    const secret = newSecret();
    const replaced = await this.deliveryRows.replaceSecret(id, seal(this.config.webhooks.secretKey, secret));
    if (!replaced) throw new NotFoundError(`Webhook endpoint ${id} not found.`);
    return { id, secret };
  }

  /** The endpoint's latest 100 deliveries, newest first, each with every attempt. */
  async deliveries(id: number): Promise<unknown[]> {
    if (!(await this.deliveryRows.endpointExists(id)))
      throw new NotFoundError(`Webhook endpoint ${id} not found.`);
    const rows = await this.deliveryRows.deliveriesOf(id);
    return rows.map((r) => ({
      id: Number(r.id),
      event_id: r.event_id,
      event: r.event,
      status: r.status,
      attempts: r.attempts,
      next_attempt_at: r.status === 'pending' ? iso(r.next_attempt_at) : null,
      created_at: iso(r.created_at),
      attempt_log: r.attempt_log,
    }));
  }

  /**
   * Sends a finished delivery again, with the same event id and body and a fresh round of
   * retries. One still under way is a conflict: it is already being sent.
   */
  async redeliver(deliveryId: number): Promise<{ id: number; status: 'pending'; attempts: number }> {
    const state = await this.deliveryRows.deliveryState(deliveryId);
    if (state === undefined) throw new NotFoundError(`Webhook delivery ${deliveryId} not found.`);
    if (state.endpointDeleted) throw new ConflictError('Its webhook endpoint was deleted.');
    if (!(await this.deliveryRows.restartDelivery(deliveryId)))
      throw new ConflictError(`Webhook delivery ${deliveryId} is still being delivered.`);
    return { id: deliveryId, status: 'pending', attempts: 0 };
  }

  private async checkUrl(url: string): Promise<void> {
    try {
      const parsed = checkWebhookUrlForm(url, this.config.webhooks.allowInsecure);
      await vetWebhookHost(parsed, this.config.webhooks.allowInsecure);
    } catch (error) {
      if (error instanceof UnsafeWebhookUrlError) throw new ValidationError({ url: [error.said] });
      throw error;
    }
  }
}
