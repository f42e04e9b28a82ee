import { randomBytes, randomUUID } from 'node:crypto';
import type { Config } from '../../../common/config';
import type { EntityManager } from '../../../common/database';
import { ConflictError, NotFoundError, ValidationError } from '../../../common/errors';
import { say } from '../../../common/messages';
import type { WebhookEvent } from '../tickets';
import { claimVenueRoom, VenueService } from '../venues';
import { DeliveryRepository, type DeliveryLogRow, type EndpointRow } from './delivery.repository';
import { QueueUnavailableError, type JobQueues } from './job-queues';
import { seal, unsealWithEither } from './secret-box';
import { DEFAULT_ENDPOINT_EVENTS } from './webhook-events';
import { pingBody } from './webhook-body';
import { checkWebhookUrlForm, UnsafeWebhookUrlError, vetWebhookHost } from '../../../common/outbound-url';
import { currentTraceparent } from '../../../common/trace-context';

export interface EndpointJson {
  id: number;
  venue_id: number;
  url: string;
  events: string[];
  created_at: string;
}

/** A delivery as its log shows it: every attempt, and when the next is due while one is. */
export interface DeliveryJson {
  id: number;
  event_id: string;
  event: string;
  status: string;
  attempts: number;
  next_attempt_at: string | null;
  created_at: string;
  attempt_log: DeliveryLogRow['attempt_log'];
}

/** What a reseal did, endpoint by endpoint; `unopenable` names secrets neither key opens. */
export interface ResealReport {
  checked: number;
  resealed: number;
  /** Already sealed under WEBHOOK_SECRET_KEY. */
  current: number;
  /** Replaced (a `rotate-secret`, sealed under the current key) between the read and the write. */
  changedMeanwhile: number;
  unopenable: number[];
}

/** Raw SQL through MikroORM hands timestamps over as text. */
const iso = (value: Date | string): string => new Date(value).toISOString();

const deliveryJson = (r: DeliveryLogRow): DeliveryJson => ({
  id: Number(r.id),
  event_id: r.event_id,
  event: r.event,
  status: r.status,
  attempts: r.attempts,
  next_attempt_at: r.status === 'pending' ? iso(r.next_attempt_at) : null,
  created_at: iso(r.created_at),
  attempt_log: r.attempt_log,
});

const endpointJson = (row: EndpointRow): EndpointJson => ({
  id: Number(row.id),
  venue_id: Number(row.venue_id),
  url: row.url,
  events: row.events,
  created_at: iso(row.created_at),
});

const endpointNotFound = (id: number) => new NotFoundError(say('webhook.endpoint_not_found', { id }));

/** A secret shown once; receivers key their HMAC check with it. */
function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

/** Webhook endpoints of venues, their secrets sealed at rest, and what was delivered to them. */
export class WebhookEndpointService {
  private readonly venues: VenueService;
  private readonly deliveryRows: DeliveryRepository;

  /**
   * `queues`, when given, wakes the worker for a delivery made here (a ping, a redelivery); without
   * it, or while the queue is away, the worker's sweep finds the row within seconds.
   */
  constructor(
    private readonly em: EntityManager,
    private readonly config: Config,
    private readonly queues?: Pick<JobQueues, 'enqueue'>,
  ) {
    this.venues = new VenueService(em);
    this.deliveryRows = new DeliveryRepository(em);
  }

  /** An endpoint more, up to VENUE_CAPS.webhookEndpoints not deleted: the one past it is refused on `venueId`. */
  async create(
    venueId: number,
    url: string,
    events: readonly WebhookEvent[] = DEFAULT_ENDPOINT_EVENTS,
  ): Promise<EndpointJson & { secret: string }> {
    await this.venues.get(venueId);
    // Before the transaction: looking the host up may take a while, and holds no lock meanwhile.
    await this.checkUrl(url);
    const secret = newSecret();
    const row = await this.em.transactional(async (em) => {
      const rows = new DeliveryRepository(em);
      await claimVenueRoom(em, venueId, 'webhookEndpoints', 'venueId', () => rows.liveEndpointCount(venueId));
      return rows.createEndpoint(venueId, url, events, seal(this.config.webhooks.secretKey, secret));
    });
    return { ...endpointJson(row), secret };
  }

  async list(venueId: number): Promise<EndpointJson[]> {
    await this.venues.get(venueId);
    const rows = await this.deliveryRows.listEndpoints(venueId);
    return rows.map(endpointJson);
  }

  /** The venue of an endpoint, deleted or not, to decide who may touch it; undefined without one. */
  async venueOfEndpoint(id: number): Promise<number | undefined> {
    const row = await this.deliveryRows.endpoint(id);
    return row === undefined ? undefined : Number(row.venue_id);
  }

  /** The venue of a delivery's endpoint; undefined when there is no such delivery. */
  async venueOfDelivery(id: number): Promise<number | undefined> {
    const row = await this.deliveryRows.delivery(id);
    return row === undefined ? undefined : Number(row.venue_id);
  }

  /** An endpoint that still receives deliveries. */
  async endpoint(id: number): Promise<EndpointJson> {
    const row = await this.deliveryRows.endpoint(id);
    if (row === undefined || row.deleted_at !== null) throw endpointNotFound(id);
    return endpointJson(row);
  }

  /** Replaces the events the endpoint receives, from the next event on. */
  async updateEvents(id: number, events: readonly WebhookEvent[]): Promise<EndpointJson> {
    const row = await this.deliveryRows.setEndpointEvents(id, events);
    if (row === undefined) throw endpointNotFound(id);
    return endpointJson(row);
  }

  /** Stops all delivery to it, including retries still due; its history stays readable. */
  async delete(id: number): Promise<{ id: number; deleted_at: string }> {
    const deletedAt = await this.deliveryRows.deleteEndpoint(id);
    if (deletedAt === undefined) throw endpointNotFound(id);
    return { id, deleted_at: iso(deletedAt) };
  }

  /** A new secret, used from the next attempt on (retries of earlier events included). */
  async rotateSecret(id: number): Promise<{ id: number; secret: string }> {
    const secret = newSecret();
    const replaced = await this.deliveryRows.replaceSecret(id, seal(this.config.webhooks.secretKey, secret));
    if (!replaced) throw endpointNotFound(id);
    return { id, secret };
  }

  /**
   * Seals again under WEBHOOK_SECRET_KEY every endpoint secret still sealed under the secondary
   * key: step 2 of a key rotation, before the old key is dropped. Batched and idempotent, and safe
   * while the platform serves: each row is rewritten only if unchanged since read, and every
   * process of the roll opens both sealings. A secret neither key opens is reported, not changed.
   */
  async resealSecrets(batchSize = 500): Promise<ResealReport> {
    const report: ResealReport = { checked: 0, resealed: 0, current: 0, changedMeanwhile: 0, unopenable: [] };
    for (let after = 0; ;) {
      const batch = await this.deliveryRows.sealedSecretsAfter(after, batchSize);
      if (batch.length === 0) return report;
      for (const row of batch) {
        const id = Number(row.id);
        report.checked += 1;
        let opened: { secret: string; current: boolean };
        try {
          opened = unsealWithEither(this.config.webhooks, row.secret_sealed);
        } catch {
          report.unopenable.push(id);
          continue;
        }
        if (opened.current) {
          report.current += 1;
          continue;
        }
        const resealed = seal(this.config.webhooks.secretKey, opened.secret);
        if (await this.deliveryRows.resealSecret(id, row.secret_sealed, resealed)) report.resealed += 1;
        else report.changedMeanwhile += 1;
      }
      after = Number(batch[batch.length - 1]!.id);
    }
  }

  /** The endpoint's latest deliveries (at most 100), newest first, each with every attempt. */
  async deliveries(id: number, limit = 100): Promise<DeliveryJson[]> {
    if (!(await this.deliveryRows.endpointExists(id))) throw endpointNotFound(id);
    const rows = await this.deliveryRows.deliveriesOf(id, Math.min(limit, 100));
    return rows.map(deliveryJson);
  }

  /** One delivery, whichever endpoint it went to (the caller decided who may see it). */
  async delivery(id: number): Promise<DeliveryJson> {
    const row = await this.deliveryRows.delivery(id);
    if (row === undefined) throw new NotFoundError(say('webhook.delivery_not_found', { id }));
    return deliveryJson(row);
  }

  /**
   * A signed `ping` to the endpoint, made and retried like any delivery, so a venue sees whether its
   * receiver answers and verifies before a real event depends on it.
   */
  async ping(endpointId: number): Promise<DeliveryJson> {
    const eventId = randomUUID();
    const id = await this.deliveryRows.insertWebhookDelivery(
      endpointId,
      eventId,
      'ping',
      pingBody(eventId, endpointId),
      currentTraceparent(),
    );
    if (id === undefined) throw endpointNotFound(endpointId);
    await this.wake(id);
    return this.delivery(id);
  }

  /**
   * Sends a finished delivery again, with the same event id and body and a fresh round of
   * retries. One still under way is a conflict: it is already being sent.
   */
  async redeliver(deliveryId: number): Promise<{ id: number; status: 'pending'; attempts: number }> {
    const state = await this.deliveryRows.deliveryState(deliveryId);
    if (state === undefined) throw new NotFoundError(say('webhook.delivery_not_found', { id: deliveryId }));
    if (state.endpointDeleted) throw new ConflictError(say('webhook.endpoint_deleted'));
    if (!(await this.deliveryRows.restartDelivery(deliveryId)))
      throw new ConflictError(say('webhook.still_delivering', { id: deliveryId }));
    await this.wake(deliveryId);
    return { id: deliveryId, status: 'pending', attempts: 0 };
  }

  private async wake(deliveryId: number): Promise<void> {
    try {
      await this.queues?.enqueue('webhooks', deliveryId, 0);
    } catch (error) {
      // The row is committed and due: the worker's sweep sends it without the job.
      if (!(error instanceof QueueUnavailableError)) throw error;
    }
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
