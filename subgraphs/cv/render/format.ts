import { text, type MessageId } from '../../../common/messages';
import { SECTION_KEYS, type SectionKey } from '../../../contracts/cv/cv.payload';
import { DATE, MONTH } from '../../../common/patterns';

/** The two languages a CV is written in; each picks its direction, words and month names. */
export type CvLocale = 'ar' | 'en';

/**
 * Month names as Iraq uses them (the Syriac names of the Levant, not Egypt's يناير/فبراير), and
 * English short names. Fixed tables rather than Intl: the output must not depend on the ICU data
 * a Node build happens to carry, and Intl would pick Arabic-Indic digits for `ar`.
 */
const MONTHS: Record<CvLocale, readonly string[]> = {
  ar: [
    'كانون الثاني',
    'شباط',
    'آذار',
    'نيسان',
    'أيار',
    'حزيران',
    'تموز',
    'آب',
    'أيلول',
    'تشرين الأول',
    'تشرين الثاني',
    'كانون الأول',
  ],
  en: ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'],
};

/** `2021-03` → "آذار 2021" / "Mar 2021"; anything else is shown as stored rather than lost. */
export function formatMonth(value: string, locale: CvLocale): string {
  const match = MONTH.exec(value);
  if (match === null) return value;
  return `${MONTHS[locale][Number(match[2]) - 1]!} ${match[1]!}`;
}

/** `1990-04-17` → "17 نيسان 1990" / "17 Apr 1990". */
export function formatDate(value: string, locale: CvLocale): string {
  const match = DATE.exec(value);
  if (match === null) return value;
  return `${Number(match[3])} ${MONTHS[locale][Number(match[2]) - 1]!} ${match[1]!}`;
}

/** Every word the document prints that is not the user's. */
export interface CvLabels {
  sections: Record<SectionKey, string>;
  summary: string;
  contact: string;
  email: string;
  phone: string;
  website: string;
  address: string;
  nationality: string;
  birthDate: string;
  present: string;
  gpa: string;
  watermark: string;
}

function labelsIn(locale: CvLocale): CvLabels {
  const say = (id: MessageId) => text(id, locale);
  return {
    sections: Object.fromEntries(SECTION_KEYS.map((key) => [key, say(`cv.label.section.${key}`)])) as Record<
      SectionKey,
      string
    >,
    summary: say('cv.label.summary'),
    contact: say('cv.label.contact'),
    email: say('cv.label.email'),
    phone: say('cv.label.phone'),
    website: say('cv.label.website'),
    address: say('cv.label.address'),
    nationality: say('cv.label.nationality'),
    birthDate: say('cv.label.birth_date'),
    present: say('cv.label.present'),
    gpa: say('cv.label.gpa'),
    watermark: say('cv.label.watermark'),
  };
}

export const LABELS: Record<CvLocale, CvLabels> = { ar: labelsIn('ar'), en: labelsIn('en') };

const COLOUR = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;

/** The only user value that reaches CSS: a hex colour, or nothing. */
export function safeColour(value: string | null | undefined): string | null {
  return typeof value === 'string' && COLOUR.test(value) ? value : null;
}
