import type { TextLanguage } from '../../../common/language';

/** The one text a customer gets when the order is ready, in the venue's language. */
export function smsText(language: TextLanguage, number: string, venueName: string): string {
  return language === 'ar'
    ? `طلبك رقم ${number} جاهز في ${venueName}. تفضل بالاستلام.`
    : `Your order ${number} is ready at ${venueName}. Please collect it.`;
}

/** A push notification's title and body for ready and for a ring, in the venue's language. */
export function pushText(
  language: TextLanguage,
  event: 'ticket.ready' | 'ticket.rung',
  number: string,
  venueName: string,
): { title: string; body: string } {
  if (event === 'ticket.ready') return { title: venueName, body: smsText(language, number, venueName) };
  return {
    title: venueName,
    body:
      language === 'ar'
        ? `تذكير: طلبك رقم ${number} جاهز. تفضل بالاستلام.`
        : `Reminder: your order ${number} is ready. Please collect it.`,
  };
}
