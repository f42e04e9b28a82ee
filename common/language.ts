/** The two languages every text of the platform exists in. */
export type TextLanguage = 'en' | 'ar';

/** English unless the caller asks for Arabic first (`Accept-Language: ar`). */
export function languageOf(acceptLanguage: string | undefined): TextLanguage {
  const first = acceptLanguage?.split(',')[0]?.trim().toLowerCase() ?? '';
  return first === 'ar' || first.startsWith('ar-') ? 'ar' : 'en';
}
