import type { EntityManager } from '../../../common/database';
import type { DeliveryEvent } from './webhook-events';

/** The tables of delivery rows, each `pending` → busy (claimed by a worker) → settled. */
export type DeliveryTableName =
  'tickets.webhook_deliveries' | 'tickets.sms_messages' | 'tickets.push_messages';

/** A webhook delivery claimed for one attempt, with its endpoint. */
export interface ClaimedDelivery {
  id: string;
  endpoint_id: string;
  event_id: string;
  event: string;
  body: string;
  attempts: number;
  url: string;
  secret_sealed: Buffer;
  deleted_at: Date | null;
  /** The trace the delivery continues (the relay's span of its event); null if untraced. */
  traceparent: string | null;
}

/** One webhook attempt and what it leaves the delivery as. */
export interface WebhookAttempt {
  deliveryId: string;
  startedAt: Date;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
  status: 'succeeded' | 'failed' | 'pending';
  attempts: number;
  nextAt: Date;
}

/** A text claimed for one attempt, with the venue whose plan decides whether it goes. */
export interface ClaimedSms {
  id: string;
  ticket_id: string;
  event_id: string;
  to: string;
  text: string;
  attempts: number;
  venue_id: string;
  traceparent: string | null;
}

/** A push message claimed for one attempt, with the browser's subscription and the ticket's token. */
export interface ClaimedPush {
  id: string;
  subscription_id: string;
  title: string;
  body: string;
  token: string;
  attempts: number;
  endpoint: string;
  p256dh: string;
  auth: string;
  traceparent: string | null;
}

/** A webhook endpoint as the admin commands show it; timestamps may come back as text. */
export interface EndpointRow {
  id: string;
  venue_id: string;
  url: string;
  events: string[];
  created_at: Date | string;
}

/** An endpoint with the time it was deleted, null while it receives deliveries. */
export interface StoredEndpoint extends EndpointRow {
  deleted_at: Date | null;
}

/** A delivery of an endpoint with every attempt made of it. */
export interface DeliveryLogRow {
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
}

/** A delivery with the endpoint it goes to and that endpoint's venue. */
export interface EndpointDeliveryRow extends DeliveryLogRow {
  endpoint_id: string;
  venue_id: string;
}

const ids = (rows: { id: string }[]): number[] => rows.map((r) => Number(r.id));

/** The columns of a delivery `d` as its log shows it (DeliveryLogRow), every attempt included. */
const DELIVERY_LOG_COLUMNS = `d.id, d.event_id, d.event, d.status, d.attempts, d.next_attempt_at, d.created_at,
       coalesce((select json_agg(json_build_object(
           'attempt', a.attempt, 'started_at', a.started_at, 'duration_ms', a.duration_ms,
           'status_code', a.status_code, 'error', a.error) order by a.attempt)
         from tickets.webhook_attempts a where a.delivery_id = d.id), '[]') as attempt_log`;

/**
 * The delivery rows of webhooks, texts and Web Push, and the webhook endpoints they go to. A row is
 * claimed by a conditional update, so two workers never make the same attempt.
 */
export class DeliveryRepository {
  constructor(private readonly em: EntityManager) {}

  /** Frees rows whose worker died mid-attempt: their claim ran out. */
  async releaseExpiredClaims(table: DeliveryTableName, busyStatus: string): Promise<void> {
    await this.em.execute(
      `update ${table} set status = 'pending', locked_until = null, updated_at = now()
      where status = ? and locked_until < now()`,
      [busyStatus],
    );
  }

  /** Pending rows due for a while (their job was lost, or never made), oldest first. */
  async overdue(table: DeliveryTableName): Promise<{ id: number; attempts: number }[]> {
    const due = await this.em.execute<{ id: string; attempts: number }[]>(
      `select id, attempts from ${table}
      where status = 'pending' and next_attempt_at <= now() - interval '2 seconds'
      order by next_attempt_at limit 500`,
    );
    return due.map((row) => ({ id: Number(row.id), attempts: row.attempts }));
  }

  /**
   * The webhook deliveries of an event, one per endpoint of the venue subscribed to it; their ids.
   * `traceparent` is the trace each delivery continues (as for every insert below).
   */
  async insertWebhookDeliveries(
    eventId: string,
    event: string,
    body: string,
    venueId: number,
    traceparent: string | null = null,
  ): Promise<number[]> {
    const deliveries = await this.em.execute<{ id: string }[]>(
      `insert into tickets.webhook_deliveries (endpoint_id, event_id, event, body, traceparent)
       select e.id, ?, ?, ?, ? from tickets.webhook_endpoints e
        where e.venue_id = ? and e.deleted_at is null and ? = any(e.events)
       on conflict (endpoint_id, event_id) do nothing
       returning id`,
      [eventId, event, body, traceparent, venueId, event],
    );
    return ids(deliveries);
  }

  /** One delivery to one endpoint that is not deleted (a `ping`); its id, undefined without one. */
  async insertWebhookDelivery(
    endpointId: number,
    eventId: string,
    event: DeliveryEvent,
    body: string,
    traceparent: string | null = null,
  ): Promise<number | undefined> {
    const [delivery] = await this.em.execute<{ id: string }[]>(
      `insert into tickets.webhook_deliveries (endpoint_id, event_id, event, body, traceparent)
       select e.id, ?, ?, ?, ? from tickets.webhook_endpoints e where e.id = ? and e.deleted_at is null
       returning id`,
      [eventId, event, body, traceparent, endpointId],
    );
    return delivery === undefined ? undefined : Number(delivery.id);
  }

  /**
   * The ticket's one text, if it has a phone and its venue sends texts; its id. `holdSeconds` makes
   * it due later: the fallback of a WhatsApp ready alert on its way.
   */
  async insertSms(
    eventId: string,
    text: string,
    ticketId: number,
    traceparent: string | null = null,
    holdSeconds = 0,
  ): Promise<number[]> {
    const sms = await this.em.execute<{ id: string }[]>(
      `insert into tickets.sms_messages (ticket_id, event_id, "to", "text", traceparent, next_attempt_at)
         select t.id, ?, t.customer_phone, ?, ?, now() + make_interval(secs => ?) from tickets.tickets t
           join tickets.branches b on b.id = t.branch_id
           join tickets.venues v on v.id = b.venue_id
          where t.id = ? and t.customer_phone is not null and v.sms_enabled
         on conflict (ticket_id) do nothing
         returning id`,
      [eventId, text, traceparent, holdSeconds, ticketId],
    );
    return ids(sms);
  }

  /** A push message per browser subscribed to the ticket; their ids. */
  async insertPushMessages(
    eventId: string,
    title: string,
    body: string,
    ticketId: number,
    traceparent: string | null = null,
  ): Promise<number[]> {
    const pushes = await this.em.execute<{ id: string }[]>(
      `insert into tickets.push_messages (subscription_id, event_id, title, body, traceparent)
         select s.id, ?, ?, ?, ? from tickets.push_subscriptions s where s.ticket_id = ?
         on conflict (subscription_id, event_id) do nothing
         returning id`,
      [eventId, title, body, traceparent, ticketId],
    );
    return ids(pushes);
  }

  /** Claims a due pending delivery for `lockSeconds`; undefined when there is nothing to do. */
  async claimWebhook(id: number, lockSeconds: number): Promise<ClaimedDelivery | undefined> {
    const [claimed] = await this.em.execute<ClaimedDelivery[]>(
      `with claimed as (
         update tickets.webhook_deliveries set status = 'delivering', updated_at = now(),
                locked_until = now() + make_interval(secs => ?)
          where id = ? and status = 'pending' and next_attempt_at <= now() + interval '1 second'
          returning id, endpoint_id, event_id, event, body, attempts, traceparent)
       select c.*, e.url, e.secret_sealed, e.deleted_at
         from claimed c join tickets.webhook_endpoints e on e.id = c.endpoint_id`,
      [lockSeconds, id],
    );
    return claimed;
  }

  /** Logs the attempt and settles or reschedules the delivery, in one transaction. */
  async recordWebhookAttempt(attempt: WebhookAttempt): Promise<void> {
    await this.em.transactional(async (tx) => {
      await tx.execute(
        `insert into tickets.webhook_attempts (delivery_id, attempt, started_at, duration_ms, status_code, error)
         values (?, (select coalesce(max(attempt), 0) + 1 from tickets.webhook_attempts where delivery_id = ?), ?, ?, ?, ?)`,
        [
          attempt.deliveryId,
          attempt.deliveryId,
          attempt.startedAt,
          attempt.durationMs,
          attempt.statusCode,
          attempt.error,
        ],
      );
      await tx.execute(
        `update tickets.webhook_deliveries
            set status = ?, attempts = ?, next_attempt_at = ?, locked_until = null, updated_at = now()
          where id = ?`,
        [attempt.status, attempt.attempts, attempt.nextAt, attempt.deliveryId],
      );
    });
  }

  /** Claims a due pending text for `lockSeconds`; undefined when there is nothing to do. */
  async claimSms(id: number, lockSeconds: number): Promise<ClaimedSms | undefined> {
    const [claimed] = await this.em.execute<ClaimedSms[]>(
      `with claimed as (
         update tickets.sms_messages set status = 'sending', updated_at = now(),
                locked_until = now() + make_interval(secs => ?)
          where id = ? and status = 'pending' and next_attempt_at <= now() + interval '1 second'
          returning id, event_id, ticket_id, "to", "text", attempts, traceparent)
       select c.id, c.ticket_id, c.event_id, c."to", c."text", c.attempts, c.traceparent, b.venue_id
         from claimed c join tickets.tickets t on t.id = c.ticket_id join tickets.branches b on b.id = t.branch_id`,
      [lockSeconds, id],
    );
    return claimed;
  }

  /** The provider accepted the text: the row and the ticket's sms_sent say so together. */
  async recordSmsSent(id: string, attempts: number): Promise<void> {
    await this.em.transactional(async (tx) => {
      await tx.execute(
        `update tickets.sms_messages set status = 'sent', sent_at = now(), attempts = ?, last_error = null,
                  locked_until = null, updated_at = now() where id = ?`,
        [attempts, id],
      );
      await tx.execute(
        `update tickets.tickets set sms_sent = true, updated_at = now()
            where id = (select ticket_id from tickets.sms_messages where id = ?)`,
        [id],
      );
    });
  }

  async settleSms(
    id: string,
    status: 'pending' | 'failed' | 'skipped',
    attempts: number,
    error: string,
    nextAt: Date,
  ): Promise<void> {
    await this.em.execute(
      `update tickets.sms_messages set status = ?, attempts = ?, last_error = ?, next_attempt_at = ?,
              locked_until = null, updated_at = now() where id = ?`,
      [status, attempts, error, nextAt, id],
    );
  }

  /** Claims a due pending push message for `lockSeconds`; undefined when there is nothing to do. */
  async claimPush(id: number, lockSeconds: number): Promise<ClaimedPush | undefined> {
    const [claimed] = await this.em.execute<ClaimedPush[]>(
      `with claimed as (
         update tickets.push_messages set status = 'sending', updated_at = now(),
                locked_until = now() + make_interval(secs => ?)
          where id = ? and status = 'pending' and next_attempt_at <= now() + interval '1 second'
          returning id, subscription_id, title, body, attempts, traceparent)
       select c.*, s.endpoint, s.p256dh, s.auth, t.token
         from claimed c join tickets.push_subscriptions s on s.id = c.subscription_id
         join tickets.tickets t on t.id = s.ticket_id`,
      [lockSeconds, id],
    );
    return claimed;
  }

  async deletePushSubscription(subscriptionId: string): Promise<void> {
    await this.em.execute('delete from tickets.push_subscriptions where id = ?', [subscriptionId]);
  }

  async settlePush(
    id: string,
    status: 'pending' | 'sent' | 'failed',
    attempts: number,
    error: string | null,
    nextAt: Date,
  ): Promise<void> {
    await this.em.execute(
      `update tickets.push_messages set status = ?, attempts = ?, last_error = ?, next_attempt_at = ?,
              sent_at = case when ? = 'sent' then now() else sent_at end,
              locked_until = null, updated_at = now() where id = ?`,
      [status, attempts, error, nextAt, status, id],
    );
  }

  async createEndpoint(
    venueId: number,
    url: string,
    events: readonly string[],
    secretSealed: Buffer,
  ): Promise<EndpointRow> {
    const [row] = await this.em.execute<EndpointRow[]>(
      `insert into tickets.webhook_endpoints (venue_id, url, events, secret_sealed) values (?, ?, string_to_array(?, ','), ?)
       returning id, venue_id, url, events, created_at`,
      [venueId, url, events.join(','), secretSealed],
    );
    return row!;
  }

  async liveEndpointCount(venueId: number): Promise<number> {
    const [row] = await this.em.execute<{ count: string }[]>(
      'select count(*) as count from tickets.webhook_endpoints where venue_id = ? and deleted_at is null',
      [venueId],
    );
    return Number(row?.count ?? 0);
  }

  /** The venue's endpoints that are not deleted, oldest first. */
  listEndpoints(venueId: number): Promise<EndpointRow[]> {
    return this.em.execute<EndpointRow[]>(
      `select id, venue_id, url, events, created_at from tickets.webhook_endpoints
        where venue_id = ? and deleted_at is null order by id`,
      [venueId],
    );
  }

  /** The endpoint, deleted or not; undefined when there is none. */
  async endpoint(id: number): Promise<StoredEndpoint | undefined> {
    const [row] = await this.em.execute<StoredEndpoint[]>(
      `select id, venue_id, url, events, created_at, deleted_at from tickets.webhook_endpoints where id = ?`,
      [id],
    );
    return row;
  }

  /** Replaces the events an endpoint receives; undefined when there is none, or it was deleted. */
  async setEndpointEvents(id: number, events: readonly string[]): Promise<EndpointRow | undefined> {
    const [row] = await this.em.execute<EndpointRow[]>(
      `update tickets.webhook_endpoints set events = string_to_array(?, ','), updated_at = now()
        where id = ? and deleted_at is null returning id, venue_id, url, events, created_at`,
      [events.join(','), id],
    );
    return row;
  }

  /** Marks the endpoint deleted (the first deletion's time stays); undefined when there is none. */
  async deleteEndpoint(id: number): Promise<Date | undefined> {
    const [row] = await this.em.execute<{ deleted_at: Date }[]>(
      `update tickets.webhook_endpoints set deleted_at = coalesce(deleted_at, now()), updated_at = now()
        where id = ? returning deleted_at`,
      [id],
    );
    return row?.deleted_at;
  }

  /** False when there is no such endpoint, or it was deleted. */
  async replaceSecret(id: number, secretSealed: Buffer): Promise<boolean> {
    const rows = await this.em.execute<{ id: string }[]>(
      `update tickets.webhook_endpoints set secret_sealed = ?, updated_at = now()
        where id = ? and deleted_at is null returning id`,
      [secretSealed, id],
    );
    return rows.length > 0;
  }

  /** Up to `limit` endpoints' sealed secrets after `afterId` in id order, deleted ones too: a reseal's batch. */
  sealedSecretsAfter(afterId: number, limit: number): Promise<{ id: string; secret_sealed: Buffer }[]> {
    return this.em.execute<{ id: string; secret_sealed: Buffer }[]>(
      'select id, secret_sealed from tickets.webhook_endpoints where id > ? order by id limit ?',
      [afterId, limit],
    );
  }

  /**
   * Replaces a sealed secret with the same secret sealed anew, only if it is still the one read:
   * a `rotate-secret` in between wins, and the reseal writes nothing over it.
   */
  async resealSecret(id: number, read: Buffer, resealed: Buffer): Promise<boolean> {
    const rows = await this.em.execute<{ id: string }[]>(
      `update tickets.webhook_endpoints set secret_sealed = ?
        where id = ? and secret_sealed = ? returning id`,
      [resealed, id, read],
    );
    return rows.length > 0;
  }

  /** Whether the endpoint exists, deleted or not. */
  async endpointExists(id: number): Promise<boolean> {
    const [endpoint] = await this.em.execute<{ id: string }[]>(
      'select id from tickets.webhook_endpoints where id = ?',
      [id],
    );
    return endpoint !== undefined;
  }

  /** The endpoint's latest deliveries (100 unless fewer are asked for), newest first. */
  deliveriesOf(endpointId: number, limit = 100): Promise<DeliveryLogRow[]> {
    return this.em.execute<DeliveryLogRow[]>(
      `select ${DELIVERY_LOG_COLUMNS} from tickets.webhook_deliveries d
        where d.endpoint_id = ? order by d.id desc limit ?`,
      [endpointId, limit],
    );
  }

  /** One delivery as its log shows it, with its endpoint's venue; undefined when there is none. */
  async delivery(id: number): Promise<EndpointDeliveryRow | undefined> {
    const [row] = await this.em.execute<EndpointDeliveryRow[]>(
      `select ${DELIVERY_LOG_COLUMNS}, d.endpoint_id, e.venue_id
         from tickets.webhook_deliveries d join tickets.webhook_endpoints e on e.id = d.endpoint_id
        where d.id = ?`,
      [id],
    );
    return row;
  }

  /** A delivery's status and whether its endpoint was deleted; undefined when there is none. */
  async deliveryState(id: number): Promise<{ status: string; endpointDeleted: boolean } | undefined> {
    const [row] = await this.em.execute<{ status: string; deleted_at: Date | null }[]>(
      `select d.status, e.deleted_at from tickets.webhook_deliveries d
         join tickets.webhook_endpoints e on e.id = d.endpoint_id where d.id = ?`,
      [id],
    );
    return row === undefined ? undefined : { status: row.status, endpointDeleted: row.deleted_at !== null };
  }

  /** Makes a finished delivery pending again with fresh retries; false when it is still under way. */
  async restartDelivery(id: number): Promise<boolean> {
    const updated = await this.em.execute<{ id: string }[]>(
      `update tickets.webhook_deliveries set status = 'pending', attempts = 0, next_attempt_at = now(), updated_at = now()
        where id = ? and status in ('succeeded', 'failed') returning id`,
      [id],
    );
    return updated.length > 0;
  }
}
