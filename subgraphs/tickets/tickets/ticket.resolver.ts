import { Arg, FieldResolver, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { SlicedBy } from '../../../common/cost.graphql';
import { ForbiddenError, NotFoundError, ValidationError, type FieldMessages } from '../../../common/errors';
import { isStorableDate, parseRecordId } from '../../../common/input.rules';
import { TOKEN_HIDDEN_FIELDS } from '../../../contracts/tickets/live-event';
import { TicketAccess, type IntegrationFeature } from '../access';
import { DEFAULT_PER_PAGE, TICKET_LIMITS } from '../../../contracts/tickets/ticket.limits';
import type { TicketMove } from './ticket-state-machine';
import { TicketService, type MoveOptions, type TicketRef } from './ticket.service';
import { OCCURRED_AT_CLOCK_SKEW_SECONDS, OCCURRED_AT_MAX_AGE_HOURS } from './ticket.rules';
import {
  CreateTicketInput,
  CreateTicketPayload,
  PublicTicketType,
  TicketFilterInput,
  TicketPageType,
  TicketScopeValue,
  TicketType,
  toPublicTicket,
  toTicketType,
  type PresentOptions,
} from './ticket.type';
import { BranchType, toBranchType, toVenueType, VenueType, VenueService } from '../venues';
import { say } from '../../../common/messages';

function unlessReadByToken(ticket: TicketType, field: (typeof TOKEN_HIDDEN_FIELDS)[number]): string | null {
  if (ticket.readByToken === true) {
    throw new ForbiddenError(
      `The ticket token does not reveal ${field}; it needs a key of the ticket's branch.`,
    );
  }
  return ticket[field];
}

/** What of a POS integration's own an operation uses, if anything. */
function integrationFeatureOf(externalId: string | null | undefined): IntegrationFeature | undefined {
  return externalId != null ? 'externalId' : undefined;
}

/** The descriptions of a ticket operation's two ways to name the ticket. */
const BY_ID = 'The ticket’s id; give this or externalId.';
const BY_EXTERNAL_ID =
  'The calling system’s order id instead of id: the branch’s open ticket with it, else the newest closed one.';
/** The descriptions of what a board replaying its offline work adds to a move. */
const MOVE_KEY = `1 to ${TICKET_LIMITS.idempotencyKey} characters, kept 24 hours per branch (with create’s keys): the same move of the same ticket with the same occurredAt again answers the ticket as it is now and changes nothing; a different request with the key is refused.`;
const OCCURRED_AT = `When it happened, for work done offline: at most ${OCCURRED_AT_MAX_AGE_HOURS} hours ago and at most ${OCCURRED_AT_CLOCK_SKEW_SECONDS} s ahead (taken as now); a moment before the ticket’s previous event is taken as that event’s. Left out: now.`;

/** Exactly one of id and externalId; an id that is not a positive integer names no ticket. */
export function ticketRef(id: string | null | undefined, externalId: string | null | undefined): TicketRef {
  if ((id === null || id === undefined) === (externalId === null || externalId === undefined)) {
    throw new ValidationError({ id: [say('ticket.id_or_external_id')] });
  }
  if (externalId !== null && externalId !== undefined) return { externalId };
  const ticketId = parseRecordId(id);
  if (ticketId === null) throw new NotFoundError('Ticket not found.');
  return { id: ticketId };
}

@Resolver(() => TicketType)
export class TicketResolver {
  constructor(
    private readonly ticketService: TicketService,
    private readonly venueService: VenueService,
    private readonly access: TicketAccess,
    private readonly present: PresentOptions,
    private readonly pushKey: string | null,
  ) {}

  @Query(() => Boolean, {
    description:
      'True when the request’s key may act with the scope; otherwise the 401, 402 or 403 error it would get.',
  })
  async ticketAccess(
    @Arg('scope', () => TicketScopeValue, { description: 'The scope to check.' }) scope: TicketScopeValue,
  ): Promise<boolean> {
    await this.access.require(scope);
    return true;
  }

  @Query(() => TicketType, {
    description:
      'A ticket of the key’s branch. Needs tickets:read, or the ticket’s own token in X-Ticket-Token, which does not reveal externalId, customerName or note.',
  })
  async ticket(@Arg('id', () => ID, { description: 'The ticket’s id.' }) id: string): Promise<TicketType> {
    const token = this.access.ticketToken;
    if (token !== undefined) {
      const view = await this.ticketService.byToken(token);
      if (view === null || String(view.ticket.id) !== id) throw new NotFoundError('Ticket not found.');
      return { ...toTicketType(view.ticket, this.present), readByToken: true };
    }
    const principal = await this.access.require('tickets:read');
    return toTicketType(await this.ticketService.get(principal, ticketRef(id, null)), this.present);
  }

  @Query(() => BranchType, {
    name: 'branch',
    description:
      'A branch, for any member of its venue, or for a key or board device of that branch (tickets:read); any other id is NOT_FOUND.',
  })
  async branchById(
    @Arg('id', () => ID, { description: 'The branch’s id.' }) id: string,
  ): Promise<BranchType> {
    const branchId = parseRecordId(id);
    if (branchId === null || !(await this.access.canSeeBranch(branchId))) {
      throw new NotFoundError(say('venue.branch_not_found'));
    }
    return toBranchType(await this.venueService.getBranch(branchId));
  }

  @Query(() => BranchType, { description: 'The branch of the request’s key. Needs tickets:read.' })
  async currentBranch(): Promise<BranchType> {
    const principal = await this.access.require('tickets:read');
    return toBranchType(await this.venueService.getBranch(principal.branchId));
  }

  /**
   * A Venue entity fetched by reference (`_entities`): a key sees its own venue only. The gateway
   * reaches venues through a ticket's branch, so this answers direct entity fetches, typed.
   */
  async venueReference(id: string): Promise<VenueType> {
    const principal = await this.access.require('tickets:read');
    if (String(principal.venueId) !== id) throw new ForbiddenError('An API key reads only its own venue.');
    return toVenueType(await this.venueService.get(principal.venueId));
  }

  @Query(() => TicketType, {
    description: 'The branch’s ticket with this order id (its open one first). Needs tickets:read.',
  })
  async ticketByExternalId(
    @Arg('externalId', () => String, { description: 'The calling system’s order id, as given at creation.' })
    externalId: string,
  ): Promise<TicketType> {
    const principal = await this.access.require('tickets:read', 'externalId');
    return toTicketType(await this.ticketService.get(principal, ticketRef(null, externalId)), this.present);
  }

  @SlicedBy('perPage', ['items'])
  @Query(() => TicketPageType, { description: 'The branch’s tickets, newest first. Needs tickets:read.' })
  async tickets(
    @Arg('filter', () => TicketFilterInput, {
      nullable: true,
      description: 'What to narrow the list to; every ticket of the branch when left out.',
    })
    filter: TicketFilterInput | null,
    @Arg('page', () => Int, {
      defaultValue: 1,
      description: 'The page, from 1; a page past the last has no items.',
    })
    page: number,
    @Arg('perPage', () => Int, {
      defaultValue: DEFAULT_PER_PAGE,
      description: `Tickets a page, 1 to ${TICKET_LIMITS.perPage}.`,
    })
    perPage: number,
  ): Promise<TicketPageType> {
    const principal = await this.access.require(
      'tickets:read',
      filter?.externalId != null ? 'externalId' : undefined,
    );
    const errors: FieldMessages = {};
    if (page < 1) errors.page = [say('field.min', { field: 'page', min: 1 })];
    if (perPage < 1 || perPage > TICKET_LIMITS.perPage) {
      errors.perPage = [say('field.between', { field: 'per page', min: 1, max: TICKET_LIMITS.perPage })];
    }
    if ((filter?.search?.length ?? 0) > TICKET_LIMITS.search) {
      errors.search = [say('field.max_characters', { field: 'search', max: TICKET_LIMITS.search })];
    }
    if ((filter?.externalId?.length ?? 0) > TICKET_LIMITS.externalId) {
      errors.externalId = [
        say('field.max_characters', { field: 'external id', max: TICKET_LIMITS.externalId }),
      ];
    }
    for (const bound of ['from', 'to'] as const) {
      const date = filter?.[bound];
      if (date != null && !isStorableDate(date)) errors[bound] = [say('field.date', { field: bound })];
    }
    if (Object.keys(errors).length > 0) throw new ValidationError(errors);
    const result = await this.ticketService.list(
      principal,
      {
        search: filter?.search ?? null,
        status: filter?.status ?? null,
        externalId: filter?.externalId ?? null,
        from: filter?.from ?? null,
        to: filter?.to ?? null,
      },
      page,
      perPage,
    );
    return {
      items: result.items.map((t) => toTicketType(t, this.present)),
      total: result.total,
      page: result.page,
      perPage: result.perPage,
      lastPage: Math.max(1, Math.ceil(result.total / result.perPage)),
    };
  }

  @Query(() => PublicTicketType, {
    nullable: true,
    description: 'The customer’s view of a ticket; needs no key.',
  })
  async ticketByToken(
    @Arg('token', () => String, {
      description: 'The ticket’s 32-character token, from publicUrl; the answer is null for an unknown one.',
    })
    token: string,
  ): Promise<PublicTicketType | null> {
    const view = await this.ticketService.byToken(token);
    return view === null ? null : toPublicTicket(view, this.present.language, this.pushKey);
  }

  @Mutation(() => CreateTicketPayload, { description: 'Creates a waiting ticket. Needs tickets:write.' })
  async createTicket(
    @Arg('input', () => CreateTicketInput, { description: 'The ticket’s fields.' }) input: CreateTicketInput,
    @Arg('idempotencyKey', () => String, {
      nullable: true,
      description:
        '1 to 255 characters, kept 24 hours per branch: the same input again returns the first ticket (replayed); different input is refused.',
    })
    idempotencyKey: string | null,
    @Arg('occurredAt', () => Date, {
      nullable: true,
      description: `When the ticket was made, for one made offline: it becomes createdAt. At most ${OCCURRED_AT_MAX_AGE_HOURS} hours ago and at most ${OCCURRED_AT_CLOCK_SKEW_SECONDS} s ahead (taken as now). Left out: now.`,
    })
    occurredAt: Date | null,
  ): Promise<CreateTicketPayload> {
    const principal = await this.access.require('tickets:write', integrationFeatureOf(input.externalId));
    const { ticket, replayed } = await this.ticketService.create(
      principal,
      input,
      idempotencyKey,
      occurredAt,
    );
    return { ticket: toTicketType(ticket, this.present), replayed };
  }

  @Mutation(() => TicketType, { description: 'waiting → ready; alerts the customer. Needs tickets:write.' })
  markTicketReady(
    @Arg('id', () => ID, { nullable: true, description: BY_ID }) id: string | null,
    @Arg('externalId', () => String, { nullable: true, description: BY_EXTERNAL_ID })
    externalId: string | null,
    @Arg('idempotencyKey', () => String, { nullable: true, description: MOVE_KEY })
    idempotencyKey: string | null,
    @Arg('occurredAt', () => Date, { nullable: true, description: OCCURRED_AT })
    occurredAt: Date | null,
  ): Promise<TicketType> {
    return this.move(id, externalId, 'ready', { idempotencyKey, occurredAt });
  }

  @Mutation(() => TicketType, { description: 'waiting or ready → collected. Needs tickets:write.' })
  markTicketCollected(
    @Arg('id', () => ID, { nullable: true, description: BY_ID }) id: string | null,
    @Arg('externalId', () => String, { nullable: true, description: BY_EXTERNAL_ID })
    externalId: string | null,
    @Arg('idempotencyKey', () => String, { nullable: true, description: MOVE_KEY })
    idempotencyKey: string | null,
    @Arg('occurredAt', () => Date, { nullable: true, description: OCCURRED_AT })
    occurredAt: Date | null,
  ): Promise<TicketType> {
    return this.move(id, externalId, 'collected', { idempotencyKey, occurredAt });
  }

  @Mutation(() => TicketType, { description: 'waiting or ready → cancelled. Needs tickets:write.' })
  cancelTicket(
    @Arg('id', () => ID, { nullable: true, description: BY_ID }) id: string | null,
    @Arg('externalId', () => String, { nullable: true, description: BY_EXTERNAL_ID })
    externalId: string | null,
    @Arg('idempotencyKey', () => String, { nullable: true, description: MOVE_KEY })
    idempotencyKey: string | null,
    @Arg('occurredAt', () => Date, { nullable: true, description: OCCURRED_AT })
    occurredAt: Date | null,
  ): Promise<TicketType> {
    return this.move(id, externalId, 'cancel', { idempotencyKey, occurredAt });
  }

  @Mutation(() => TicketType, {
    description:
      'Alerts the customer of a ready ticket again, at most once every 30 seconds. Needs tickets:write.',
  })
  async ringTicket(
    @Arg('id', () => ID, { nullable: true, description: BY_ID }) id: string | null,
    @Arg('externalId', () => String, { nullable: true, description: BY_EXTERNAL_ID })
    externalId: string | null,
  ): Promise<TicketType> {
    const principal = await this.access.require(
      'tickets:write',
      externalId != null ? 'externalId' : undefined,
    );
    return toTicketType(await this.ticketService.ring(principal, ticketRef(id, externalId)), this.present);
  }

  @FieldResolver()
  externalId(@Root() ticket: TicketType): string | null {
    return unlessReadByToken(ticket, 'externalId');
  }

  @FieldResolver()
  customerName(@Root() ticket: TicketType): string | null {
    return unlessReadByToken(ticket, 'customerName');
  }

  @FieldResolver()
  note(@Root() ticket: TicketType): string | null {
    return unlessReadByToken(ticket, 'note');
  }

  @FieldResolver(() => BranchType, { description: 'The branch the ticket belongs to.' })
  async branch(@Root() ticket: TicketType): Promise<BranchType> {
    return toBranchType(await this.venueService.getBranch(Number(ticket.branchId)));
  }

  private async move(
    id: string | null,
    externalId: string | null,
    move: TicketMove,
    options: MoveOptions,
  ): Promise<TicketType> {
    const principal = await this.access.require('tickets:write', integrationFeatureOf(externalId));
    return toTicketType(
      await this.ticketService.move(principal, ticketRef(id, externalId), move, options),
      this.present,
    );
  }
}

@Resolver(() => BranchType)
export class BranchResolver {
  constructor(private readonly venueService: VenueService) {}

  @FieldResolver(() => VenueType, { description: 'The venue the branch belongs to.' })
  async venue(@Root() branch: BranchType): Promise<VenueType> {
    return toVenueType(await this.venueService.get(branch.venueId));
  }
}
