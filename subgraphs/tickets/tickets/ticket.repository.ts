import type { EntityManager } from '../../../common/database';
import { isLockTimeout } from '../../../common/database-errors';
import { TicketSource, type TicketStatus } from '../../../contracts/tickets/ticket.limits';
import type { FeedbackPayload } from './ticket-events';
import { TicketOutbox, ticketSnapshotSql } from './ticket-outbox';
import { Ticket } from './ticket.entity';

type Row = Record<string, unknown>;

/** The repositories of one ticket write, bound to its transaction. */
export interface TicketWrites {
  tickets: TicketRepository;
  outbox: TicketOutbox;
}

/** A new ticket's columns, checked and normalised by the service. */
export interface NewTicketRow {
  branchId: number;
  number: string;
  externalId: string | null;
  token: string;
  customerName: string | null;
  customerPhone: string | null;
  note: string | null;
  /** API unless said otherwise. */
  source?: TicketSource;
  /**
   * When the ticket was made, as a device that was offline reported it (checked by
   * `checkOccurredAt`); null or absent: now. A moment ahead of the database's clock is taken as now.
   */
  createdAt?: Date | null;
}

/** What narrows a list of a branch's tickets; a blank field narrows nothing. */
export interface TicketFilter {
  search?: string | null;
  status?: TicketStatus | null;
  externalId?: string | null;
  from?: Date | null;
  to?: Date | null;
}

/** An Idempotency-Key's record as a completed request left it. */
export interface IdempotencyRecord {
  requestHash: string;
  ticketId: number;
}

/** A ticket locked for the customer's write, with what its venue allows. */
export interface LockedTicket {
  ticket: Ticket;
  venueId: number;
  smsEnabled: boolean;
}

/** A ticket that could not be rung: its status and the seconds until the next ring is allowed. */
export interface RingState {
  status: TicketStatus;
  waitSeconds: number | null;
}

/**
 * Moves the branch's (`b`, its venue `v`) counter to its next number, starting again at 1 on each
 * new day in the venue's timezone; the update holds the branch row until the transaction ends.
 */
const TAKE_NEXT_NUMBER = `update tickets.branches b
          set number_counter = case when b.number_day = (now() at time zone v.timezone)::date
                                    then b.number_counter + 1 else 1 end,
              number_day = (now() at time zone v.timezone)::date,
              updated_at = now()
         from tickets.venues v
        where b.id = ? and v.id = b.venue_id`;

/** A new ticket's values for the columns after `number` in the order its inserts name them. */
function writtenAfterNumber(ticket: Omit<NewTicketRow, 'number'>): unknown[] {
  return [
    ticket.externalId,
    ticket.token,
    ticket.customerName,
    ticket.customerPhone,
    ticket.note,
    ticket.source ?? TicketSource.API,
    ticket.createdAt ?? null,
  ];
}

/** The creation time a new ticket's insert writes: the moment given, never later than now. */
const CREATED_AT = 'least(coalesce(?::timestamptz, now()), now())';

/**
 * The moment a move stamps (`?`: the moment the device reported, or null for now): never later
 * than now, and never before the ticket's previous event (its creation for a waiting ticket, its
 * readiness for a ready one), read from the row as it was before the update.
 */
const MOVE_STAMP = `greatest(least(coalesce(?::timestamptz, now()), now()),
  case when status = 'ready' then coalesce(ready_at, created_at) else created_at end)`;

/** Keeps the keys' advisory locks apart from any other use of advisory locks on the database. */
const IDEMPOTENCY_LOCK_SEED = 0x1de4;

function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * Tickets, their numbering and Idempotency-Keys, and what the customer writes on the ticket's page
 * (push subscriptions, feedback). The conditional writes answer null when their condition no
 * longer holds, so that the service decides what that means.
 */
export class TicketRepository {
  constructor(private readonly em: EntityManager) {}

  /** Runs `work` in one transaction, so a ticket's change and the event reporting it commit together. */
  transaction<T>(work: (tx: TicketWrites) => Promise<T>): Promise<T> {
    return this.em.transactional((tx) =>
      work({ tickets: new TicketRepository(tx), outbox: new TicketOutbox(tx) }),
    );
  }

  /**
   * Holds an Idempotency-Key until this transaction ends; false while another live transaction
   * holds it past `waitMs`. A transaction-scoped advisory lock, not a row: a request whose process
   * is killed mid-way has its transaction aborted by Postgres and the key is free at once, where a
   * claim row would stay behind until it was deemed abandoned. A key another transaction holds is
   * waited for (at most `waitMs`), so a repeat sent while the first is committing (a load
   * balancer retrying a POST whose first door died) reads what the first left instead of a 409.
   * A wait that runs out aborts this transaction: false is its last answer.
   */
  async lockIdempotencyKey(branchId: number, key: string, waitMs = 0): Promise<boolean> {
    const params = [branchId, key, IDEMPOTENCY_LOCK_SEED];
    const [row] = await this.em.execute<{ locked: boolean }[]>(
      `select pg_try_advisory_xact_lock(hashtextextended(?::text || ':' || ?::text, ?)) as locked`,
      params,
    );
    if (row?.locked === true) return true;
    if (waitMs <= 0) return false;
    await this.em.execute(`set local lock_timeout = ${Math.ceil(waitMs)}`);
    try {
      await this.em.execute(
        `select pg_advisory_xact_lock(hashtextextended(?::text || ':' || ?::text, ?))`,
        params,
      );
    } catch (error) {
      if (isLockTimeout(error)) return false;
      throw error;
    }
    await this.em.execute('set local lock_timeout to default');
    return true;
  }

  /** The unexpired record of a key a completed request left; read under lockIdempotencyKey. */
  async findIdempotencyKey(branchId: number, key: string): Promise<IdempotencyRecord | undefined> {
    const [existing] = await this.em.execute<Row[]>(
      `select request_hash, ticket_id from tickets.idempotency_keys
        where branch_id = ? and key = ? and completed_at is not null and ticket_id is not null
          and expires_at > now()`,
      [branchId, key],
    );
    if (existing === undefined) return undefined;
    return { requestHash: existing.request_hash as string, ticketId: Number(existing.ticket_id) };
  }

  /**
   * Remembers the ticket a key created, in the transaction that created it and under its lock.
   * An expired record, or an unfinished one an earlier version of this code left, is replaced.
   */
  async rememberIdempotencyKey(
    branchId: number,
    key: string,
    record: IdempotencyRecord,
    keepHours: number,
  ): Promise<void> {
    await this.em.execute(
      `insert into tickets.idempotency_keys (branch_id, key, request_hash, ticket_id, completed_at, expires_at)
       values (?, ?, ?, ?, now(), now() + make_interval(hours => ?))
       on conflict (branch_id, key) do update
         set request_hash = excluded.request_hash, ticket_id = excluded.ticket_id, started_at = now(),
             completed_at = excluded.completed_at, expires_at = excluded.expires_at`,
      [branchId, key, record.requestHash, record.ticketId, keepHours],
    );
  }

  /** The ticket as stored, read past this request's identity map (an earlier request created it). */
  findStored(id: number): Promise<Ticket> {
    return this.em.fork().findOneOrFail(Ticket, { id });
  }

  /**
   * Takes the branch's next number; the counter starts again at 1 each day in the venue's timezone.
   * Null when there is no such branch.
   */
  async nextNumber(branchId: number): Promise<string | null> {
    const [row] = await this.em.execute<{ number_counter: number }[]>(
      `${TAKE_NEXT_NUMBER} returning b.number_counter`,
      [branchId],
    );
    if (row === undefined) return null;
    return String(row.number_counter);
  }

  /**
   * Moves the branch's counter to the first number from `from` on that no open ticket of the branch
   * holds, and returns it. One statement however many numbers are held: a branch whose tickets are
   * never collected holds every number of the day before when the counter starts again at 1. The
   * first free number is `from` itself or follows a held one, so only the open tickets are read.
   * Call it after `nextNumber` in the same transaction, which holds the branch's row.
   */
  async skipHeldNumbers(branchId: number, from: number): Promise<string> {
    const [row] = await this.em.execute<{ number_counter: number }[]>(
      `with candidates as (
         select ?::integer as n
         union
         select held.n + 1 from (
           -- The cast only where the text is a number: a WHERE's conditions run in any order.
           select case when t.number ~ '^[1-9][0-9]{0,8}$' then t.number::integer end as n
             from tickets.tickets t
            where t.branch_id = ? and t.status in ('waiting', 'ready')
         ) held
          where held.n >= ?
       )
       update tickets.branches b
          set number_counter = (
                select min(c.n) from candidates c
                 where not exists (select 1 from tickets.tickets h
                                    where h.branch_id = b.id and h.number = c.n::text
                                      and h.status in ('waiting', 'ready'))),
              updated_at = now()
        where b.id = ?
        returning b.number_counter`,
      [from, branchId, from, branchId],
    );
    if (row === undefined) throw new Error(`Branch ${branchId} vanished while numbering a ticket.`);
    return String(row.number_counter);
  }

  /** The new ticket, or null when an open ticket holds its number or external id already. */
  async insert(ticket: NewTicketRow): Promise<Ticket | null> {
    return this.oneTicket(
      `insert into tickets.tickets (branch_id, number, external_id, token, customer_name, customer_phone, note, source, created_at)
         values (?, ?, ?, ?, ?, ?, ?, ?, ${CREATED_AT})
         on conflict do nothing
         returning *`,
      [ticket.branchId, ticket.number, ...writtenAfterNumber(ticket)],
    );
  }

  /**
   * A ticket with the branch's next number and its `ticket.created` outbox row, in one statement:
   * the same writes as `nextNumber`, `insert` and `recordEvent` in a transaction, without the four
   * round trips to Postgres around them, which cost each create more than its SQL. Null when it
   * wrote nothing: no such branch, or an open ticket holds the external id (then the counter has
   * not moved). Also null when an open ticket holds the number taken; the counter has moved past
   * it, as the transaction would have before skipping it. The caller then takes the transaction.
   * Only two creates racing with one external id can leave a number unused (the loser's); the
   * transaction's path would have given it to the next ticket.
   */
  async insertNumbered(
    ticket: Omit<NewTicketRow, 'number'>,
    event: { venueId: number; eventId: string; traceparent: string | null },
  ): Promise<Ticket | null> {
    return this.oneTicket(
      `with numbered as (
         ${TAKE_NEXT_NUMBER}
            and not exists (select 1 from tickets.tickets h
                             where h.branch_id = b.id and h.external_id = ?::text
                               and h.status in ('waiting', 'ready'))
          returning b.id, b.number_counter
       ), created as (
         insert into tickets.tickets (branch_id, number, external_id, token, customer_name, customer_phone, note, source, created_at)
         select n.id, n.number_counter::text, ?::text, ?::text, ?::text, ?::text, ?::text, ?::smallint, ${CREATED_AT}
           from numbered n
         on conflict do nothing
         returning *
       ), recorded as (
         insert into tickets.outbox (event_id, event, venue_id, ticket_id, payload, traceparent)
         select ?::uuid, 'ticket.created', ?::bigint, c.id,
                jsonb_build_object('ticket', ${ticketSnapshotSql(this.em, 'c')}), ?::text
           from created c
       )
       select * from created`,
      [
        ticket.branchId,
        ticket.externalId,
        ...writtenAfterNumber(ticket),
        event.eventId,
        event.venueId,
        event.traceparent,
      ],
    );
  }

  /** Which of the number and external id an open ticket of the branch holds. */
  async openTicketClash(
    branchId: number,
    number: string,
    externalId: string | null,
  ): Promise<{ numberTaken: boolean; externalIdTaken: boolean }> {
    const [clash] = await this.em.execute<{ number_taken: boolean; external_id_taken: boolean }[]>(
      `select exists (select 1 from tickets.tickets where branch_id = ? and number = ? and status in ('waiting', 'ready')) as number_taken,
                exists (select 1 from tickets.tickets where branch_id = ? and external_id = ? and status in ('waiting', 'ready')) as external_id_taken`,
      [branchId, number, branchId, externalId],
    );
    return { numberTaken: clash?.number_taken === true, externalIdTaken: clash?.external_id_taken === true };
  }

  /*
   * The reads behind every keyed GET and every ticket page, written as SQL and mapped: `findOne`
   * builds and interprets its query each time, and as SQL a keyed get costs the subgraph about a
   * fifth less CPU (docs/performance-log/peers.md), where one tickets process is what limits keyed gets.
   */
  findInBranch(branchId: number, id: number): Promise<Ticket | null> {
    return this.oneTicket('select * from tickets.tickets where id = ? and branch_id = ?', [id, branchId]);
  }

  /** The branch's open ticket with the external id comes first, then the newest closed one. */
  async findByExternalId(branchId: number, externalId: string): Promise<Ticket | null> {
    return this.oneTicket(
      `select * from tickets.tickets where branch_id = ? and external_id = ?
        order by (status in ('waiting', 'ready')) desc, id desc limit 1`,
      [branchId, externalId],
    );
  }

  findByToken(token: string): Promise<Ticket | null> {
    return this.oneTicket('select * from tickets.tickets where token = ?', [token]);
  }

  /** The statement's first row as a Ticket of this unit of work; null for none. */
  private async oneTicket(sql: string, params: unknown[]): Promise<Ticket | null> {
    const [row] = await this.em.execute<Row[]>(sql, params);
    return row === undefined ? null : this.em.map(Ticket, row);
  }

  /**
   * Moves the ticket to `to` and stamps when, if its status is still one of `from`; null when it no
   * longer is. `alert` also counts a ring and restarts the ring interval, from now: the customer is
   * alerted now, whenever the move happened. `occurredAt` is when the move happened on a device
   * that was offline (MOVE_STAMP); the ticket's `updated_at` is now all the same.
   */
  async changeStatus(
    id: number,
    from: readonly TicketStatus[],
    to: TicketStatus,
    alert: boolean,
    occurredAt: Date | null = null,
  ): Promise<Ticket | null> {
    const stamp = to === 'ready' ? 'ready_at' : to === 'collected' ? 'collected_at' : 'cancelled_at';
    const ring = alert ? ', ring_count = ring_count + 1, last_alert_at = now()' : '';
    const when = occurredAt === null ? 'now()' : MOVE_STAMP;
    return this.oneTicket(
      `update tickets.tickets set status = ?, ${stamp} = ${when}, updated_at = now()${ring}
          where id = ? and status in (${from.map(() => '?').join(', ')})
          returning *`,
      occurredAt === null ? [to, id, ...from] : [to, occurredAt, id, ...from],
    );
  }

  async statusOf(id: number): Promise<TicketStatus | undefined> {
    const latest = await this.em.execute<{ status: TicketStatus }[]>(
      'select status from tickets.tickets where id = ?',
      [id],
    );
    return latest[0]?.status;
  }

  /** Rings a ready ticket last alerted at least `intervalSeconds` ago; null otherwise. */
  async ring(id: number, intervalSeconds: number): Promise<Ticket | null> {
    return this.oneTicket(
      `update tickets.tickets set ring_count = ring_count + 1, last_alert_at = now(), updated_at = now()
          where id = ? and status = 'ready'
            and (last_alert_at is null or last_alert_at <= now() - make_interval(secs => ?))
          returning *`,
      [id, intervalSeconds],
    );
  }

  async ringState(id: number, intervalSeconds: number): Promise<RingState | undefined> {
    const [state] = await this.em.execute<{ status: TicketStatus; wait: string | null }[]>(
      `select status, extract(epoch from (last_alert_at + make_interval(secs => ?) - now())) as wait
             from tickets.tickets where id = ?`,
      [intervalSeconds, id],
    );
    if (state === undefined) return undefined;
    return { status: state.status, waitSeconds: state.wait === null ? null : Number(state.wait) };
  }

  /** One page of the branch's tickets matching the filter, newest first, and how many match. */
  async list(
    branchId: number,
    filter: TicketFilter,
    page: number,
    perPage: number,
  ): Promise<{ items: Ticket[]; total: number }> {
    const where: string[] = ['branch_id = ?'];
    const params: unknown[] = [branchId];
    if (filter.status) {
      where.push('status = ?');
      params.push(filter.status);
    }
    if (filter.externalId) {
      where.push('external_id = ?');
      params.push(filter.externalId);
    }
    if (filter.from) {
      where.push('created_at >= ?');
      params.push(filter.from);
    }
    if (filter.to) {
      where.push('created_at <= ?');
      params.push(filter.to);
    }
    const search = filter.search?.trim();
    if (search) {
      const pattern = `%${escapeLike(search)}%`;
      where.push(`(number ilike ? or external_id ilike ? or customer_name ilike ? or note ilike ?)`);
      params.push(pattern, pattern, pattern, pattern);
    }
    const clause = where.join(' and ');
    const [count] = await this.em.execute<{ total: string }[]>(
      `select count(*) as total from tickets.tickets where ${clause}`,
      params,
    );
    const rows = await this.em.execute<Row[]>(
      `select * from tickets.tickets where ${clause} order by created_at desc, id desc limit ? offset ?`,
      [...params, perPage, (page - 1) * perPage],
    );
    return {
      items: rows.map((row) => this.em.map(Ticket, row)),
      total: Number(count?.total ?? 0),
    };
  }

  /** The ticket's rating, if it was given. */
  async feedbackOf(ticketId: number): Promise<FeedbackPayload | null> {
    const [feedback] = await this.em.execute<
      { rating: number; comment: string | null; created_at: string }[]
    >('select rating, comment, created_at from tickets.ticket_feedback where ticket_id = ?', [ticketId]);
    return feedback
      ? {
          rating: feedback.rating,
          comment: feedback.comment,
          created_at: new Date(feedback.created_at).toISOString(),
        }
      : null;
  }

  /** The ticket and its venue, its row locked so the customer's conditional writes see one state. */
  async lockByToken(token: string): Promise<LockedTicket | null> {
    const [row] = await this.em.execute<Row[]>(
      `select t.*, b.venue_id as located_venue_id, v.sms_enabled as located_sms_enabled
         from tickets.tickets t
         join tickets.branches b on b.id = t.branch_id
         join tickets.venues v on v.id = b.venue_id
        where t.token = ? for update of t`,
      [token],
    );
    if (row === undefined) return null;
    const { located_venue_id: venueId, located_sms_enabled: smsEnabled, ...ticketRow } = row;
    return {
      ticket: this.em.map(Ticket, ticketRow),
      venueId: Number(venueId),
      smsEnabled: smsEnabled === true,
    };
  }

  /** Sets linked_at and phone_linked the first time; null when the ticket was linked already. */
  async markLinked(id: number): Promise<Ticket | null> {
    return this.oneTicket(
      `update tickets.tickets set linked_at = now(), phone_linked = true, updated_at = now()
          where id = ? and linked_at is null returning *`,
      [id],
    );
  }

  /** Null when alerts were enabled already. */
  async enableAlerts(id: number): Promise<Ticket | null> {
    return this.oneTicket(
      `update tickets.tickets set alerts_enabled = true, updated_at = now()
          where id = ? and not alerts_enabled returning *`,
      [id],
    );
  }

  /** Stores the customer's number for the text on ready; null when the ticket is no longer waiting. */
  async optInSms(id: number, e164: string): Promise<Ticket | null> {
    return this.oneTicket(
      `update tickets.tickets set customer_phone = ?, sms_opt_in = true, updated_at = now()
          where id = ? and status = 'waiting' returning *`,
      [e164, id],
    );
  }

  /** How many browsers other than this endpoint's are subscribed to the ticket. */
  async countOtherPushSubscriptions(ticketId: number, endpoint: string): Promise<number> {
    const [count] = await this.em.execute<{ n: string }[]>(
      'select count(*) as n from tickets.push_subscriptions where ticket_id = ? and endpoint <> ?',
      [ticketId, endpoint],
    );
    return Number(count?.n ?? 0);
  }

  /** Adds the subscription; the same endpoint again replaces its keys. */
  async savePushSubscription(
    ticketId: number,
    subscription: { endpoint: string; p256dh: string; auth: string },
  ): Promise<void> {
    await this.em.execute(
      `insert into tickets.push_subscriptions (ticket_id, endpoint, p256dh, auth) values (?, ?, ?, ?)
         on conflict (ticket_id, endpoint) do update set p256dh = excluded.p256dh, auth = excluded.auth`,
      [ticketId, subscription.endpoint, subscription.p256dh, subscription.auth],
    );
  }

  /** Stores the ticket's one rating and answers when; null when it was rated already. */
  async insertFeedback(ticketId: number, rating: number, comment: string | null): Promise<Date | null> {
    const [row] = await this.em.execute<{ created_at: string | Date }[]>(
      `insert into tickets.ticket_feedback (ticket_id, rating, comment) values (?, ?, ?)
         on conflict (ticket_id) do nothing returning created_at`,
      [ticketId, rating, comment],
    );
    return row === undefined ? null : new Date(row.created_at);
  }
}
