import { MESSAGES } from './catalogue-ar-en';
import type { TextLanguage } from './language';

/**
 * Sentences by id: a producer names the id and its values (`say`); the sentence is rendered in the
 * reader's language where that is known (a door, or a subgraph answering its caller). The words
 * themselves, Arabic and English, are in catalogue-ar-en.ts.
 */
export type MessageId = keyof typeof MESSAGES;

/** A value a sentence names: a field as the client sent it, a limit, a count. */
export type MessageParams = Readonly<Record<string, string | number>>;

/** A sentence not yet in a language: what travels from a producer to where it is read. */
export interface Message {
  readonly id: MessageId;
  readonly params?: MessageParams;
}

export function say(id: MessageId, params?: MessageParams): Message {
  return params === undefined ? { id } : { id, params };
}

const VALUE = /\{(\w+)\}/g;

export function render(said: Message, language: TextLanguage): string {
  const params = said.params ?? {};
  return MESSAGES[said.id][language].replace(VALUE, (whole, name: string) =>
    Object.hasOwn(params, name) ? String(params[name]) : whole,
  );
}

/** Shorthand for a sentence rendered where it is made. */
export function text(id: MessageId, language: TextLanguage, params?: MessageParams): string {
  return render(say(id, params), language);
}

/** Sentences said one after the other (a summary and its "and N more"). */
export function renderAll(said: readonly Message[], language: TextLanguage): string {
  return said.map((m) => render(m, language)).join(' ');
}

export function isMessageId(value: unknown): value is MessageId {
  return typeof value === 'string' && Object.hasOwn(MESSAGES, value);
}

/** A message as it arrives from another process: only known ids and plain values are taken. */
export function isMessage(value: unknown): value is Message {
  if (typeof value !== 'object' || value === null) return false;
  const { id, params } = value as { id?: unknown; params?: unknown };
  if (!isMessageId(id)) return false;
  if (params === undefined) return true;
  return (
    typeof params === 'object' &&
    params !== null &&
    !Array.isArray(params) &&
    Object.values(params).every((v) => typeof v === 'string' || typeof v === 'number')
  );
}

/** Laravel's summary of a validation error: the first message, and how many more there are. */
export function summaryOf(messages: readonly Message[]): Message[] {
  const first = messages[0] ?? say('validation.invalid');
  const more = messages.length - 1;
  if (more <= 0) return [first];
  return [first, more === 1 ? say('validation.more_one') : say('validation.more', { count: more })];
}
