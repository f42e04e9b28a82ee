import { Directive, Field, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import type { Ticket } from './ticket.entity';
import type { PublicTicketView } from './ticket.service';
import type { TextLanguage } from '../../common/language';
import { sourceText, statusText } from './ticket.texts';

/** GraphQL names the statuses in capitals; the stored and REST values are lower case. */
export enum TicketStatusValue {
  WAITING = 'waiting',
  READY = 'ready',
  COLLECTED = 'collected',
  CANCELLED = 'cancelled',
}
registerEnumType(TicketStatusValue, { name: 'TicketStatus', description: 'Where an order ticket is.' });

/** The two scopes a branch key may carry. */
export enum TicketScopeValue {
  READ = 'tickets:read',
  WRITE = 'tickets:write',
}
registerEnumType(TicketScopeValue, {
  name: 'TicketScope',
  description: 'READ is tickets:read, WRITE is tickets:write.',
});

@Directive('@key(fields: "id")')
@ObjectType('Ticket', {
  description: 'An order ticket of a branch (the Ticket resource of ticket-calling-api.md).',
})
export class TicketType {
  @Field(() => ID)
  id!: string;

  @Field(() => ID, { description: 'Branch of the key that created the ticket.' })
  branchId!: string;

  @Field(() => String, { description: 'Number shown to the customer.' })
  number!: string;

  @Field(() => String, { nullable: true, description: 'Order id of the calling system.' })
  externalId!: string | null;

  @Field(() => String, { description: '32 URL-safe characters; part of publicUrl and qrUrl.' })
  token!: string;

  @Field(() => TicketStatusValue)
  status!: TicketStatusValue;

  @Field(() => String, { description: 'Display text of the status, in the language asked for.' })
  statusText!: string;

  @Field(() => String, { nullable: true })
  customerName!: string | null;

  @Field(() => String, { nullable: true })
  note!: string | null;

  @Field(() => Int, { description: 'Origin code: 1 API, 2 cashier, 3 kiosk.' })
  source!: number;

  @Field(() => String)
  sourceText!: string;

  @Field(() => Int, { description: 'Alerts so far: the ready alert and each ring.' })
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

  @Field(() => Date, { nullable: true })
  linkedAt!: Date | null;

  @Field(() => Date, { nullable: true })
  readyAt!: Date | null;

  @Field(() => Date, { nullable: true })
  collectedAt!: Date | null;

  @Field(() => Date, { nullable: true })
  cancelledAt!: Date | null;

  @Field(() => Date)
  createdAt!: Date;

  @Field(() => Date)
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

  @Field(() => Date)
  createdAt!: Date;
}

@ObjectType('PublicTicket', { description: 'What the customer page of a ticket shows: no phone, no note.' })
export class PublicTicketType {
  @Field(() => String)
  number!: string;

  @Field(() => TicketStatusValue)
  status!: TicketStatusValue;

  @Field(() => String)
  statusText!: string;

  @Field(() => String)
  venueName!: string;

  @Field(() => String)
  branchName!: string;

  @Field(() => String, { description: 'The venue’s language, ar or en: the page’s default.' })
  language!: string;

  @Field(() => String, { description: 'The venue’s IANA time zone, for showing times.' })
  timezone!: string;

  @Field(() => Int)
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

  @Field(() => Date, { nullable: true })
  readyAt!: Date | null;

  @Field(() => Date, { nullable: true })
  collectedAt!: Date | null;

  @Field(() => Date, { nullable: true })
  cancelledAt!: Date | null;

  @Field(() => Date)
  createdAt!: Date;

  @Field(() => Date)
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
  @Field(() => [TicketType])
  items!: TicketType[];

  @Field(() => Int)
  total!: number;

  @Field(() => Int)
  page!: number;

  @Field(() => Int)
  perPage!: number;

  @Field(() => Int)
  lastPage!: number;
}

@ObjectType('CreateTicketPayload')
export class CreateTicketPayload {
  @Field(() => TicketType)
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

@InputType('TicketFilter')
export class TicketFilterInput {
  @Field(() => String, {
    nullable: true,
    description: 'Case-insensitive, over number, external id, customer name and note.',
  })
  search?: string | null;

  @Field(() => TicketStatusValue, { nullable: true })
  status?: TicketStatusValue | null;

  @Field(() => String, { nullable: true })
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
