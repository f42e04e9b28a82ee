import type { z } from 'zod';
import { addFieldError, type FieldErrors } from './errors';

/** "customer_phone" → "customer phone"; "sections.experience.0.start_date" → "sections.experience.0.start date". */
function attribute(path: readonly PropertyKey[]): string {
  return path.map(String).join('.').replace(/_/g, ' ');
}

/** Laravel's wording, which the legacy clients of both documents already show their users. */
function message(issue: z.core.$ZodIssue): string {
  // A value that is wrong as a whole (an array sent as the body) is named as the body.
  const name = issue.path.length === 0 ? 'body' : attribute(issue.path);
  // A schema's own wording ("must be a valid date") completes the sentence.
  if (
    issue.message.startsWith('must ') ||
    issue.message.startsWith('has ') ||
    issue.message.startsWith('is ')
  ) {
    return `The ${name} field ${issue.message}.`;
  }
  switch (issue.code) {
    case 'invalid_type':
      // Parsing with `reportInput` tells an absent or null value from a wrongly typed one.
      if ('input' in issue && (issue.input === undefined || issue.input === null)) {
        return `The ${name} field is required.`;
      }
      switch (issue.expected) {
        case 'string':
          return `The ${name} field must be a string.`;
        case 'int':
        case 'number':
          return `The ${name} field must be an integer.`;
        case 'boolean':
          return `The ${name} field must be true or false.`;
        case 'array':
          return `The ${name} field must be an array.`;
        case 'object':
          return `The ${name} field must be an object.`;
        default:
          return `The ${name} field is invalid.`;
      }
    case 'too_big':
      return issue.origin === 'string'
        ? `The ${name} field must not be greater than ${String(issue.maximum)} characters.`
        : issue.origin === 'array'
          ? `The ${name} field must not have more than ${String(issue.maximum)} items.`
          : `The ${name} field must not be greater than ${String(issue.maximum)}.`;
    case 'too_small':
      return issue.origin === 'string'
        ? `The ${name} field must be at least ${String(issue.minimum)} characters.`
        : `The ${name} field must be at least ${String(issue.minimum)}.`;
    case 'invalid_value':
      return `The selected ${name} is invalid.`;
    case 'invalid_format':
      return issue.format === 'datetime'
        ? `The ${name} field must be a valid date.`
        : `The ${name} field format is invalid.`;
    default:
      return issue.message.startsWith('The ') ? issue.message : `The ${name} field is invalid.`;
  }
}

/** The first message per field, keyed by dotted path, as Laravel reports them. */
export function fieldErrorsOf(error: z.ZodError): FieldErrors {
  const errors: FieldErrors = {};
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      // Named one by one, so each unknown key is reported where the client put it.
      for (const unknown of issue.keys) {
        const path = [...issue.path, unknown];
        addFieldError(errors, path.map(String).join('.'), `The ${attribute(path)} field is not allowed.`);
      }
      continue;
    }
    const key = issue.path.map(String).join('.') || 'body';
    addFieldError(errors, key, message(issue));
  }
  return errors;
}
