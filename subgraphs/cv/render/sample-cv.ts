import type { CvDocument, CvSections, SectionKey } from '../../../contracts/cv/cv.payload';

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

/** The words of the preview CV in each language; dates, links and the shape are shared. */
const SAMPLE = {
  en: {
    title: 'Backend engineer CV',
    person: {
      full_name: 'Layla Hassan',
      job_title: 'Senior Backend Engineer',
      summary:
        'Backend engineer with ten years of experience building payment and messaging platforms for ' +
        'millions of users in Iraq and the Gulf. I design systems that stay simple under load and lead ' +
        'small teams that ship every week.',
      email: 'layla.hassan@example.com',
      website: 'https://layla.example.com',
      address: 'Karrada, Baghdad, Iraq',
      nationality: 'Iraqi',
    },
    jobs: [
      {
        company: 'Zain Iraq',
        position: 'Senior Backend Engineer',
        location: 'Baghdad',
        description:
          'Lead a team of five building the mobile payments platform (2 million monthly users).\n' +
          'Cut settlement time from two days to ten minutes with an event-sourced ledger.',
      },
      {
        company: 'Asiacell',
        position: 'Backend Engineer',
        location: 'Sulaymaniyah',
        description:
          'Built the SMS gateway that sends 40 million messages a month.\n' +
          'Moved billing jobs from cron scripts to a queue with retries and alerts.',
      },
      {
        company: 'Earthlink',
        position: 'Software Developer',
        location: 'Baghdad',
        description: 'Wrote the customer portal and its REST API used by 300,000 subscribers.',
      },
    ],
    schools: [
      { institution: 'University of Kurdistan Hewlêr', degree: 'MSc', field_of_study: 'Computer Science' },
      { institution: 'University of Baghdad', degree: 'BSc', field_of_study: 'Computer Engineering' },
    ],
    skills: [
      ['TypeScript', 'Expert'],
      ['PostgreSQL', 'Expert'],
      ['Distributed systems', 'Advanced'],
      ['Kubernetes', 'Advanced'],
      ['GraphQL', 'Advanced'],
      ['Go', 'Intermediate'],
    ],
    languages: [
      ['Arabic', 'Native'],
      ['English', 'Fluent (C1)'],
      ['Kurdish', 'Conversational'],
    ],
    certifications: [
      ['Certified Kubernetes Administrator', 'CNCF'],
      ['AWS Solutions Architect – Associate', 'Amazon Web Services'],
    ],
    project: {
      name: 'Queue-calling platform',
      description: 'Open-source ticket calling for clinics and banks, now used by 300 venues.',
    },
    award: {
      title: 'Engineering Excellence Award',
      issuer: 'Zain Iraq',
      description: 'For the ledger migration, delivered with zero downtime.',
    },
    volunteer: {
      organization: 'Code Club Baghdad',
      role: 'Mentor',
      description: 'Teach programming to secondary-school students every Saturday.',
    },
    references: [
      { name: 'Omar Haddad', position: 'CTO', company: 'Zain Iraq' },
      {
        name: 'Dr. Sara Al-Jubouri',
        position: 'Professor of Computer Science',
        company: 'University of Baghdad',
      },
    ],
    tasks: ['Code review and mentoring of junior engineers', 'On-call rotation for payment services'],
    expertise: ['Payment systems and ledgers', 'High-volume messaging', 'Arabic and right-to-left products'],
    publications: {
      title: 'Publications',
      content: 'Queues that do not lose tickets: a field report. Iraqi Journal of Computing, 2022.',
    },
  },
  ar: {
    title: 'سيرة مهندسة البرمجيات',
    person: {
      full_name: 'نور كريم الساعدي',
      job_title: 'مهندسة برمجيات أولى',
      summary:
        'مهندسة برمجيات بخبرة عشر سنوات في بناء منصات الدفع والرسائل لملايين المستخدمين في العراق ' +
        'والخليج. أصمم أنظمة تبقى بسيطة تحت الضغط، وأقود فرقاً صغيرة تسلّم عملها كل أسبوع.',
      email: 'nour.saadi@example.com',
      website: 'https://nour.example.com',
      address: 'الكرادة، بغداد، العراق',
      nationality: 'عراقية',
    },
    jobs: [
      {
        company: 'زين العراق',
        position: 'مهندسة برمجيات أولى',
        location: 'بغداد',
        description:
          'أقود فريقاً من خمسة مهندسين يبني منصة الدفع عبر الهاتف (مليونا مستخدم شهرياً).\n' +
          'قلّصت وقت التسوية من يومين إلى عشر دقائق بسجلّ مالي قائم على الأحداث.',
      },
      {
        company: 'آسيا سيل',
        position: 'مهندسة أنظمة خلفية',
        location: 'السليمانية',
        description:
          'بنيت بوابة الرسائل القصيرة التي ترسل 40 مليون رسالة في الشهر.\n' +
          'نقلت مهام الفوترة إلى طابور مهام مع إعادة المحاولة والتنبيهات.',
      },
      {
        company: 'Earthlink',
        position: 'مطوّرة برمجيات',
        location: 'بغداد',
        description: 'طوّرت بوابة المشتركين وواجهتها البرمجية REST التي يستخدمها 300 ألف مشترك.',
      },
    ],
    schools: [
      { institution: 'جامعة كردستان هولير', degree: 'ماجستير', field_of_study: 'علوم الحاسوب' },
      { institution: 'جامعة بغداد', degree: 'بكالوريوس', field_of_study: 'هندسة الحاسوب' },
    ],
    skills: [
      ['TypeScript', 'خبيرة'],
      ['PostgreSQL', 'خبيرة'],
      ['الأنظمة الموزعة', 'متقدم'],
      ['Kubernetes', 'متقدم'],
      ['قيادة الفرق التقنية', 'متقدم'],
      ['Go', 'متوسط'],
    ],
    languages: [
      ['العربية', 'اللغة الأم'],
      ['الإنجليزية', 'طلاقة (C1)'],
      ['الكردية', 'محادثة'],
    ],
    certifications: [
      ['Certified Kubernetes Administrator', 'CNCF'],
      ['مهندسة حلول معتمدة من AWS', 'أمازون لخدمات الويب'],
    ],
    project: {
      name: 'منصة نداء للطوابير',
      description: 'نظام مفتوح المصدر لنداء التذاكر في العيادات والمصارف، يعمل اليوم في 300 موقع.',
    },
    award: {
      title: 'جائزة التميّز الهندسي',
      issuer: 'زين العراق',
      description: 'عن نقل السجل المالي إلى النظام الجديد دون أي توقف للخدمة.',
    },
    volunteer: {
      organization: 'نادي البرمجة في بغداد',
      role: 'مرشدة',
      description: 'أعلّم طلاب المدارس الثانوية البرمجة كل يوم سبت.',
    },
    references: [
      { name: 'د. سارة الجبوري', position: 'أستاذة علوم الحاسوب', company: 'جامعة بغداد' },
      { name: 'Omar Haddad', position: 'CTO', company: 'Zain Iraq' },
    ],
    tasks: ['مراجعة الشيفرة وإرشاد المهندسين الجدد', 'المناوبة لخدمات الدفع'],
    expertise: [
      'أنظمة الدفع والسجلات المالية',
      'الرسائل عالية الحجم',
      'المنتجات العربية من اليمين إلى اليسار',
    ],
    publications: {
      title: 'المنشورات',
      content: 'طوابير لا تضيّع التذاكر: تقرير ميداني. المجلة العراقية للحوسبة، 2022.',
    },
  },
} as const;

/**
 * A realistic CV for a template's preview page, every section filled, in the asked language.
 * Settings are left empty: the preview shows the template's own defaults.
 */
export function sampleCvDocument(locale: 'ar' | 'en'): CvDocument {
  const text = SAMPLE[locale];
  const dates = [
    { start_date: '2021-03', end_date: null, is_current: true },
    { start_date: '2017-06', end_date: '2021-02', is_current: false },
    { start_date: '2014-09', end_date: '2017-05', is_current: false },
  ];
  return {
    title: text.title,
    locale,
    personal: {
      ...text.person,
      phone: '+964 770 123 4567',
      birth_date: '1990-04-17',
    },
    settings: {},
    section_order: [
      'experience',
      'education',
      'projects',
      'skills',
      'languages',
      'certifications',
      'publications',
      'awards',
      'volunteers',
      'expertise',
      'tasks',
      'references',
    ],
    hidden_sections: [],
    sections: {
      experience: text.jobs.map((job, i) => ({ ...job, ...dates[i]! })),
      education: text.schools.map((school, i) => ({ ...school, gpa: i === 0 ? '3.8' : null })),
      skills: text.skills.map(([name, level]) => ({ name, level })),
      languages: text.languages.map(([name, level]) => ({ name, level })),
      certifications: text.certifications.map(([name, issuer], i) => ({
        name,
        issuer,
        url: i === 0 ? 'https://certs.example.com/cka' : null,
        issue_date: i === 0 ? '2022-05' : '2020-11',
      })),
      projects: [{ ...text.project, url: 'https://github.com/example/queue' }],
      awards: [{ ...text.award, date: '2022-12' }],
      volunteers: [{ ...text.volunteer }],
      references: text.references.map((reference, i) => ({
        ...reference,
        email: i === 0 ? 'sara@example.com' : 'omar.haddad@example.com',
        phone: i === 0 ? null : '+964 770 987 6543',
      })),
      tasks: text.tasks.map((description) => ({ description })),
      expertise: text.expertise.map((description) => ({ description })),
    },
    custom_sections: [{ key: 'publications', ...text.publications }],
  };
}
