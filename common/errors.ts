import { GraphQLError } from 'graphql';

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

/** Field name (or path such as `sections.experience.0.start_date`) → messages. */
export type FieldErrors = Record<string, string[]>;

/**
 * Adds a message to a field's list. A field is named by what the client sent, so `__proto__` and
 * `constructor` are fields like any other: they get an own property, never the object's prototype.
 */
export function addFieldError(errors: FieldErrors, field: string, message: string): void {
  if (!Object.hasOwn(errors, field)) {
    Object.defineProperty(errors, field, { value: [], enumerable: true, writable: true, configurable: true });
  }
  const messages = errors[field]!;
  if (!messages.includes(message)) messages.push(message);
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
  protected constructor(message: string, code: ErrorCode, extra: Record<string, unknown> = {}) {
    super(message, { extensions: { code, ...extra } });
  }
}

export class UnauthenticatedError extends PlatformError {
  constructor(message = 'Unauthenticated.') {
    super(message, 'UNAUTHENTICATED');
  }
}

export class ForbiddenError extends PlatformError {
  constructor(message = 'Forbidden.') {
    super(message, 'FORBIDDEN');
  }
}

export class PaymentRequiredError extends PlatformError {
  constructor(message = 'Your plan does not include this feature.') {
    super(message, 'PAYMENT_REQUIRED');
  }
}

export class NotFoundError extends PlatformError {
  constructor(message = 'Not found.') {
    super(message, 'NOT_FOUND');
  }
}

export class ConflictError extends PlatformError {
  constructor(message: string) {
    super(message, 'CONFLICT');
  }
}

export class ValidationError extends PlatformError {
  constructor(
    readonly fieldErrors: FieldErrors,
    message = summarize(fieldErrors),
  ) {
    super(message, 'BAD_USER_INPUT', { errors: fieldErrors });
  }
}

export class RateLimitedError extends PlatformError {
  constructor(
    readonly retryAfterSeconds: number,
    message = 'Too many requests.',
  ) {
    super(message, 'RATE_LIMITED', { retryAfter: Math.max(1, Math.ceil(retryAfterSeconds)) });
  }
}

/** A dependency is saturated or restarting (the PDF renderer, say): worth retrying after a wait. */
export class UnavailableError extends PlatformError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message, 'UNAVAILABLE', { retryAfter: Math.max(1, Math.ceil(retryAfterSeconds)) });
  }
}

/** Laravel-style summary: the first message, plus how many more there are. */
function summarize(fieldErrors: FieldErrors): string {
  const messages = Object.values(fieldErrors).flat();
  const first = messages[0] ?? 'The given data was invalid.';
  const more = messages.length - 1;
  return more > 0 ? `${first} (and ${more} more error${more === 1 ? '' : 's'})` : first;
}
