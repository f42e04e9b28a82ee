import { ValidationError } from '../../common/errors';
import { render } from '../../common/messages';
import { fieldErrorsOf } from '../../common/validation';
import { cvUpdateRequest, normalizeStrings } from './cv.payload';

const ARABIC_LETTER = /[\u0600-\u06ff]/;

describe('the CV payload’s refusals', () => {
  it('has both languages for every message the CV payload schema can produce', () => {
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
        custom_sections: [{ key: 'experience', title: null }, { key: 'Bad Key', title: null }, 'x'],
        extra: true,
      }),
      { reportInput: true },
    );
    expect(parsed.success).toBe(false);
    const error = new ValidationError(fieldErrorsOf(parsed.error!));
    const english = Object.values(error.fieldErrors).flat();
    const arabic = Object.values(error.fieldMessages)
      .flat()
      .map((m) => render(m, 'ar'));
    expect(english.length).toBeGreaterThan(15);
    expect(arabic).toHaveLength(english.length);
    expect(arabic.filter((sentence) => !ARABIC_LETTER.test(sentence))).toEqual([]);
    expect(english).toContain(
      'The sections.experience.1.end date field must be a date after or equal to start date.',
    );
    expect(english).toContain(
      'The sections.experience.2.end date field is prohibited when is current is true.',
    );
    expect(arabic).toContain('يجب أن يطابق حقل sections.experience.0.start date الصيغة Y-m.');
  });
});
