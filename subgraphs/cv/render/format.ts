import type { SectionKey } from '../../../contracts/cv/cv.payload';
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

export const LABELS: Record<CvLocale, CvLabels> = {
  ar: {
    sections: {
      experience: 'الخبرة العملية',
      education: 'التعليم',
      skills: 'المهارات',
      languages: 'اللغات',
      certifications: 'الشهادات',
      projects: 'المشاريع',
      awards: 'الجوائز',
      volunteers: 'العمل التطوعي',
      references: 'المراجع',
      tasks: 'المهام',
      expertise: 'مجالات الخبرة',
    },
    summary: 'نبذة مختصرة',
    contact: 'معلومات التواصل',
    email: 'البريد الإلكتروني',
    phone: 'الهاتف',
    website: 'الموقع',
    address: 'العنوان',
    nationality: 'الجنسية',
    birthDate: 'تاريخ الميلاد',
    present: 'حتى الآن',
    gpa: 'المعدل',
    watermark: 'الخطة المجانية',
  },
  en: {
    sections: {
      experience: 'Experience',
      education: 'Education',
      skills: 'Skills',
      languages: 'Languages',
      certifications: 'Certifications',
      projects: 'Projects',
      awards: 'Awards',
      volunteers: 'Volunteering',
      references: 'References',
      tasks: 'Tasks',
      expertise: 'Expertise',
    },
    summary: 'Profile',
    contact: 'Contact',
    email: 'Email',
    phone: 'Phone',
    website: 'Website',
    address: 'Address',
    nationality: 'Nationality',
    birthDate: 'Date of birth',
    present: 'Present',
    gpa: 'GPA',
    watermark: 'Free plan',
  },
};

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Safe in a text node and in a quoted attribute alike, so one function serves both. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => HTML_ESCAPES[char]!);
}

const COLOUR = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;

/** The only user value that reaches CSS: a hex colour, or nothing. */
export function safeColour(value: string | null | undefined): string | null {
  return typeof value === 'string' && COLOUR.test(value) ? value : null;
}
