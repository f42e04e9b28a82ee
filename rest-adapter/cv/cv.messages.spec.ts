import { fieldErrorsOf } from '../../common/validation';
import { cvUpdateRequest, normalizeStrings } from '../../contracts/cv/cv.payload';
import { arabicMessage, inArabic } from './cv.messages';

const ARABIC_LETTER = /[\u0600-\u06ff]/;

describe('Arabic error messages of the CV routes', () => {
  it('has an Arabic sentence for every message the payload schema can produce', () => {
    const parsed = cvUpdateRequest.safeParse(
      normalizeStrings({
        title: 'x'.repeat(300),
        locale: 5,
        personal: { birth_date: '1990-02-30', email: 'x', website: 'ftp://x', phone: 7, full_name: '' },
        settings: { primary_color: 'red', theme: 'neon' },
        section_order: ['a', 'a'],
        hidden_sections: 'skills',
        sections: {
          experience: [
            { start_date: '2020-1', is_current: 'yes' },
            { start_date: '2021-05', end_date: '2020-01' },
            { start_date: '2021-05', end_date: '2022-01', is_current: true },
          ],
          skills: Array.from({ length: 101 }, () => ({})),
          languages: [{ colour: 'red' }],
          awards: {},
        },
        custom_sections: [{ key: 'experience', title: 'x' }, { key: 'Bad Key', title: null }, 'x'],
        extra: true,
      }),
      { reportInput: true },
    );
    expect(parsed.success).toBe(false);
    const messages = Object.values(fieldErrorsOf(parsed.error!)).flat();
    expect(messages.length).toBeGreaterThan(15);
    const untranslated = messages.filter((message) => !ARABIC_LETTER.test(arabicMessage(message)));
    expect(untranslated).toEqual([]);
  });

  it('has an Arabic sentence for the messages written by hand in the cv subgraph and the adapter', () => {
    const messages = [
      'The title field is required.',
      'The selected template id is invalid.',
      'The template id field must be an integer.',
      'The photo field must not be greater than 4096 kilobytes.',
      'The photo field must be a file of type: jpeg, png, webp.',
      'The photo field must be an image.',
      'The photo field must not be larger than 40 megapixels.',
      'Send one file, in the multipart field photo.',
      'The photo upload is malformed: Unexpected end of form.',
      'The resume field must be a JSON Resume object.',
      'The template id field cannot change here; use PUT /cvs/{uuid}/template.',
      'The selected section order.3 is invalid.',
      'The sections.experience.0.company field must not contain NUL characters.',
      'The title field must be valid UTF-8 text.',
      'The input.resume field is too large: all arguments together must not be greater than 1000 kilobytes.',
      'The input.resume field must be an object.',
      'The route api/v1/cvs//pdf could not be found.',
      'The sections field must not be nested more than 32 levels deep.',
    ];
    expect(messages.filter((message) => !ARABIC_LETTER.test(arabicMessage(message)))).toEqual([]);
  });

  it('keeps the field’s name and the numbers, and translates the summary and every field', () => {
    expect(arabicMessage('The sections.experience.0.start date field must match the format Y-m.')).toBe(
      'يجب أن يطابق حقل sections.experience.0.start date الصيغة Y-m.',
    );
    expect(
      inArabic({
        message: 'The title field is required. (and 2 more errors)',
        errors: { title: ['The title field is required.'], locale: ['The selected locale is invalid.'] },
      }),
    ).toEqual({
      message: 'حقل title مطلوب. (و 2 أخطاء أخرى)',
      errors: { title: ['حقل title مطلوب.'], locale: ['قيمة حقل locale المختارة غير صالحة.'] },
    });
    // What no rule knows stays English rather than being guessed.
    expect(arabicMessage('Something new.')).toBe('Something new.');
  });
});
