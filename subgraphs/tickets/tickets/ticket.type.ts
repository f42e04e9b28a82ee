import { Directive, Field, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import { Cost } from '../../../common/cost.graphql';
import type { Ticket } from './ticket.entity';
import type { PublicTicketView } from './ticket.service';
import type { TextLanguage } from '../../../common/language';
import { sourceText, statusText } from './ticket.texts';

/** GraphQL names the statuses in capitals; the stored and REST values are lower case. */
export enum TicketStatusValue {
  WAITING = 'waiting',
  READY = 'ready',
  COLLECTED = 'collected',
  CANCELLED = 'cancelled',
}
registerEnumType(TicketStatusValue, {
  name: 'TicketStatus',
  description: 'Where an order ticket is.',
  valuesConfig: {
    WAITING: { description: 'Created, not ready yet; every ticket starts here.' },
    READY: { description: 'Ready to collect; the customer was alerted.' },
    COLLECTED: { description: 'Handed over; final.' },
    CANCELLED: { description: 'Cancelled; final.' },
  },
});

/** The two scopes a branch key may carry. */
export enum TicketScopeValue {
  READ = 'tickets:read',
  WRITE = 'tickets:write',
}
registerEnumType(TicketScopeValue, {
  name: 'TicketScope',
  description: 'READ is tickets:read, WRITE is tickets:write.',
  valuesConfig: {
    READ: { description: 'tickets:read: reads the branch’s tickets and the branch.' },
    WRITE: { description: 'tickets:write: creates, moves and rings the branch’s tickets.' },
  },
});

/**
 * The fields a ticket and the customer's page of it declare alike, each said once: both classes put
 * `@TicketField()` on the property of that name. A decorator rather than a base class, because
 * type-graphql lists a base class's fields before the class's own, and each type keeps its order.
 * Fields the page words for the customer (status, alertsEnabled, smsOptIn, linkedAt) are each
 * class's own.
 */
const TICKET_FIELDS = {
  number: () => Field(() => String, { description: 'Number shown to the customer.' }),
  statusText: () =>
    Field(() => String, { description: 'Display text of the status, in the language asked for.' }),
  ringCount: () => Field(() => Int, { description: 'Alerts so far: the ready alert and each ring.' }),
  readyAt: () => Field(() => Date, { nullable: true, description: 'When it became ready; null until then.' }),
  collectedAt: () =>
    Field(() => Date, { nullable: true, description: 'When it was collected; null unless collected.' }),
  cancelledAt: () =>
    Field(() => Date, { nullable: true, description: 'When it was cancelled; null unless cancelled.' }),
  createdAt: () => Field(() => Date, { description: 'When it was created.' }),
  updatedAt: () => Field(() => Date, { description: 'When it last changed.' }),
};

/** Declares the property as the GraphQL field of its name in TICKET_FIELDS. */
function TicketField() {
  return <Name extends keyof typeof TICKET_FIELDS>(prototype: object, name: Name): void => {
    TICKET_FIELDS[name]()(prototype, name);
  };
}

@Directive('@key(fields: "id")')
@ObjectType('Ticket', {
  description: 'An order ticket of a branch (the Ticket resource of ticket-calling-api.md).',
})
export class TicketType {
  @Field(() => ID, { description: 'The ticket’s id.' })
  id!: string;

  @Field(() => ID, { description: 'Branch of the key that created the ticket.' })
  branchId!: string;

  @TicketField()
  number!: string;

  @Field(() => String, { nullable: true, description: 'Order id of the calling system.' })
  externalId!: string | null;

  @Field(() => String, { description: '32 URL-safe characters; part of publicUrl and qrUrl.' })
  token!: string;

  @Field(() => TicketStatusValue, { description: 'Where the ticket is; WAITING when created.' })
  status!: TicketStatusValue;

  @TicketField()
  statusText!: string;

  @Field(() => String, {
    nullable: true,
    description:
      'The customer’s name given at creation; null when none. FORBIDDEN when read by the ticket’s token.',
  })
  customerName!: string | null;

  @Field(() => String, {
    nullable: true,
    description: 'The note given at creation; null when none. FORBIDDEN when read by the ticket’s token.',
  })
  note!: string | null;

  @Field(() => Int, { description: 'Origin code: 1 API, 2 cashier, 3 kiosk.' })
  source!: number;

  @Field(() => String, { description: 'Display text of the source, in the language asked for.' })
  sourceText!: string;

  @TicketField()
  ringCount!: number;

  @Field(() => Boolean, { description: 'The customer opened the ticket page.' })
  phoneLinked!: boolean;

  @Field(() => Boolean, { description: 'The customer allowed sound, vibration or push alerts on the page.' })
  alertsEnabled!: boolean;

  @Field(() => Boolean, { description: 'The customer gave a number on the page to be texted when ready.' })
  smsOptIn!: boolean;

  @Field(() => Boolean, { description: 'The one text on ready was accepted by the SMS provider.' })
  smsSent!: boolean;

  @Field(() => String, { description: 'Customer page URL.' })
  publicUrl!: string;

  @Field(() => String, { description: 'QR image URL.' })
  qrUrl!: string;

  @Field(() => Date, {
    nullable: true,
    description: 'When the customer first opened the page; null until then.',
  })
  linkedAt!: Date | null;

  @TicketField()
  readyAt!: Date | null;

  @TicketField()
  collectedAt!: Date | null;

  @TicketField()
  cancelledAt!: Date | null;

  @TicketField()
  createdAt!: Date;

  @TicketField()
  updatedAt!: Date;

  /** Read with the ticket's token rather than a key: TOKEN_HIDDEN_FIELDS answer FORBIDDEN. */
  readByToken?: boolean;
}

@ObjectType('TicketFeedback', { description: 'The customer’s rating of a collected order.' })
export class TicketFeedbackType {
  @Field(() => Int, { description: '1 to 5.' })
  rating!: number;

  @Field(() => String, { nullable: true, description: 'At most 500 characters.' })
  comment!: string | null;

  @Field(() => Date, { description: 'When the rating was given.' })
  createdAt!: Date;
}

@ObjectType('PublicTicket', { description: 'What the customer page of a ticket shows: no phone, no note.' })
export class PublicTicketType {
  /** Not on the graph: what the estimate reads the branch's tickets by. */
  ticketId!: number;
  branchId!: number;
  /** Not on the graph: the venue's WhatsApp switch as stored, for `whatsappUrl`. */
  venueWhatsApp!: boolean;

  @TicketField()
  number!: string;

  @Field(() => TicketStatusValue, { description: 'Where the order is.' })
  status!: TicketStatusValue;

  @TicketField()
  statusText!: string;

  @Field(() => String, { description: 'The venue’s name.' })
  venueName!: string;

  @Field(() => String, { description: 'The branch’s name.' })
  branchName!: string;

  @Field(() => String, { description: 'The venue’s language, ar or en: the page’s default.' })
  language!: string;

  @Field(() => String, { description: 'The venue’s IANA time zone, for showing times.' })
  timezone!: string;

  @TicketField()
  ringCount!: number;

  @Field(() => Boolean, { description: 'The customer allowed alerts on the page.' })
  alertsEnabled!: boolean;

  @Field(() => Boolean, { description: 'The customer gave a number to be texted when ready.' })
  smsOptIn!: boolean;

  @Field(() => Boolean, { description: 'The venue sends the one text on ready, so the page may offer it.' })
  smsAvailable!: boolean;

  @Field(() => String, {
    nullable: true,
    description: 'The VAPID public key for Web Push subscriptions; null when push is off.',
  })
  pushKey!: string | null;

  @Field(() => TicketFeedbackType, { nullable: true, description: 'The customer’s rating, once given.' })
  feedback!: TicketFeedbackType | null;

  @Field(() => Date, { nullable: true, description: 'When the customer first opened the page.' })
  linkedAt!: Date | null;

  @TicketField()
  readyAt!: Date | null;

  @TicketField()
  collectedAt!: Date | null;

  @TicketField()
  cancelledAt!: Date | null;

  @TicketField()
  createdAt!: Date;

  @TicketField()
  updatedAt!: Date;
}

/** The customer's view: never the phone, the note, the name or the order id. */
export function toPublicTicket(
  view: PublicTicketView,
  language: TextLanguage,
  pushKey: string | null,
): PublicTicketType {
  const t = view.ticket;
  return {
    ticketId: t.id,
    branchId: t.branchId,
    venueWhatsApp: view.whatsappEnabled,
    number: t.number,
    status: t.status as TicketStatusValue,
    statusText: statusText(t.status, language),
    venueName: view.venueName,
    branchName: view.branchName,
    language: view.venueLanguage,
    timezone: view.venueTimezone,
    ringCount: t.ringCount,
    alertsEnabled: t.alertsEnabled,
    smsOptIn: t.smsOptIn,
    smsAvailable: view.smsEnabled,
    pushKey,
    feedback: view.feedback
      ? {
          rating: view.feedback.rating,
          comment: view.feedback.comment,
          createdAt: new Date(view.feedback.created_at),
        }
      : null,
    linkedAt: t.linkedAt,
    readyAt: t.readyAt,
    collectedAt: t.collectedAt,
    cancelledAt: t.cancelledAt,
    createdAt: t.createdAt,
    updatedAt: t.updatedAt,
  };
}

@ObjectType('TicketPage', { description: 'One page of a branch’s tickets, newest first.' })
export class TicketPageType {
  @Field(() => [TicketType], { description: 'The tickets of this page; empty past the last page.' })
  items!: TicketType[];

  @Field(() => Int, { description: 'How many tickets match, over all pages.' })
  total!: number;

  @Field(() => Int, { description: 'This page’s number, from 1.' })
  page!: number;

  @Field(() => Int, { description: 'Tickets a page, as asked.' })
  perPage!: number;

  @Field(() => Int, { description: 'The last page’s number; 1 when nothing matches.' })
  lastPage!: number;
}

@ObjectType('CreateTicketPayload', {
  description: 'What createTicket answers: the ticket, and whether an earlier request made it.',
})
export class CreateTicketPayload {
  @Field(() => TicketType, { description: 'The new ticket; on a replay, the one the first request created.' })
  ticket!: TicketType;

  @Field(() => Boolean, {
    description: 'True when an earlier request with the same idempotency key created the ticket.',
  })
  replayed!: boolean;
}

@InputType('CreateTicketInput', {
  description: 'Every field is optional; number defaults to the branch’s next one.',
})
export class CreateTicketInput {
  @Field(() => String, { nullable: true, description: 'At most 20 characters.' })
  number?: string | null;

  @Field(() => String, { nullable: true, description: 'At most 100 characters.' })
  externalId?: string | null;

  @Field(() => String, { nullable: true, description: 'At most 80 characters.' })
  customerName?: string | null;

  @Field(() => String, {
    nullable: true,
    description: 'Iraqi mobile number; texted once when ready if the venue has SMS on.',
  })
  customerPhone?: string | null;

  @Field(() => String, { nullable: true, description: 'At most 255 characters.' })
  note?: string | null;
}

/**
 * What a ticket search weighs in the gateway's estimate. No index serves a match inside text, so a
 * search reads every ticket of the branch in the range: on a branch of 200,000 it took as long as
 * a whole budget of page fields (docs/API-DECISIONS.md). Half that, so one search and a page beside
 * it fit an operation.
 */
export const TICKET_SEARCH_COST = 5_000;

@InputType('TicketFilter', {
  description: 'What narrows the list; a field left out or empty narrows nothing.',
})
export class TicketFilterInput {
  @Cost(TICKET_SEARCH_COST)
  @Field(() => String, {
    nullable: true,
    description: `Case-insensitive, over number, external id, customer name and note. The gateway weighs a search ${TICKET_SEARCH_COST}: it reads every ticket of the branch in the range.`,
  })
  search?: string | null;

  @Field(() => TicketStatusValue, { nullable: true, description: 'Only tickets in this status.' })
  status?: TicketStatusValue | null;

  @Field(() => String, {
    nullable: true,
    description: 'Only tickets with exactly this order id; at most 100 characters.',
  })
  externalId?: string | null;

  @Field(() => Date, { nullable: true, description: 'Created at or after.' })
  from?: Date | null;

  @Field(() => Date, { nullable: true, description: 'Created at or before.' })
  to?: Date | null;
}

export interface PresentOptions {
  publicBaseUrl: string;
  language: TextLanguage;
}

export function toTicketType(ticket: Ticket, { publicBaseUrl, language }: PresentOptions): TicketType {
  const publicUrl = `${publicBaseUrl}/t/${ticket.token}`;
  return {
    id: String(ticket.id),
    branchId: String(ticket.branchId),
    number: ticket.number,
    externalId: ticket.externalId,
    token: ticket.token,
    status: ticket.status as TicketStatusValue,
    statusText: statusText(ticket.status, language),
    customerName: ticket.customerName,
    note: ticket.note,
    source: ticket.source,
    sourceText: sourceText(ticket.source, language),
    ringCount: ticket.ringCount,
    phoneLinked: ticket.phoneLinked,
    alertsEnabled: ticket.alertsEnabled,
    smsOptIn: ticket.smsOptIn,
    smsSent: ticket.smsSent,
    publicUrl,
    qrUrl: `${publicUrl}/qr.png`,
    linkedAt: ticket.linkedAt,
    readyAt: ticket.readyAt,
    collectedAt: ticket.collectedAt,
    cancelledAt: ticket.cancelledAt,
    createdAt: ticket.createdAt,
    updatedAt: ticket.updatedAt,
  };
}
