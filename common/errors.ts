import { GraphQLError } from 'graphql';
import type { TextLanguage } from './language';
import { render, renderAll, summaryOf, type Message } from './messages';

/** The platform's one error model: every subgraph throws these, the REST adapter maps them. */
export const ERROR_CODES = [
  'UNAUTHENTICATED',
  'FORBIDDEN',
  'PAYMENT_REQUIRED',
  'NOT_FOUND',
  'BAD_USER_INPUT',
  'RATE_LIMITED',
  'CONFLICT',
  'UNAVAILABLE',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** Field name (or path such as `sections.experience.0.start_date`) → messages, in English. */
export type FieldErrors = Record<string, string[]>;

/** The same, before a language is chosen: what producers build and a door renders. */
export type FieldMessages = Record<string, Message[]>;

/**
 * Adds a message to a field's list. A field is named by what the client sent, so `__proto__` and
 * `constructor` are fields like any other: they get an own property, never the object's prototype.
 */
export function addFieldError(errors: FieldMessages, field: string, said: Message): void {
  if (!Object.hasOwn(errors, field)) {
    Object.defineProperty(errors, field, { value: [], enumerable: true, writable: true, configurable: true });
  }
  const messages = errors[field]!;
  const english = render(said, 'en');
  if (!messages.some((m) => render(m, 'en') === english)) messages.push(said);
}

/** One field's single message, the common case: `fieldError('title', say('field.required', …))`. */
export function fieldError(field: string, said: Message): FieldMessages {
  const errors: FieldMessages = {};
  addFieldError(errors, field, said);
  return errors;
}

export function renderFields(errors: FieldMessages, language: TextLanguage): FieldErrors {
  return Object.fromEntries(
    Object.entries(errors).map(([field, messages]) => [field, messages.map((m) => render(m, language))]),
  );
}

/**
 * What an error carries besides its English text: the ids of its sentences, so the door that
 * answers can say them in its reader's language (`extensions.messages`, passed on only to callers
 * that ask for it, common/graphql-errors.ts).
 */
export interface ErrorMessages {
  message: Message[];
  errors?: FieldMessages;
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && (ERROR_CODES as readonly string[]).includes(value);
}

export function httpStatusOf(code: ErrorCode): number {
  switch (code) {
    case 'UNAUTHENTICATED':
      return 401;
    case 'PAYMENT_REQUIRED':
      return 402;
    case 'FORBIDDEN':
      return 403;
    case 'NOT_FOUND':
      return 404;
    case 'CONFLICT':
      return 409;
    case 'BAD_USER_INPUT':
      return 422;
    case 'RATE_LIMITED':
      return 429;
    case 'UNAVAILABLE':
      return 503;
  }
}

abstract class PlatformError extends GraphQLError {
  protected constructor(said: string | Message, code: ErrorCode, extra: Record<string, unknown> = {}) {
    super(typeof said === 'string' ? said : render(said, 'en'), {
      extensions: {
        code,
        ...extra,
        ...(typeof said === 'string' ? {} : { messages: { message: [said] } satisfies ErrorMessages }),
      },
    });
  }
}

export class UnauthenticatedError extends PlatformError {
  constructor(message: string | Message = 'Unauthenticated.') {
    super(message, 'UNAUTHENTICATED');
  }
}

export class ForbiddenError extends PlatformError {
  constructor(message: string | Message = 'Forbidden.') {
    super(message, 'FORBIDDEN');
  }
}

export class PaymentRequiredError extends PlatformError {
  constructor(message: string | Message = 'Your plan does not include this feature.') {
    super(message, 'PAYMENT_REQUIRED');
  }
}

export class NotFoundError extends PlatformError {
  constructor(message: string | Message = 'Not found.') {
    super(message, 'NOT_FOUND');
  }
}

export class ConflictError extends PlatformError {
  constructor(message: string | Message) {
    super(message, 'CONFLICT');
  }
}

export class ValidationError extends GraphQLError {
  /** The field errors in English, as the graph and the ticket document show them. */
  readonly fieldErrors: FieldErrors;

  constructor(
    readonly fieldMessages: FieldMessages,
    summary?: Message,
  ) {
    const fieldErrors = renderFields(fieldMessages, 'en');
    const said = summary === undefined ? summaryOf(Object.values(fieldMessages).flat()) : [summary];
    const messages: ErrorMessages = { message: said, errors: fieldMessages };
    super(renderAll(said, 'en'), { extensions: { code: 'BAD_USER_INPUT', errors: fieldErrors, messages } });
    this.fieldErrors = fieldErrors;
  }
}

export class RateLimitedError extends PlatformError {
  constructor(
    readonly retryAfterSeconds: number,
    message: string | Message = 'Too many requests.',
  ) {
    super(message, 'RATE_LIMITED', { retryAfter: Math.max(1, Math.ceil(retryAfterSeconds)) });
  }
}

/** A dependency is saturated or restarting (the PDF renderer, say): worth retrying after a wait. */
export class UnavailableError extends PlatformError {
  constructor(
    message: string | Message,
    readonly retryAfterSeconds: number,
  ) {
    super(message, 'UNAVAILABLE', { retryAfter: Math.max(1, Math.ceil(retryAfterSeconds)) });
  }
}
