import type { TextLanguage } from '../../../common/language';
import { text } from '../../../common/messages';

/** The one text a customer gets when the order is ready, in the venue's language. */
export function smsText(language: TextLanguage, number: string, venueName: string): string {
  return text('ticket.sms_ready', language, { number, venue: venueName });
}

/** A push notification's title and body for ready and for a ring, in the venue's language. */
export function pushText(
  language: TextLanguage,
  event: 'ticket.ready' | 'ticket.rung',
  number: string,
  venueName: string,
): { title: string; body: string } {
  if (event === 'ticket.ready') return { title: venueName, body: smsText(language, number, venueName) };
  return { title: venueName, body: text('ticket.push_reminder', language, { number }) };
}
