import type { CvDocument, CvSections, SectionKey } from './cv.payload';

/** Arabic and English text of the kind real CVs carry, cycled through the items of each section. */
const TEXT = {
  company: ['شركة آسيا سيل للاتصالات', 'Zain Iraq'],
  position: ['مهندسة برمجيات أولى', 'Backend Engineer'],
  location: ['بغداد، العراق', 'Erbil, Iraq'],
  description: [
    'قدت فريقاً من خمسة مهندسين لبناء منصة الدفع.',
    'Built the ticket-calling API used by 300 venues.',
  ],
  institution: ['جامعة بغداد', 'University of Kurdistan Hewlêr'],
  degree: ['بكالوريوس', 'MSc'],
  field: ['هندسة الحاسوب', 'Computer Science'],
  skill: ['تطوير الواجهات الخلفية', 'PostgreSQL'],
  level: ['متقدم', 'Expert'],
  language: ['العربية', 'English'],
  fluency: ['اللغة الأم', 'C1'],
  name: ['شهادة AWS', 'Certified Kubernetes Administrator'],
  issuer: ['أمازون', 'CNCF'],
  person: ['د. سارة الجبوري', 'Omar Haddad'],
} as const;

const pick = (values: readonly string[], index: number) => values[index % values.length]!;
const month = (year: number, index: number) => `${year + index}-${String((index % 12) + 1).padStart(2, '0')}`;

function items<S extends SectionKey>(
  count: number,
  make: (index: number) => CvSections[S][number],
): CvSections[S] {
  return Array.from({ length: count }, (_, index) => make(index)) as CvSections[S];
}

/**
 * A CV with every personal field, every section filled (`perSection` items each) and custom
 * sections: the demo account's CV, the benchmark's payload and the tests' round trips.
 */
export function fullCvPayload(
  perSection = 2,
): Omit<CvDocument, 'title' | 'locale'> & { title: string; locale: 'ar' } {
  const sections: CvSections = {
    experience: items<'experience'>(perSection, (i) => ({
      company: pick(TEXT.company, i),
      position: pick(TEXT.position, i),
      location: pick(TEXT.location, i),
      description: pick(TEXT.description, i),
      start_date: month(2010, i),
      end_date: i === 0 ? null : month(2011, i),
      is_current: i === 0,
    })),
    education: items<'education'>(perSection, (i) => ({
      institution: pick(TEXT.institution, i),
      degree: pick(TEXT.degree, i),
      field_of_study: pick(TEXT.field, i),
      gpa: i % 2 === 0 ? '3.8' : null,
    })),
    skills: items<'skills'>(perSection, (i) => ({ name: pick(TEXT.skill, i), level: pick(TEXT.level, i) })),
    languages: items<'languages'>(perSection, (i) => ({
      name: pick(TEXT.language, i),
      level: pick(TEXT.fluency, i),
    })),
    certifications: items<'certifications'>(perSection, (i) => ({
      name: pick(TEXT.name, i),
      issuer: pick(TEXT.issuer, i),
      url: `https://certs.example.com/${i}`,
      issue_date: month(2019, i),
    })),
    projects: items<'projects'>(perSection, (i) => ({
      name: `مشروع ${i + 1} — Project ${i + 1}`,
      description: pick(TEXT.description, i),
      url: `https://github.com/example/project-${i}`,
    })),
    awards: items<'awards'>(perSection, (i) => ({
      title: i % 2 === 0 ? 'جائزة أفضل مهندس' : 'Hackathon winner',
      issuer: pick(TEXT.issuer, i),
      description: pick(TEXT.description, i),
      date: month(2018, i),
    })),
    volunteers: items<'volunteers'>(perSection, (i) => ({
      organization: i % 2 === 0 ? 'الهلال الأحمر العراقي' : 'Code Club Baghdad',
      role: i % 2 === 0 ? 'متطوعة' : 'Mentor',
      description: pick(TEXT.description, i),
    })),
    references: items<'references'>(perSection, (i) => ({
      name: pick(TEXT.person, i),
      position: pick(TEXT.position, i),
      company: pick(TEXT.company, i),
      email: `ref${i}@example.com`,
      phone: `+96477012345${String(i).padStart(2, '0')}`,
    })),
    tasks: items<'tasks'>(perSection, (i) => ({ description: `مراجعة الشيفرة ${i + 1}` })),
    expertise: items<'expertise'>(perSection, (i) => ({ description: `Distributed systems ${i + 1}` })),
  };
  return {
    title: 'سيرة مهندسة البرمجيات',
    locale: 'ar',
    personal: {
      full_name: 'نور كريم الساعدي',
      job_title: 'مهندسة برمجيات',
      summary: 'مهندسة برمجيات بخبرة عشر سنوات في الأنظمة الموزعة.\nEnglish and Arabic.',
      email: 'nour@example.com',
      phone: '+9647701234567',
      website: 'https://nour.example.com',
      address: 'الكرادة، بغداد',
      nationality: 'عراقية',
      birth_date: '1990-04-17',
    },
    settings: { primary_color: '#0f766e', theme: 'dark-header', font_family: 'sans' },
    section_order: ['experience', 'skills', 'publications', 'education', 'languages'],
    hidden_sections: ['references'],
    sections,
    custom_sections: [
      { key: 'publications', title: 'المنشورات', content: 'ورقة عن أنظمة الطوابير، ٢٠٢٢.' },
      { key: 'hobbies', title: 'Hobbies', content: null },
    ],
  };
}
