import type { TextLanguage } from '../../../common/language';

/** The one text a customer gets when the order is ready, in the venue's language. */
export function smsText(language: TextLanguage, number: string, venueName: string): string {
  return language === 'ar'
    ? `طلبك رقم ${number} جاهز في ${venueName}. تفضل بالاستلام.`
    : `Your order ${number} is ready at ${venueName}. Please collect it.`;
}
