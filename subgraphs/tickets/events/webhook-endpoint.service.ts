import { randomBytes } from 'node:crypto';
import type { Config } from '../../../common/config';
import type { EntityManager } from '../../../common/database';
import { ConflictError, NotFoundError, ValidationError } from '../../../common/errors';
import { VenueService } from '../venue.service';
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

interface EndpointRow {
  id: string;
  venue_id: string;
  url: string;
  events: string[];
  created_at: Date | string;
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
  constructor(
    private readonly em: EntityManager,
    private readonly config: Config,
  ) {}

  async create(
    venueId: number,
    url: string,
    events: readonly WebhookEvent[] = DEFAULT_ENDPOINT_EVENTS,
  ): Promise<EndpointJson & { secret: string }> {
    await new VenueService(this.em).get(venueId);
    await this.checkUrl(url);
    const secret = newSecret();
    const [row] = await this.em.execute<EndpointRow[]>(
      `insert into tickets.webhook_endpoints (venue_id, url, events, secret_sealed) values (?, ?, string_to_array(?, ','), ?)
       returning id, venue_id, url, events, created_at`,
      [venueId, url, events.join(','), seal(this.config.webhooks.secretKey, secret)],
    );
    return { ...endpointJson(row!), secret };
  }

  async list(venueId: number): Promise<EndpointJson[]> {
    await new VenueService(this.em).get(venueId);
    const rows = await this.em.execute<EndpointRow[]>(
      `select id, venue_id, url, events, created_at from tickets.webhook_endpoints
        where venue_id = ? and deleted_at is null order by id`,
      [venueId],
    );
    return rows.map(endpointJson);
  }

  /** Stops all delivery to it, including retries still due; its history stays readable. */
  async delete(id: number): Promise<{ id: number; deleted_at: string }> {
    const [row] = await this.em.execute<{ deleted_at: Date }[]>(
      `update tickets.webhook_endpoints set deleted_at = coalesce(deleted_at, now()), updated_at = now()
        where id = ? returning deleted_at`,
      [id],
    );
    if (row === undefined) throw new NotFoundError(`Webhook endpoint ${id} not found.`);
    return { id, deleted_at: iso(row.deleted_at) };
  }

  /** A new secret, used from the next attempt on (retries of earlier events included). */
  async rotateSecret(id: number): Promise<{ id: number; secret: string }> {
    const secret = newSecret();
    const rows = await this.em.execute<{ id: string }[]>(
      `update tickets.webhook_endpoints set secret_sealed = ?, updated_at = now()
        where id = ? and deleted_at is null returning id`,
      [seal(this.config.webhooks.secretKey, secret), id],
    );
    if (rows.length === 0) throw new NotFoundError(`Webhook endpoint ${id} not found.`);
    return { id, secret };
  }

  /** The endpoint's latest 100 deliveries, newest first, each with every attempt. */
  async deliveries(id: number): Promise<unknown[]> {
    const [endpoint] = await this.em.execute<{ id: string }[]>(
      'select id from tickets.webhook_endpoints where id = ?',
      [id],
    );
    if (endpoint === undefined) throw new NotFoundError(`Webhook endpoint ${id} not found.`);
    const rows = await this.em.execute<
      {
        id: string;
        event_id: string;
        event: string;
        status: string;
        attempts: number;
        next_attempt_at: Date;
        created_at: Date;
        attempt_log: {
          attempt: number;
          started_at: string;
          duration_ms: number;
          status_code: number | null;
          error: string | null;
        }[];
      }[]
    >(
      `select d.id, d.event_id, d.event, d.status, d.attempts, d.next_attempt_at, d.created_at,
              coalesce((select json_agg(json_build_object(
                  'attempt', a.attempt, 'started_at', a.started_at, 'duration_ms', a.duration_ms,
                  'status_code', a.status_code, 'error', a.error) order by a.attempt)
                from tickets.webhook_attempts a where a.delivery_id = d.id), '[]') as attempt_log
         from tickets.webhook_deliveries d where d.endpoint_id = ? order by d.id desc limit 100`,
      [id],
    );
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
    const [row] = await this.em.execute<{ status: string; deleted_at: Date | null }[]>(
      `select d.status, e.deleted_at from tickets.webhook_deliveries d
         join tickets.webhook_endpoints e on e.id = d.endpoint_id where d.id = ?`,
      [deliveryId],
    );
    if (row === undefined) throw new NotFoundError(`Webhook delivery ${deliveryId} not found.`);
    if (row.deleted_at !== null) throw new ConflictError('Its webhook endpoint was deleted.');
    const updated = await this.em.execute<{ id: string }[]>(
      `update tickets.webhook_deliveries set status = 'pending', attempts = 0, next_attempt_at = now(), updated_at = now()
        where id = ? and status in ('succeeded', 'failed') returning id`,
      [deliveryId],
    );
    if (updated.length === 0)
      throw new ConflictError(`Webhook delivery ${deliveryId} is still being delivered.`);
    return { id: deliveryId, status: 'pending', attempts: 0 };
  }

  private async checkUrl(url: string): Promise<void> {
    try {
      const parsed = checkWebhookUrlForm(url, this.config.webhooks.allowInsecure);
      await vetWebhookHost(parsed, this.config.webhooks.allowInsecure);
    } catch (error) {
      if (error instanceof UnsafeWebhookUrlError) throw new ValidationError({ url: [error.message] });
      throw error;
    }
  }
}
