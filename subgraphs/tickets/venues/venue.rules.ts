import type { FieldMessages } from '../../../common/errors';
import { say } from '../../../common/messages';

/** Venue, branch, key, board and display names: 1 to 120 characters once trimmed. Returns the trimmed name. */
export function checkName(errors: FieldMessages, field: string, value: string): string {
  const trimmed = value.trim();
  if (trimmed.length < 1 || trimmed.length > 120) {
    errors[field] = [say('field.between_characters', { field, min: 1, max: 120 })];
  }
  return trimmed;
}

/** Minutes a ticket may wait before the staff board highlights the wait (`Venue.waitAlertMinutes`). */
export const WAIT_ALERT_MINUTES = { min: 1, max: 240, default: 15 } as const;
