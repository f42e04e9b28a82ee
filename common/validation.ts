import type { z } from 'zod';
import { addFieldError, type FieldMessages } from './errors';
import { isMessageId, say, type Message, type MessageId, type MessageParams } from './messages';

/** "customer_phone" → "customer phone"; "sections.experience.0.start_date" → "sections.experience.0.start date". */
function attribute(path: readonly PropertyKey[]): string {
  return path.map(String).join('.').replace(/_/g, ' ');
}

/**
 * A schema's own rule, named by its message id: `z.string().regex(MONTH, rule('field.format_month'))`.
 * A custom issue may add the sentence's other values as `params`.
 */
export function rule(id: MessageId): string {
  return id;
}

function plainParams(value: unknown): MessageParams {
  if (typeof value !== 'object' || value === null) return {};
  return Object.fromEntries(
    Object.entries(value).filter(([, v]) => typeof v === 'string' || typeof v === 'number'),
  );
}

/** Laravel's rule for a zod issue, which the legacy clients of both documents already show. */
function messageOf(issue: z.core.$ZodIssue): Message {
  // A value that is wrong as a whole (an array sent as the body) is named as the body.
  const field = issue.path.length === 0 ? 'body' : attribute(issue.path);
  if (isMessageId(issue.message)) {
    const params = issue.code === 'custom' ? plainParams(issue.params) : {};
    return say(issue.message, { ...params, field });
  }
  switch (issue.code) {
    case 'invalid_type':
      // Parsing with `reportInput` tells an absent or null value from a wrongly typed one.
      if ('input' in issue && (issue.input === undefined || issue.input === null)) {
        return say('field.required', { field });
      }
      switch (issue.expected) {
        case 'string':
          return say('field.string', { field });
        case 'int':
        case 'number':
          return say('field.integer', { field });
        case 'boolean':
          return say('field.boolean', { field });
        case 'array':
          return say('field.array', { field });
        case 'object':
          return say('field.object', { field });
        default:
          return say('field.invalid', { field });
      }
    case 'too_big': {
      const max = Number(issue.maximum);
      return issue.origin === 'string'
        ? say('field.max_characters', { field, max })
        : issue.origin === 'array'
          ? say('field.max_items', { field, max })
          : say('field.max', { field, max });
    }
    case 'too_small': {
      const min = Number(issue.minimum);
      return issue.origin === 'string'
        ? say('field.min_characters', { field, min })
        : say('field.min', { field, min });
    }
    case 'invalid_value':
      return say('field.selected_invalid', { field });
    case 'invalid_format':
      return issue.format === 'datetime'
        ? say('field.date', { field })
        : say('field.format_invalid', { field });
    default:
      return say('field.invalid', { field });
  }
}

/** The messages per field, keyed by dotted path, as Laravel reports them. */
export function fieldErrorsOf(error: z.ZodError): FieldMessages {
  const errors: FieldMessages = {};
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      // Named one by one, so each unknown key is reported where the client put it.
      for (const unknown of issue.keys) {
        const path = [...issue.path, unknown];
        addFieldError(
          errors,
          path.map(String).join('.'),
          say('field.not_allowed', { field: attribute(path) }),
        );
      }
      continue;
    }
    const key = issue.path.map(String).join('.') || 'body';
    addFieldError(errors, key, messageOf(issue));
  }
  return errors;
}
