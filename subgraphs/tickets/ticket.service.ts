import { createHash, randomBytes } from 'node:crypto';
import type { EntityManager } from '../../common/database';
import { ConflictError, NotFoundError, RateLimitedError, ValidationError } from '../../common/errors';
import type { Principal } from './api-key.service';
import type { WebhookEvent } from './events/ticket-events';
import { recordEvent, type FeedbackPayload } from './outbox';
import { Branch } from './branch.entity';
import { Ticket, type TicketStatus } from './ticket.entity';
import {
  checkNewTicket,
  MOVES,
  refuseMove,
  RING_INTERVAL_SECONDS,
  TICKET_LIMITS,
  type NewTicketInput,
  type TicketMove,
} from './ticket.rules';
import { Venue } from './venue.entity';

/** A ticket of the caller's branch, by id or by the calling system's order id. */
export type TicketRef = { id: number } | { externalId: string };

export interface TicketFilter {
  search?: string | null;
  status?: TicketStatus | null;
  externalId?: string | null;
  from?: Date | null;
  to?: Date | null;
}

export interface TicketPage {
  items: Ticket[];
  total: number;
  page: number;
  perPage: number;
}

export interface CreatedTicket {
  ticket: Ticket;
  /** True when an earlier request with the same Idempotency-Key created it. */
  replayed: boolean;
}

/** What the customer's page may show: no phone, no note. */
export interface PublicTicketView {
  ticket: Ticket;
  branchName: string;
  venueName: string;
  venueLanguage: string;
  venueTimezone: string;
  smsEnabled: boolean;
  feedback: FeedbackPayload | null;
}

const MOVE_EVENT: Record<TicketMove, WebhookEvent> = {
  ready: 'ticket.ready',
  collected: 'ticket.collected',
  cancel: 'ticket.cancelled',
};

/** How long an Idempotency-Key is kept, and after how long an unfinished claim counts as abandoned. */
const IDEMPOTENCY_HOURS = 24;
const ABANDONED_CLAIM_SECONDS = 60;
const AUTO_NUMBER_ATTEMPTS = 50;

type Row = Record<string, unknown>;

function newToken(): string {
  return randomBytes(24).toString('base64url');
}

/** Same body, same hash, whatever the key order. */
export function requestHash(input: CheckedRequest): string {
  const canonical = JSON.stringify(
    Object.keys(input)
      .sort()
      .map((k) => [k, input[k as keyof CheckedRequest]]),
  );
  return createHash('sha256').update(canonical).digest('hex');
}

type CheckedRequest = ReturnType<typeof checkNewTicket>;

function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`);
}

export class TicketService {
  constructor(private readonly em: EntityManager) {}

  /**
   * Creates a waiting ticket of the caller's branch. Without a number it takes the branch's next
   * one; with an Idempotency-Key, a repeat of the same request returns the first ticket.
   */
  async create(
    principal: Principal,
    input: NewTicketInput,
    idempotencyKey?: string | null,
  ): Promise<CreatedTicket> {
    const checked = checkNewTicket(input);
    if (idempotencyKey === undefined || idempotencyKey === null) {
      return {
        ticket: await this.em.transactional((tx) => this.insertTicket(tx, principal, checked)),
        replayed: false,
      };
    }
    if (idempotencyKey.length < 1 || idempotencyKey.length > TICKET_LIMITS.idempotencyKey) {
      throw new ValidationError({
        idempotencyKey: [
          `The Idempotency-Key header must be between 1 and ${TICKET_LIMITS.idempotencyKey} characters.`,
        ],
      });
    }
    const hash = requestHash(checked);
    const replay = await this.claimIdempotencyKey(principal.branchId, idempotencyKey, hash);
    if (replay !== null) return { ticket: replay, replayed: true };
    try {
      const ticket = await this.em.transactional(async (tx) => {
        const created = await this.insertTicket(tx, principal, checked);
        await tx.execute(
          `update tickets.idempotency_keys set ticket_id = ?, completed_at = now()
            where branch_id = ? and key = ?`,
          [created.id, principal.branchId, idempotencyKey],
        );
        return created;
      });
      return { ticket, replayed: false };
    } catch (error) {
      // Only a created ticket is remembered; a refused request may be corrected and sent again.
      await this.em.execute(
        `delete from tickets.idempotency_keys where branch_id = ? and key = ? and completed_at is null`,
        [principal.branchId, idempotencyKey],
      );
      throw error;
    }
  }

  /**
   * Claims the key for this request in its own short transaction, so a concurrent repeat sees the
   * claim at once (409) instead of waiting. Returns the earlier ticket when the request is a replay.
   */
  private async claimIdempotencyKey(branchId: number, key: string, hash: string): Promise<Ticket | null> {
    const claimed = await this.em.execute<Row[]>(
      `insert into tickets.idempotency_keys (branch_id, key, request_hash, expires_at)
       values (?, ?, ?, now() + make_interval(hours => ?))
       on conflict (branch_id, key) do update
         set request_hash = excluded.request_hash, ticket_id = null, started_at = now(),
             completed_at = null, expires_at = excluded.expires_at
         where tickets.idempotency_keys.expires_at < now()
            or (tickets.idempotency_keys.completed_at is null
                and tickets.idempotency_keys.started_at < now() - make_interval(secs => ?))
       returning branch_id`,
      [branchId, key, hash, IDEMPOTENCY_HOURS, ABANDONED_CLAIM_SECONDS],
    );
    if (claimed.length === 1) return null;
    const [existing] = await this.em.execute<Row[]>(
      `select request_hash, ticket_id, completed_at from tickets.idempotency_keys where branch_id = ? and key = ?`,
      [branchId, key],
    );
    if (existing === undefined) return this.claimIdempotencyKey(branchId, key, hash); // released meanwhile
    if (existing.completed_at === null || existing.ticket_id === null) {
      throw new ConflictError('A request with this Idempotency-Key is still being processed. Retry shortly.');
    }
    if (existing.request_hash !== hash) {
      throw new ValidationError({
        idempotencyKey: ['The Idempotency-Key was already used with a different request body.'],
      });
    }
    return this.em.fork().findOneOrFail(Ticket, { id: Number(existing.ticket_id) });
  }

  private async insertTicket(
    tx: EntityManager,
    principal: Principal,
    checked: CheckedRequest,
  ): Promise<Ticket> {
    for (let attempt = 0; attempt < AUTO_NUMBER_ATTEMPTS; attempt++) {
      const number = checked.number ?? (await this.nextNumber(tx, principal.branchId));
      const rows = await tx.execute<Row[]>(
        `insert into tickets.tickets (branch_id, number, external_id, token, customer_name, customer_phone, note)
         values (?, ?, ?, ?, ?, ?, ?)
         on conflict do nothing
         returning *`,
        [
          principal.branchId,
          number,
          checked.externalId,
          newToken(),
          checked.customerName,
          checked.customerPhone,
          checked.note,
        ],
      );
      const row = rows[0];
      if (row !== undefined) {
        const ticket = tx.map(Ticket, row);
        await recordEvent(tx, principal.venueId, 'ticket.created', ticket);
        return ticket;
      }
      const [clash] = await tx.execute<{ number_taken: boolean; external_id_taken: boolean }[]>(
        `select exists (select 1 from tickets.tickets where branch_id = ? and number = ? and status in ('waiting', 'ready')) as number_taken,
                exists (select 1 from tickets.tickets where branch_id = ? and external_id = ? and status in ('waiting', 'ready')) as external_id_taken`,
        [principal.branchId, number, principal.branchId, checked.externalId],
      );
      if (clash?.external_id_taken)
        throw new ValidationError({ externalId: ['The external id has already been taken.'] });
      if (clash?.number_taken && checked.number !== null) {
        throw new ValidationError({
          number: ['The number has already been taken by an open ticket of this branch.'],
        });
      }
      // An automatic number held by a ticket whose number was supplied by hand: take the next one.
    }
    throw new ConflictError('Could not find a free ticket number; retry shortly.');
  }

  /** The branch's next number; the counter starts again at 1 each day in the venue's timezone. */
  private async nextNumber(tx: EntityManager, branchId: number): Promise<string> {
    const [row] = await tx.execute<{ number_counter: number }[]>(
      `update tickets.branches b
          set number_counter = case when b.number_day = (now() at time zone v.timezone)::date
                                    then b.number_counter + 1 else 1 end,
              number_day = (now() at time zone v.timezone)::date,
              updated_at = now()
         from tickets.venues v
        where b.id = ? and v.id = b.venue_id
        returning b.number_counter`,
      [branchId],
    );
    if (row === undefined) throw new NotFoundError(`Branch ${branchId} not found.`);
    return String(row.number_counter);
  }

  async get(principal: Principal, ref: TicketRef): Promise<Ticket> {
    const ticket = await this.find(this.em, principal, ref);
    if (ticket === null) throw new NotFoundError('Ticket not found.');
    return ticket;
  }

  /** By external id, the branch's open ticket with it comes first, then the newest closed one. */
  private async find(em: EntityManager, principal: Principal, ref: TicketRef): Promise<Ticket | null> {
    if ('id' in ref) return em.findOne(Ticket, { id: ref.id, branchId: principal.branchId });
    const rows = await em.execute<Row[]>(
      `select * from tickets.tickets where branch_id = ? and external_id = ?
        order by (status in ('waiting', 'ready')) desc, id desc limit 1`,
      [principal.branchId, ref.externalId],
    );
    return rows[0] === undefined ? null : em.map(Ticket, rows[0]);
  }

  /** Applies one move atomically: of two concurrent moves of a ticket, one wins and the other is refused. */
  async move(principal: Principal, ref: TicketRef, move: TicketMove): Promise<Ticket> {
    const { from, to } = MOVES[move];
    return this.em.transactional(async (tx) => {
      const current = await this.find(tx, principal, ref);
      if (current === null) throw new NotFoundError('Ticket not found.');
      const stamp = to === 'ready' ? 'ready_at' : to === 'collected' ? 'collected_at' : 'cancelled_at';
      const alert = to === 'ready' ? ', ring_count = ring_count + 1, last_alert_at = now()' : '';
      const rows = await tx.execute<Row[]>(
        `update tickets.tickets set status = ?, ${stamp} = now(), updated_at = now()${alert}
          where id = ? and status in (${from.map(() => '?').join(', ')})
          returning *`,
        [to, current.id, ...from],
      );
      if (rows[0] === undefined) {
        const latest = await tx.execute<{ status: TicketStatus }[]>(
          'select status from tickets.tickets where id = ?',
          [current.id],
        );
        throw refuseMove(move, latest[0]?.status ?? current.status);
      }
      const ticket = tx.map(Ticket, rows[0]);
      await recordEvent(tx, principal.venueId, MOVE_EVENT[move], ticket);
      return ticket;
    });
  }

  /** Alerts the customer again: only a ready ticket, at most once every 30 seconds. */
  async ring(principal: Principal, ref: TicketRef): Promise<Ticket> {
    return this.em.transactional(async (tx) => {
      const current = await this.find(tx, principal, ref);
      if (current === null) throw new NotFoundError('Ticket not found.');
      const rows = await tx.execute<Row[]>(
        `update tickets.tickets set ring_count = ring_count + 1, last_alert_at = now(), updated_at = now()
          where id = ? and status = 'ready'
            and (last_alert_at is null or last_alert_at <= now() - make_interval(secs => ?))
          returning *`,
        [current.id, RING_INTERVAL_SECONDS],
      );
      if (rows[0] === undefined) {
        const [state] = await tx.execute<{ status: TicketStatus; wait: string | null }[]>(
          `select status, extract(epoch from (last_alert_at + make_interval(secs => ?) - now())) as wait
             from tickets.tickets where id = ?`,
          [RING_INTERVAL_SECONDS, current.id],
        );
        if (state === undefined) throw new NotFoundError('Ticket not found.');
        if (state.status !== 'ready') {
          const message = `Only a ready ticket can be rung; this one is ${state.status}.`;
          throw new ValidationError({ status: [message] }, message);
        }
        const wait = Math.max(1, Math.ceil(Number(state.wait ?? 1)));
        throw new RateLimitedError(
          wait,
          `The customer was alerted less than ${RING_INTERVAL_SECONDS} seconds ago. Retry in ${wait} seconds.`,
        );
      }
      const ticket = tx.map(Ticket, rows[0]);
      await recordEvent(tx, principal.venueId, 'ticket.rung', ticket);
      return ticket;
    });
  }

  /** The branch's tickets, newest first. */
  async list(principal: Principal, filter: TicketFilter, page: number, perPage: number): Promise<TicketPage> {
    const where: string[] = ['branch_id = ?'];
    const params: unknown[] = [principal.branchId];
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
      page,
      perPage,
    };
  }

  /** The customer's view of a ticket, by its unguessable token; null when there is none. */
  async byToken(token: string): Promise<PublicTicketView | null> {
    if (!/^[A-Za-z0-9_-]{32}$/.test(token)) return null;
    const ticket = await this.em.findOne(Ticket, { token });
    if (ticket === null) return null;
    const branch = await this.em.findOneOrFail(Branch, { id: ticket.branchId });
    const venue = await this.em.findOneOrFail(Venue, { id: branch.venueId });
    const [feedback] = await this.em.execute<
      { rating: number; comment: string | null; created_at: string }[]
    >('select rating, comment, created_at from tickets.ticket_feedback where ticket_id = ?', [ticket.id]);
    return {
      ticket,
      branchName: branch.name,
      venueName: venue.name,
      venueLanguage: venue.language,
      venueTimezone: venue.timezone,
      smsEnabled: venue.smsEnabled,
      feedback: feedback
        ? {
            rating: feedback.rating,
            comment: feedback.comment,
            created_at: new Date(feedback.created_at).toISOString(),
          }
        : null,
    };
  }
}
