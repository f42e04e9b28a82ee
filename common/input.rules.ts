import { addFieldError, ValidationError, type FieldMessages } from './errors';
import { say, type Message } from './messages';
import { RECORD_ID } from './patterns';

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

/** Laravel-style sentences (common/catalogue-ar-en.ts). */
export function textProblemMessage(path: string, problem: TextProblem): Message {
  return say(problem === 'nul' ? 'field.nul' : 'field.utf8', { field: attribute(path) });
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
 * How deep a JSON value may nest. The documents' deepest field is a few levels down
 * (`sections.experience.0.title`, a JSON Resume's `meta.cv.settings`); past this, every recursive
 * reader after the door (validation, case conversion, jsonb) would exhaust its stack.
 */
export const MAX_NESTING = 32;

export function nestingMessage(path: string): Message {
  return say('field.nesting', { field: attribute(path), max: MAX_NESTING });
}

/**
 * Every string in a JSON value, object keys included, that breaks the rule, keyed by its dotted
 * path (`sections.experience.0.title`); `root` names the value itself when it is a bare string. A
 * value nested past {@link MAX_NESTING} is reported under the field it came in (`path`, or a body's
 * first key) and not read further. The walk keeps its own stack, so no depth a parser accepts can overflow it.
 */
export function textErrorsIn(value: unknown, path: (string | number)[] = [], root = 'body'): FieldMessages {
  const errors: FieldMessages = {};
  const pending: { value: unknown; at: (string | number)[]; depth: number }[] = [
    { value, at: path, depth: 0 },
  ];
  const keyOf = (at: (string | number)[]) => (at.length === 0 ? root : printablePath(at));
  while (pending.length > 0) {
    const { value: current, at, depth } = pending.pop()!;
    if (typeof current === 'string') {
      const problem = textProblemOf(current);
      if (problem !== undefined) addFieldError(errors, keyOf(at), textProblemMessage(keyOf(at), problem));
      continue;
    }
    if (typeof current !== 'object' || current === null) continue;
    if (depth >= MAX_NESTING) {
      // The field the client sent it in: the value's own name, or the body's first key.
      const first = at[0];
      const outermost = path.length > 0 || typeof first !== 'string' ? keyOf(path) : keyOf([first]);
      addFieldError(errors, outermost, nestingMessage(outermost));
      continue;
    }
    const entries: [string | number, unknown][] = Array.isArray(current)
      ? current.map((item, index): [number, unknown] => [index, item])
      : Object.entries(current);
    // Pushed in reverse, so fields are reported in the order the client wrote them.
    for (let i = entries.length - 1; i >= 0; i -= 1) {
      const [key, item] = entries[i]!;
      if (typeof key === 'string') {
        const problem = textProblemOf(key);
        if (problem !== undefined) {
          const shown = printablePath([...at, key]);
          addFieldError(errors, shown, textProblemMessage(shown, problem));
        }
      }
      pending.push({ value: item, at: [...at, key], depth: depth + 1 });
    }
  }
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
  if (!RECORD_ID.test(text)) return null;
  const id = Number(text);
  return id <= MAX_RECORD_ID ? id : null;
}

const EARLIEST_DATE = Date.parse('0001-01-01T00:00:00.000Z');
const LATEST_DATE = Date.parse('9999-12-31T23:59:59.999Z');

/**
 * A date every door and store of the platform reads the same way: years 1 to 9999. ISO 8601 and
 * JavaScript reach further (year 0, six-digit years), but the database driver writes year 0 as a
 * value Postgres refuses, and no ticket or CV is dated outside them.
 */
export function isStorableDate(value: Date | string): boolean {
  const time = value instanceof Date ? value.getTime() : Date.parse(value);
  return Number.isFinite(time) && time >= EARLIEST_DATE && time <= LATEST_DATE;
}

/** A range's order, as every `from`/`to` pair of the graph asks it: BAD_USER_INPUT on `to` unless after `from`. */
export function checkRangeOrder(from: Date, to: Date): void {
  if (!(to.getTime() > from.getTime())) throw new ValidationError({ to: [say('range.order')] });
}
