import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { currentTraceparent } from '../../../common/trace-context';
import type { EntityManager } from '../../../common/database';
import { ConflictError, NotFoundError, RateLimitedError, ValidationError } from '../../../common/errors';
import type { Principal } from '../access';
import type { FeedbackPayload, WebhookEvent } from './ticket-events';
import { RING_INTERVAL_SECONDS, TICKET_LIMITS, TicketSource } from '../../../contracts/tickets/ticket.limits';
import type { Ticket } from './ticket.entity';
import {
  TicketRepository,
  type NewTicketRow,
  type TicketFilter,
  type TicketWrites,
} from './ticket.repository';
import { checkNewTicket, checkOccurredAt, type NewTicketInput } from './ticket.rules';
import { MOVES, refuseMove, type TicketMove } from './ticket-state-machine';
import { VenueRepository } from '../venues';
import { TOKEN } from '../../../common/patterns';
import { IDEMPOTENCY_HOURS } from '../../../contracts/tickets/ticket.limits';
import { say } from '../../../common/messages';

/**
 * How long a repeat of a create waits for the first request with its Idempotency-Key to end. A
 * first request normally commits within milliseconds; its repeat is most often a load balancer or
 * POS retrying because the door it first went through died, and then it should read the ticket
 * the first one made (a replay) rather than a 409 the POS must retry again.
 */
export const IDEMPOTENCY_WAIT_MS = 2_000;

/** A ticket of the caller's branch, by id or by the calling system's order id. */
export type TicketRef = { id: number } | { externalId: string };

export interface TicketPage {
  items: Ticket[];
  total: number;
  page: number;
  perPage: number;
}

/** What a device that worked offline adds to a move: its retry key and when the move happened. */
export interface MoveOptions {
  /** 1 to 255 characters, kept 24 hours per branch with the keys of creates. */
  idempotencyKey?: string | null;
  /** When the move happened; null or absent: now (`checkOccurredAt`). */
  occurredAt?: Date | null;
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
  /** The venue's WhatsApp switch as stored (the platform's configuration decides too). */
  whatsappEnabled: boolean;
  feedback: FeedbackPayload | null;
}

const MOVE_EVENT: Record<TicketMove, WebhookEvent> = {
  ready: 'ticket.ready',
  collected: 'ticket.collected',
  cancel: 'ticket.cancelled',
};

/** Tries of an automatic number, each the first free one then: only racing hand-typed numbers use them up. */
const AUTO_NUMBER_ATTEMPTS = 10;

function newToken(): string {
  return randomBytes(24).toString('base64url');
}

/** Same body, same hash, whatever the key order. */
export function requestHash(input: object): string {
  const canonical = JSON.stringify(
    Object.keys(input)
      .sort()
      .map((k) => [k, (input as Record<string, unknown>)[k]]),
  );
  return createHash('sha256').update(canonical).digest('hex');
}

/**
 * A create's checked input, and when it happened when a device that was offline said so (only
 * then part of the request an Idempotency-Key answers for, so the hashes of keys written before
 * `occurredAt` existed still match).
 */
type CheckedRequest = ReturnType<typeof checkNewTicket> & { occurredAt?: string };

/** Refuses a retry key the key store cannot hold, on `idempotencyKey`. */
function checkIdempotencyKey(key: string): void {
  if (key.length < 1 || key.length > TICKET_LIMITS.idempotencyKey) {
    throw new ValidationError({
      idempotencyKey: [say('ticket.idempotency_key_length', { max: TICKET_LIMITS.idempotencyKey })],
    });
  }
}

/** A new ticket's columns but its number, with a token of its own. */
function newRow(principal: Principal, checked: CheckedRequest): Omit<NewTicketRow, 'number'> {
  return {
    createdAt: checked.occurredAt === undefined ? null : new Date(checked.occurredAt),
    branchId: principal.branchId,
    externalId: checked.externalId,
    token: newToken(),
    customerName: checked.customerName,
    customerPhone: checked.customerPhone,
    note: checked.note,
    // A key is the API; a person at the branch works the cashier screen.
    source: principal.keyId === null ? TicketSource.CASHIER : TicketSource.API,
  };
}

/** Tickets of a branch: creation with numbering and Idempotency-Keys, moves, rings, reads. */
export class TicketService {
  private readonly tickets: TicketRepository;
  private readonly venues: VenueRepository;

  constructor(em: EntityManager) {
    this.tickets = new TicketRepository(em);
    this.venues = new VenueRepository(em);
  }

  /**
   * Creates a waiting ticket of the caller's branch. Without a number it takes the branch's next
   * one; with an Idempotency-Key, a repeat of the same request returns the first ticket. With
   * `occurredAt` (a board that was offline) the ticket was made then (`checkOccurredAt`).
   */
  async create(
    principal: Principal,
    input: NewTicketInput,
    idempotencyKey?: string | null,
    occurredAt?: Date | null,
  ): Promise<CreatedTicket> {
    const when = checkOccurredAt(occurredAt);
    const checked: CheckedRequest = {
      ...checkNewTicket(input),
      ...(when === null ? {} : { occurredAt: when.toISOString() }),
    };
    if (idempotencyKey === undefined || idempotencyKey === null) {
      const ticket =
        (checked.number === null ? await this.insertAtOnce(this.tickets, principal, checked) : null) ??
        (await this.tickets.transaction((tx) => this.insertTicket(tx, principal, checked, false)));
      return { ticket, replayed: false };
    }
    checkIdempotencyKey(idempotencyKey);
    return this.createOnce(principal, checked, idempotencyKey);
  }

  /**
   * A create under an Idempotency-Key, in one transaction that holds the key (a concurrent repeat
   * waits up to IDEMPOTENCY_WAIT_MS for the first to end, then 409), replays what a completed
   * request with it created, or creates the ticket and remembers the key. Nothing is written before
   * the commit, so a refused request can be corrected and sent again with the same key, and a
   * request cut off by a crash leaves nothing a retry would have to wait for.
   */
  private createOnce(principal: Principal, checked: CheckedRequest, key: string): Promise<CreatedTicket> {
    const hash = requestHash(checked);
    return this.tickets.transaction(async (tx) => {
      if (!(await tx.tickets.lockIdempotencyKey(principal.branchId, key, IDEMPOTENCY_WAIT_MS))) {
        throw new ConflictError(
          'A request with this Idempotency-Key is still being processed. Retry shortly.',
        );
      }
      const earlier = await tx.tickets.findIdempotencyKey(principal.branchId, key);
      if (earlier !== undefined) {
        if (earlier.requestHash !== hash) {
          throw new ValidationError({ idempotencyKey: [say('request.idempotency_mismatch')] });
        }
        return { ticket: await this.tickets.findStored(earlier.ticketId), replayed: true };
      }
      const ticket = await this.insertTicket(tx, principal, checked, true);
      await tx.tickets.rememberIdempotencyKey(
        principal.branchId,
        key,
        { requestHash: hash, ticketId: ticket.id },
        IDEMPOTENCY_HOURS,
      );
      return { ticket, replayed: false };
    });
  }

  /**
   * @param atOnce whether to try the one statement first (an automatic number): false when the
   *   caller has just tried it outside this transaction.
   */
  private async insertTicket(
    tx: TicketWrites,
    principal: Principal,
    checked: CheckedRequest,
    atOnce: boolean,
  ): Promise<Ticket> {
    if (atOnce && checked.number === null) {
      const ticket = await this.insertAtOnce(tx.tickets, principal, checked);
      if (ticket !== null) return ticket;
    }
    let automatic: string | undefined;
    for (let attempt = 0; attempt < AUTO_NUMBER_ATTEMPTS; attempt++) {
      const number =
        checked.number ??
        (automatic === undefined
          ? await this.nextNumber(tx, principal.branchId)
          : await tx.tickets.skipHeldNumbers(principal.branchId, Number(automatic) + 1));
      const ticket = await tx.tickets.insert({ ...newRow(principal, checked), number });
      if (ticket !== null) {
        await tx.outbox.recordEvent(principal.venueId, 'ticket.created', ticket);
        return ticket;
      }
      const clash = await tx.tickets.openTicketClash(principal.branchId, number, checked.externalId);
      if (clash.externalIdTaken)
        throw new ValidationError({ externalId: [say('field.taken', { field: 'external id' })] });
      if (clash.numberTaken && checked.number !== null) {
        throw new ValidationError({
          number: [say('ticket.number_taken')],
        });
      }
      // An automatic number an open ticket holds (carried over from yesterday, or typed by hand):
      // the counter goes on to the first number none holds. Only a number typed by hand in a
      // create running beside this one (which takes no lock on the branch) can take that too.
      if (checked.number === null) automatic = number;
    }
    throw new ConflictError('Could not find a free ticket number; retry shortly.');
  }

  /**
   * A create with an automatic number as one statement: the whole of the common create (no
   * Idempotency-Key), or the ticket's writes inside a keyed create's transaction. Null when it
   * wrote nothing and `insertTicket`'s loop must settle it: a held number to skip, an external id
   * in use, no such branch.
   */
  private insertAtOnce(
    tickets: TicketRepository,
    principal: Principal,
    checked: CheckedRequest,
  ): Promise<Ticket | null> {
    return tickets.insertNumbered(newRow(principal, checked), {
      venueId: principal.venueId,
      eventId: randomUUID(),
      traceparent: currentTraceparent(),
    });
  }

  /** The branch's next number; the counter starts again at 1 each day in the venue's timezone. */
  private async nextNumber(tx: TicketWrites, branchId: number): Promise<string> {
    const number = await tx.tickets.nextNumber(branchId);
    if (number === null) throw new NotFoundError(`Branch ${branchId} not found.`);
    return number;
  }

  async get(principal: Principal, ref: TicketRef): Promise<Ticket> {
    const ticket = await this.find(this.tickets, principal, ref);
    if (ticket === null) throw new NotFoundError('Ticket not found.');
    return ticket;
  }

  /** By external id, the branch's open ticket with it comes first, then the newest closed one. */
  private find(tickets: TicketRepository, principal: Principal, ref: TicketRef): Promise<Ticket | null> {
    if ('id' in ref) return tickets.findInBranch(principal.branchId, ref.id);
    return tickets.findByExternalId(principal.branchId, ref.externalId);
  }

  /**
   * Applies one move atomically: of two concurrent moves of a ticket, one wins and the other is
   * refused. With an idempotency key (a board replaying what it did offline), the move and the
   * key's record commit together under the key's lock: a repeat of the same request (move, ticket,
   * occurredAt) answers the ticket as it is now and changes nothing; the key with another request
   * is refused on `idempotencyKey`. `occurredAt` dates the move (`checkOccurredAt`).
   */
  async move(
    principal: Principal,
    ref: TicketRef,
    move: TicketMove,
    options: MoveOptions = {},
  ): Promise<Ticket> {
    const occurredAt = checkOccurredAt(options.occurredAt);
    const key = options.idempotencyKey ?? null;
    if (key === null)
      return this.tickets.transaction((tx) => this.applyMove(tx, principal, ref, move, occurredAt));
    checkIdempotencyKey(key);
    const hash = requestHash({ move, ref, occurredAt: occurredAt?.toISOString() ?? null });
    return this.tickets.transaction(async (tx) => {
      if (!(await tx.tickets.lockIdempotencyKey(principal.branchId, key, IDEMPOTENCY_WAIT_MS))) {
        throw new ConflictError(
          'A request with this idempotency key is still being processed. Retry shortly.',
        );
      }
      const earlier = await tx.tickets.findIdempotencyKey(principal.branchId, key);
      if (earlier !== undefined) {
        if (earlier.requestHash !== hash) {
          throw new ValidationError({ idempotencyKey: [say('request.idempotency_mismatch')] });
        }
        const now = await tx.tickets.findInBranch(principal.branchId, earlier.ticketId);
        if (now === null) throw new NotFoundError('Ticket not found.');
        return now;
      }
      const ticket = await this.applyMove(tx, principal, ref, move, occurredAt);
      await tx.tickets.rememberIdempotencyKey(
        principal.branchId,
        key,
        { requestHash: hash, ticketId: ticket.id },
        IDEMPOTENCY_HOURS,
      );
      return ticket;
    });
  }

  /** The move's conditional update and its outbox row, in the caller's transaction. */
  private async applyMove(
    tx: TicketWrites,
    principal: Principal,
    ref: TicketRef,
    move: TicketMove,
    occurredAt: Date | null,
  ): Promise<Ticket> {
    const { from, to } = MOVES[move];
    const current = await this.find(tx.tickets, principal, ref);
    if (current === null) throw new NotFoundError('Ticket not found.');
    // Ready is when the customer is alerted; it counts as the first ring.
    const ticket = await tx.tickets.changeStatus(current.id, from, to, to === 'ready', occurredAt);
    if (ticket === null) {
      const latest = await tx.tickets.statusOf(current.id);
      throw refuseMove(move, latest ?? current.status);
    }
    await tx.outbox.recordEvent(principal.venueId, MOVE_EVENT[move], ticket);
    return ticket;
  }

  /** Alerts the customer again: only a ready ticket, at most once every 30 seconds. */
  async ring(principal: Principal, ref: TicketRef): Promise<Ticket> {
    return this.tickets.transaction(async (tx) => {
      const current = await this.find(tx.tickets, principal, ref);
      if (current === null) throw new NotFoundError('Ticket not found.');
      const ticket = await tx.tickets.ring(current.id, RING_INTERVAL_SECONDS);
      if (ticket === null) {
        const state = await tx.tickets.ringState(current.id, RING_INTERVAL_SECONDS);
        if (state === undefined) throw new NotFoundError('Ticket not found.');
        if (state.status !== 'ready') {
          const refused = say('ticket.ring_not_ready', { status: state.status });
          throw new ValidationError({ status: [refused] }, refused);
        }
        const wait = Math.max(1, Math.ceil(state.waitSeconds ?? 1));
        throw new RateLimitedError(
          wait,
          `The customer was alerted less than ${RING_INTERVAL_SECONDS} seconds ago. Retry in ${wait} seconds.`,
        );
      }
      await tx.outbox.recordEvent(principal.venueId, 'ticket.rung', ticket);
      return ticket;
    });
  }

  /** The branch's tickets, newest first. */
  async list(principal: Principal, filter: TicketFilter, page: number, perPage: number): Promise<TicketPage> {
    const { items, total } = await this.tickets.list(principal.branchId, filter, page, perPage);
    return { items, total, page, perPage };
  }

  /** The customer's view of a ticket, by its unguessable token; null when there is none. */
  async byToken(token: string): Promise<PublicTicketView | null> {
    if (!TOKEN.test(token)) return null;
    const ticket = await this.tickets.findByToken(token);
    if (ticket === null) return null;
    const branch = await this.venues.findBranchOrFail(ticket.branchId);
    const venue = await this.venues.findOrFail(branch.venueId);
    const feedback = await this.tickets.feedbackOf(ticket.id);
    return {
      ticket,
      branchName: branch.name,
      venueName: venue.name,
      venueLanguage: venue.language,
      venueTimezone: venue.timezone,
      smsEnabled: venue.smsEnabled,
      whatsappEnabled: venue.whatsappEnabled,
      feedback,
    };
  }
}
