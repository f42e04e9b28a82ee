import { addFieldError, type FieldErrors } from './errors';

/**
 * What every door of the platform refuses in text, whatever the field: Postgres stores no NUL in
 * text or jsonb (the driver then fails the whole connection's statement), and a lone UTF-16
 * surrogate is no character at all (the driver would silently store U+FFFD instead). Refusing both
 * at the edge names the field; the database would only say that something was wrong.
 */
export type TextProblem = 'nul' | 'malformed';

/** A high surrogate without its low half, or a low one without its high half. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export function textProblemOf(value: string): TextProblem | undefined {
  if (value.includes('\u0000')) return 'nul';
  if (LONE_SURROGATE.test(value)) return 'malformed';
  return undefined;
}

/** "customer_name" → "customer name", as validation.ts names a field in Laravel's sentences. */
function attribute(path: string): string {
  return path.replace(/_/g, ' ');
}

/** Laravel-style sentences; rest-adapter/cv/cv.messages.ts has their Arabic. */
export function textProblemMessage(path: string, problem: TextProblem): string {
  return problem === 'nul'
    ? `The ${attribute(path)} field must not contain NUL characters.`
    : `The ${attribute(path)} field must be valid UTF-8 text.`;
}

/**
 * A path as it can be shown back: a key that is itself the problem (a NUL in a JSON key) is
 * reported with U+FFFD in its place, so no error body carries what was refused.
 */
export function printablePath(path: readonly (string | number)[]): string {
  return path
    .map((part) =>
      typeof part === 'number'
        ? String(part)
        : part.split('\u0000').join('\ufffd').replace(new RegExp(LONE_SURROGATE.source, 'g'), '\ufffd'),
    )
    .join('.');
}

/**
 * Every string in a JSON value, object keys included, that breaks the rule, keyed by its dotted
 * path (`sections.experience.0.title`). `root` names the value itself when it is a bare string.
 */
export function textErrorsIn(value: unknown, path: (string | number)[] = [], root = 'body'): FieldErrors {
  const errors: FieldErrors = {};
  const visit = (current: unknown, at: (string | number)[]) => {
    if (typeof current === 'string') {
      const problem = textProblemOf(current);
      if (problem !== undefined) {
        const key = at.length === 0 ? root : printablePath(at);
        addFieldError(errors, key, textProblemMessage(key, problem));
      }
    } else if (Array.isArray(current)) {
      current.forEach((item, index) => visit(item, [...at, index]));
    } else if (typeof current === 'object' && current !== null) {
      for (const [key, item] of Object.entries(current)) {
        const problem = textProblemOf(key);
        if (problem !== undefined) {
          const shown = printablePath([...at, key]);
          addFieldError(errors, shown, textProblemMessage(shown, problem));
        }
        visit(item, [...at, key]);
      }
    }
  };
  visit(value, path);
  return errors;
}

/** The largest id a record can have here: bigint columns, read into JavaScript numbers exactly. */
const MAX_RECORD_ID = Number.MAX_SAFE_INTEGER;

/**
 * A record's id as sent (`"42"`, or 42 from JSON): a positive whole number in decimal, without sign,
 * leading zeros or exponent, within what a bigint column holds and a JavaScript number keeps
 * exactly. Anything else names no record, so callers answer NOT_FOUND (or a field error) without
 * asking the database.
 */
export function parseRecordId(value: string | number | null | undefined): number | null {
  const text = typeof value === 'number' ? (Number.isSafeInteger(value) ? String(value) : '') : (value ?? '');
  if (!/^[1-9][0-9]{0,15}$/.test(text)) return null;
  const id = Number(text);
  return id <= MAX_RECORD_ID ? id : null;
}
