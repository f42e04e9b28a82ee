import { readFileSync } from 'node:fs';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { ValidationError } from '../../../common/errors';
import { SECTION_KEYS, cvUpdateRequest, type CvDocument } from '../../../contracts/cv/cv.payload';
import { JSON_RESUME_VERSION } from '../../../contracts/cv/json-resume.version';
import { fromJsonResume, toJsonResume, type ResumeExtra } from './json-resume';

const packageFile = (name: string): unknown =>
  JSON.parse(readFileSync(require.resolve(`@jsonresume/schema/${name}`), 'utf8'));

// The schema pairs additionalItems with a single items schema, which strict mode refuses to compile.
const ajv = new Ajv({ allErrors: true, strictSchema: false });
addFormats(ajv);
const validateResume = ajv.compile(packageFile('schema.json') as object);

function expectValidResume(resume: unknown): void {
  validateResume(resume);
  expect(validateResume.errors ?? []).toEqual([]);
}

/** What our jsonb column gives back. */
const stored = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

function nullsIn(value: unknown, path = ''): string[] {
  if (value === null) return [path];
  if (typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, inner]) => nullsIn(inner, `${path}.${key}`));
}

const DEFAULT_TITLE = 'Imported CV';

/**
 * The one difference a resume without a name comes back with: the import gives no title, the
 * caller supplies one, and JSON Resume can only carry it under meta.cv.
 */
function withDefaultTitle(resume: Record<string, unknown>): Record<string, unknown> {
  const meta = (resume.meta ?? { version: JSON_RESUME_VERSION }) as Record<string, unknown>;
  return { ...resume, meta: { ...meta, cv: { ...(meta.cv as object), title: DEFAULT_TITLE } } };
}

function expectValidDocument(document: ReturnType<typeof fromJsonResume>['document']): CvDocument {
  const full = { ...document, title: document.title ?? DEFAULT_TITLE, locale: document.locale ?? 'en' };
  const parsed = cvUpdateRequest.safeParse(full);
  expect(parsed.success ? [] : parsed.error.issues).toEqual([]);
  return full;
}

const cv: CvDocument = {
  title: 'سيرتي الذاتية — 2025',
  locale: 'ar',
  personal: {
    full_name: 'ليلى حدّاد',
    job_title: 'Senior Backend Engineer',
    summary: 'مهندسة برمجيات بخبرة عشر سنوات.\nBuilds payment systems.',
    email: 'layla@example.com',
    phone: '+962 79 123 4567',
    website: 'https://layla.example.com/',
    address: 'عمّان، الأردن',
    nationality: 'أردنية',
    birth_date: '1990-04-17',
  },
  settings: { primary_color: '#1a73e8', theme: 'dark', font_family: 'naskh' },
  section_order: ['experience', 'portfolio', 'education', 'skills', 'projects', 'languages', 'references'],
  hidden_sections: ['tasks', 'talks'],
  sections: {
    experience: [
      {
        company: 'أرامكس',
        position: 'Lead Engineer',
        location: 'Amman',
        description: 'Led the payments team.',
        start_date: '2021-03',
        end_date: null,
        is_current: true,
      },
      {
        company: 'Careem',
        position: 'مهندسة برمجيات',
        location: null,
        description: null,
        start_date: '2016-01',
        end_date: '2021-02',
        is_current: false,
      },
      // No end and not current: the one case where the flag must be written out.
      {
        company: 'Freelance',
        position: null,
        location: null,
        description: null,
        start_date: '2014-06',
        end_date: null,
        is_current: false,
      },
    ],
    education: [
      {
        institution: 'الجامعة الأردنية',
        degree: 'بكالوريوس',
        field_of_study: 'Computer Science',
        gpa: '3.8/4',
      },
      { institution: 'Coursera', degree: null, field_of_study: 'Machine Learning', gpa: null },
    ],
    skills: [
      { name: 'TypeScript', level: 'Expert' },
      { name: 'PostgreSQL', level: null },
      { name: 'التصميم', level: 'متقدم' },
    ],
    languages: [
      { name: 'العربية', level: 'اللغة الأم' },
      { name: 'English', level: 'Fluent' },
    ],
    certifications: [
      {
        name: 'AWS Solutions Architect',
        issuer: 'Amazon',
        url: 'https://aws.example.com/cert/1',
        issue_date: '2022-05',
      },
      { name: 'شهادة إدارة المشاريع', issuer: null, url: null, issue_date: null },
    ],
    projects: [
      {
        name: 'Qalam',
        description: 'An Arabic text editor.',
        url: 'https://github.com/example/qalam',
      },
      { name: 'مشروع داخلي', description: null, url: null },
    ],
    awards: [
      {
        title: 'Employee of the Year',
        issuer: 'Careem',
        description: 'For the wallet launch.',
        date: '2019-12',
      },
      { title: 'جائزة الإبداع', issuer: null, description: null, date: null },
    ],
    volunteers: [
      { organization: 'Code Club', role: 'Mentor', description: 'Weekly sessions for teenagers.' },
      { organization: 'الهلال الأحمر', role: null, description: null },
    ],
    references: [
      {
        name: 'Omar Khalil',
        position: 'CTO',
        company: 'Careem',
        email: 'omar@example.com',
        phone: '+971 50 000 0000',
      },
      { name: 'سارة علي', position: null, company: 'أرامكس', email: null, phone: null },
      { name: null, position: null, company: null, email: null, phone: null },
    ],
    tasks: [{ description: 'Code reviews' }, { description: 'مقابلات التوظيف' }],
    expertise: [{ description: 'Distributed systems' }, { description: null }],
  },
  custom_sections: [
    { key: 'portfolio', title: 'معرض الأعمال', content: 'https://dribbble.example.com/layla' },
    { key: 'talks', title: 'Talks', content: null },
  ],
};

/** Every section and field of JSON Resume 1.2.1, written as another tool would. */
const foreign = {
  $schema: 'https://raw.githubusercontent.com/jsonresume/resume-schema/v1.2.1/schema.json',
  basics: {
    name: 'Karim Nasser',
    label: 'Data Engineer',
    image: 'https://images.example.com/karim.jpg',
    email: 'karim@example.com',
    phone: '+961 3 123 456',
    url: 'https://karim.example.com',
    summary: 'Builds data pipelines. يبني أنظمة البيانات.',
    location: {
      address: '12 Hamra Street\nBuilding 4',
      postalCode: '1103',
      city: 'Beirut',
      countryCode: 'LB',
      region: 'Beirut Governorate',
    },
    profiles: [
      { network: 'GitHub', username: 'knasser', url: 'https://github.com/knasser' },
      { network: 'LinkedIn', username: 'karim-nasser', url: 'https://linkedin.example.com/in/karim' },
    ],
  },
  work: [
    {
      name: 'Anghami',
      location: 'Beirut',
      description: 'Music streaming',
      position: 'Senior Data Engineer',
      url: 'https://anghami.example.com',
      startDate: '2020-03-15',
      summary: 'Owns the event pipeline.',
      highlights: ['Cut ingestion cost by 40%', 'خفض زمن المعالجة'],
    },
    {
      name: 'Murex',
      position: 'Engineer',
      startDate: '2015',
      endDate: '2020-02',
    },
  ],
  volunteer: [
    {
      organization: 'Lebanese Red Cross',
      position: 'Volunteer',
      url: 'https://redcross.example.org',
      startDate: '2012-01-01',
      endDate: '2014',
      summary: 'First aid and logistics.',
      highlights: ['Trained 30 volunteers'],
    },
  ],
  education: [
    {
      institution: 'American University of Beirut',
      url: 'https://aub.example.edu',
      area: 'Computer Engineering',
      studyType: 'Bachelor',
      startDate: '2010',
      endDate: '2014',
      score: '3.6',
      courses: ['EECE 330 - Data Structures', 'EECE 350 - Networks'],
    },
  ],
  awards: [
    {
      title: 'Best Data Product',
      date: '2022-11-02',
      awarder: 'Anghami',
      summary: 'For the recommendations pipeline.',
    },
  ],
  certificates: [
    {
      name: 'Google Professional Data Engineer',
      date: '2021-06',
      url: 'https://cloud.example.com/certs/42',
      issuer: 'Google',
    },
  ],
  publications: [
    {
      name: 'Streaming at scale',
      publisher: 'IEEE',
      releaseDate: '2023-05-01',
      url: 'https://ieee.example.org/streaming',
      summary: 'Lessons from five years of event pipelines.',
    },
  ],
  skills: [
    { name: 'Data Engineering', level: 'Master', keywords: ['Spark', 'Kafka', 'Airflow'] },
    { name: 'Python', level: 'Advanced', keywords: [] },
  ],
  languages: [
    { language: 'Arabic', fluency: 'Native speaker' },
    { language: 'French', fluency: 'Professional' },
  ],
  interests: [{ name: 'Music', keywords: ['Oud', 'Jazz'] }],
  references: [
    {
      name: 'Rania Haddad',
      reference: 'Karim rebuilt our pipeline in three months; I would hire him again.',
    },
  ],
  projects: [
    {
      name: 'Tarab',
      description: 'An open-source audio fingerprinting library.',
      highlights: ['2k stars'],
      keywords: ['Rust', 'DSP'],
      startDate: '2019-07-20',
      endDate: '2021',
      url: 'https://github.com/example/tarab',
      roles: ['Maintainer'],
      entity: 'Personal',
      type: 'application',
    },
  ],
  meta: {
    canonical: 'https://resumes.example.com/karim.json',
    version: 'v1.0.0',
    lastModified: '2024-01-31T10:20:30',
  },
};

describe('toJsonResume and fromJsonResume', () => {
  it('exports a full CV as valid JSON Resume and imports it back unchanged, with nothing extra', () => {
    const resume = toJsonResume(cv, {});
    expectValidResume(resume);
    expect(nullsIn(resume)).toEqual([]);

    const basics = resume.basics as Record<string, unknown>;
    expect(basics).toMatchObject({
      name: 'ليلى حدّاد',
      url: 'https://layla.example.com/',
      location: { address: 'عمّان، الأردن' },
      nationality: 'أردنية',
      birthDate: '1990-04-17',
    });
    const work = resume.work as Record<string, unknown>[];
    expect(work.map((item) => item.isCurrent)).toEqual([undefined, undefined, false]);
    expect(work[0]).not.toHaveProperty('endDate');
    expect(resume.references).toEqual([
      {
        name: 'Omar Khalil',
        reference: 'CTO · Careem · omar@example.com · +971 50 000 0000',
        position: 'CTO',
        company: 'Careem',
        email: 'omar@example.com',
        phone: '+971 50 000 0000',
      },
      { name: 'سارة علي', reference: 'أرامكس', company: 'أرامكس' },
      {},
    ]);
    expect(resume.meta).toEqual({
      version: JSON_RESUME_VERSION,
      cv: {
        // locale is left out: the Arabic name already says it.
        title: cv.title,
        settings: cv.settings,
        section_order: cv.section_order,
        hidden_sections: cv.hidden_sections,
        custom_sections: [
          { key: 'portfolio', title: 'معرض الأعمال', content: 'https://dribbble.example.com/layla' },
          { key: 'talks', title: 'Talks' },
        ],
        tasks: cv.sections.tasks,
        expertise: [{ description: 'Distributed systems' }, {}],
      },
    });

    const { document, extra } = fromJsonResume(stored(resume));
    expect(document).toEqual(cv);
    expect(extra).toEqual({});
  });

  it('keeps a locale the name does not suggest, and leaves meta.cv out when everything is a default', () => {
    const english: CvDocument = {
      ...cv,
      title: 'Sam Lee',
      locale: 'ar',
      personal: { ...cv.personal, full_name: 'Sam Lee', job_title: 'Chef' },
    };
    expect((toJsonResume(english, {}).meta as Record<string, unknown>).cv).toMatchObject({ locale: 'ar' });
    expect(fromJsonResume(toJsonResume(english, {})).document.locale).toBe('ar');

    const plain: CvDocument = {
      ...english,
      locale: 'en',
      settings: {},
      section_order: [...SECTION_KEYS],
      hidden_sections: [],
      custom_sections: [],
      sections: { ...english.sections, tasks: [], expertise: [] },
    };
    expect(toJsonResume(plain, {}).meta).toEqual({ version: JSON_RESUME_VERSION });
    expect(fromJsonResume(toJsonResume(plain, {}))).toEqual({ document: plain, extra: {} });
  });

  it('imports a foreign resume using every field into a valid CV and exports it back exactly', () => {
    expectValidResume(foreign);
    const { document, extra } = fromJsonResume(stored(foreign));
    const full = expectValidDocument(document);

    expect(document.title).toBe('Karim Nasser');
    expect(document.locale).toBe('en');
    expect(document.personal).toEqual({
      full_name: 'Karim Nasser',
      job_title: 'Data Engineer',
      summary: foreign.basics.summary,
      email: 'karim@example.com',
      phone: '+961 3 123 456',
      website: 'https://karim.example.com',
      address: '12 Hamra Street\nBuilding 4',
      nationality: null,
      birth_date: null,
    });
    expect(document.sections.experience).toEqual([
      {
        company: 'Anghami',
        position: 'Senior Data Engineer',
        location: 'Beirut',
        description: 'Owns the event pipeline.',
        start_date: '2020-03',
        end_date: null,
        is_current: true,
      },
      {
        company: 'Murex',
        position: 'Engineer',
        location: null,
        description: null,
        start_date: '2015-01',
        end_date: '2020-02',
        is_current: false,
      },
    ]);
    expect(document.sections.education).toEqual([
      {
        institution: 'American University of Beirut',
        degree: 'Bachelor',
        field_of_study: 'Computer Engineering',
        gpa: '3.6',
      },
    ]);
    expect(document.sections.references).toEqual([
      { name: 'Rania Haddad', position: null, company: null, email: null, phone: null },
    ]);
    expect(document.sections.awards[0]?.date).toBe('2022-11');
    expect(document.sections.certifications[0]?.issue_date).toBe('2021-06');
    expect(document.section_order).toEqual([...SECTION_KEYS]);

    // What has no field of ours, and the originals of the dates that were not whole months.
    expect(extra.resume).toMatchObject({
      $schema: foreign.$schema,
      publications: foreign.publications,
      interests: foreign.interests,
      basics: {
        image: foreign.basics.image,
        profiles: foreign.basics.profiles,
        location: { postalCode: '1103', city: 'Beirut', countryCode: 'LB', region: 'Beirut Governorate' },
      },
      meta: { version: 'v1.0.0', canonical: foreign.meta.canonical, lastModified: foreign.meta.lastModified },
    });
    expect(extra.items?.experience).toEqual({
      0: {
        description: 'Music streaming',
        url: 'https://anghami.example.com',
        startDate: '2020-03-15',
        highlights: foreign.work[0]?.highlights,
      },
      1: { startDate: '2015' },
    });
    expect(extra.items?.references).toEqual({ 0: { reference: foreign.references[0]?.reference } });

    // No difference at all: the original meta (its version and dates included) is written back.
    expect(toJsonResume(full, stored(extra))).toEqual(foreign);

    // The export's own canonical address and modification time replace the imported ones, and only those.
    const stamped = toJsonResume(full, stored(extra), {
      canonicalUrl: 'https://api.example.com/cvs/1/json-resume',
      lastModified: '2025-02-03T04:05:06.000Z',
    });
    expect(stamped).toEqual({
      ...foreign,
      meta: {
        ...foreign.meta,
        canonical: 'https://api.example.com/cvs/1/json-resume',
        lastModified: '2025-02-03T04:05:06.000Z',
      },
    });
  });

  it('lets an edit win over a kept original, and keeps what the edit does not touch', () => {
    const { document, extra } = fromJsonResume(stored(foreign));
    const imported = expectValidDocument(document);
    const [current, earlier] = imported.sections.experience;
    const full: CvDocument = {
      ...imported,
      title: 'My data CV',
      personal: { ...imported.personal, address: 'Gemmayzeh' },
      sections: { ...imported.sections, experience: [current!, { ...earlier!, start_date: '2016-05' }] },
    };
    const resume = toJsonResume(full, stored(extra));
    expectValidResume(resume);
    expect((resume.basics as Record<string, unknown>).location).toEqual({
      ...foreign.basics.location,
      address: 'Gemmayzeh',
    });
    expect((resume.work as unknown[])[1]).toEqual({ ...foreign.work[1], startDate: '2016-05' });
    expect((resume.work as unknown[])[0]).toEqual(foreign.work[0]);
    expect(resume.meta).toEqual({ ...foreign.meta, cv: { title: 'My data CV' } });

    // As the service does when a PUT replaces the experience section.
    const dropped: ResumeExtra = { ...stored(extra), items: { ...extra.items, experience: undefined } };
    delete dropped.items!.experience;
    expect(toJsonResume(full, dropped).work).toEqual([
      {
        name: 'Anghami',
        location: 'Beirut',
        position: 'Senior Data Engineer',
        startDate: '2020-03',
        summary: 'Owns the event pipeline.',
      },
      { name: 'Murex', position: 'Engineer', startDate: '2016-05', endDate: '2020-02' },
    ]);
  });

  it('detects the locale from Arabic letters in the name or label when meta.cv does not give it', () => {
    expect(fromJsonResume({ basics: { name: 'نور' } }).document).toMatchObject({
      locale: 'ar',
      title: 'نور',
    });
    expect(fromJsonResume({ basics: { name: 'Nour', label: 'مصممة' } }).document.locale).toBe('ar');
    expect(fromJsonResume({ basics: { name: 'Nour ١٢' } }).document.locale).toBe('en');
    expect(fromJsonResume({}).document).toMatchObject({ locale: 'en', title: null });
    expect(
      fromJsonResume({ basics: { name: 'نور' }, meta: { cv: { locale: 'en', title: 'CV' } } }).document,
    ).toMatchObject({
      locale: 'en',
      title: 'CV',
    });
  });

  it.each([
    ['null', null],
    ['a string', 'resume'],
    ['an array', [{ basics: {} }]],
    ['a number', 42],
  ])('refuses %s as the resume', (_, resume) => {
    let error: unknown;
    try {
      fromJsonResume(resume);
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).fieldErrors).toEqual({
      resume: ['The resume field must be a JSON Resume object.'],
    });
  });

  it.each<[string, Record<string, unknown>]>([
    ['a section that is not a list', { work: 5 }],
    ['a name that is a number', { basics: { name: 7 } }],
    ['empty objects and lists', { basics: {}, work: [], meta: {}, skills: [] }],
    [
      'odd values everywhere',
      {
        basics: {
          name: 7,
          label: ['x'],
          location: 'Amman',
          profiles: 'none',
          birthDate: 'soon',
          url: '  https://padded.example.com  ',
        },
        work: [{ name: 3, startDate: 'Summer 2010', endDate: 'Present', isCurrent: 'yes', highlights: 'x' }],
        education: 'none',
        skills: {},
        languages: [{ language: 'Arabic', fluency: 10 }],
        meta: {
          version: 3,
          cv: {
            title: 9,
            locale: 'fr',
            settings: [1],
            section_order: 'x',
            hidden_sections: [1, 'tasks'],
            custom_sections: [null, { key: 1 }],
            tasks: 'x',
          },
        },
        publications: 7,
      },
    ],
  ])('maps what it can of %s and gives the rest back on export', (_, resume) => {
    const { document, extra } = fromJsonResume(resume);
    const full = expectValidDocument(document);
    expect(toJsonResume(full, stored(extra))).toEqual(withDefaultTitle(resume));
  });

  it('maps the odd values to nothing rather than guessing', () => {
    const { document } = fromJsonResume({
      basics: { name: 7, url: ' https://padded.example.com ' },
      work: [{ name: 3, startDate: 'Summer 2010', endDate: 'Present', isCurrent: 'yes' }],
      meta: { cv: { hidden_sections: [1, 'tasks'], settings: { theme: 'dark', font_family: 3 } } },
    });
    expect(document.personal).toMatchObject({ full_name: null, website: 'https://padded.example.com' });
    expect(document.sections.experience).toEqual([
      {
        company: null,
        position: null,
        location: null,
        description: null,
        start_date: null,
        end_date: null,
        is_current: false,
      },
    ]);
    expect(document.hidden_sections).toEqual(['tasks']);
    expect(document.settings).toEqual({ theme: 'dark' });
  });

  it('maps the objects of a list that also holds other values, and keeps the whole list in the extra', () => {
    const resume = { skills: ['Cooking', { name: 'Baking' }] };
    const { document, extra } = fromJsonResume(resume);
    expect(document.sections.skills).toEqual([{ name: 'Baking', level: null }]);
    // null: the resume had no meta, so the export leaves out the one it would add.
    expect(extra).toEqual({ resume: { skills: resume.skills, meta: null } });
    const full = expectValidDocument(document);
    // A list cannot be both: the mapped items are written; 'Cooking' stays only in the extra.
    expect(toJsonResume(full, stored(extra))).toEqual(withDefaultTitle({ skills: [{ name: 'Baking' }] }));
  });

  it('keeps keys named __proto__ as data, without touching any prototype', () => {
    const resume = JSON.parse(
      '{"basics":{"name":"A","__proto__":{"polluted":true}},"__proto__":{"x":1},"work":[{"__proto__":[1]}]}',
    ) as Record<string, unknown>;
    const { document, extra } = fromJsonResume(resume);
    expect(Object.getPrototypeOf(extra.resume)).toBe(Object.prototype);
    expect(toJsonResume(expectValidDocument(document), stored(extra))).toEqual(resume);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('round-trips the sample resume shipped with the schema exactly', () => {
    const sample = packageFile('sample.resume.json') as Record<string, unknown>;
    expectValidResume(sample);
    const { document, extra } = fromJsonResume(stored(sample));
    const full = expectValidDocument(document);
    expect(full).toMatchObject({ title: 'Richard Hendriks', locale: 'en' });
    expect(full.sections.experience[0]).toMatchObject({
      company: 'Pied Piper',
      start_date: '2013-12',
      end_date: '2014-12',
      is_current: false,
    });
    expect(toJsonResume(full, stored(extra))).toEqual(sample);
  });
});
