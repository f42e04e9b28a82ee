import { ValidationError, type FieldMessages } from '../../../common/errors';
import { say } from '../../../common/messages';
import { TICKET_LIMITS } from '../../../contracts/tickets/ticket.limits';
import { normalizeIraqiMobile } from '../../../contracts/tickets/iraqi-mobile';

export interface NewTicketInput {
  number?: string | null;
  externalId?: string | null;
  customerName?: string | null;
  customerPhone?: string | null;
  note?: string | null;
}

export interface CheckedNewTicket {
  number: string | null;
  externalId: string | null;
  customerName: string | null;
  customerPhone: string | null;
  note: string | null;
}

/** As Laravel's middleware does: surrounding blanks go, and an empty string means "not given". */
function clean(value: string | null | undefined): string | null {
  if (value === undefined || value === null) return null;
  const trimmed = value.trim();
  return trimmed === '' ? null : trimmed;
}

/** Field keys are the GraphQL input names; the REST adapter turns them into the document's. */
export function checkNewTicket(input: NewTicketInput): CheckedNewTicket {
  const errors: FieldMessages = {};
  const checked: CheckedNewTicket = {
    number: clean(input.number),
    externalId: clean(input.externalId),
    customerName: clean(input.customerName),
    customerPhone: clean(input.customerPhone),
    note: clean(input.note),
  };
  const lengths: [keyof CheckedNewTicket, string, number][] = [
    ['number', 'number', TICKET_LIMITS.number],
    ['externalId', 'external id', TICKET_LIMITS.externalId],
    ['customerName', 'customer name', TICKET_LIMITS.customerName],
    ['customerPhone', 'customer phone', TICKET_LIMITS.customerPhone],
    ['note', 'note', TICKET_LIMITS.note],
  ];
  for (const [field, label, max] of lengths) {
    const value = checked[field];
    if (value !== null && [...value].length > max) {
      errors[field] = [say('field.max_characters', { field: label, max })];
    }
  }
  if (checked.customerPhone !== null && errors.customerPhone === undefined) {
    const e164 = normalizeIraqiMobile(checked.customerPhone);
    if (e164 === null) errors.customerPhone = [say('field.iraqi_mobile', { field: 'customer phone' })];
    else checked.customerPhone = e164;
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  return checked;
}

/**
 * How long ago a change may have happened (`occurredAt`): a board that was offline syncs what it
 * did within a day; older is refused, as an idempotency key is kept no longer either.
 */
export const OCCURRED_AT_MAX_AGE_HOURS = 24;
/** A device's clock this far ahead of the platform's is taken as now; further ahead is refused. */
export const OCCURRED_AT_CLOCK_SKEW_SECONDS = 60;

/**
 * The moment a change happened, as a device reported it: null when not given (now). Refused on
 * `occurredAt` when more than OCCURRED_AT_MAX_AGE_HOURS ago or more than
 * OCCURRED_AT_CLOCK_SKEW_SECONDS ahead; a moment up to that far ahead is later taken as now, and
 * one before the ticket's previous event as that event's (TicketRepository), in the statement
 * that writes it, by the database's clock.
 */
export function checkOccurredAt(value: Date | null | undefined, now = Date.now()): Date | null {
  if (value === undefined || value === null) return null;
  const time = value.getTime();
  if (!Number.isFinite(time) || time < now - OCCURRED_AT_MAX_AGE_HOURS * 3_600_000) {
    throw new ValidationError({
      occurredAt: [say('ticket.occurred_at_past', { hours: OCCURRED_AT_MAX_AGE_HOURS })],
    });
  }
  if (time > now + OCCURRED_AT_CLOCK_SKEW_SECONDS * 1_000) {
    throw new ValidationError({
      occurredAt: [say('ticket.occurred_at_future', { seconds: OCCURRED_AT_CLOCK_SKEW_SECONDS })],
    });
  }
  return value;
}
