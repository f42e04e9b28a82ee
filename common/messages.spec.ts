import { MESSAGES } from './catalogue-ar-en';
import { isMessage, render, renderAll, say, summaryOf, text, type MessageId } from './messages';

const ARABIC_LETTER = /[\u0600-\u06ff]/;
const VALUES = /\{(\w+)\}/g;
/** Sentences that are the same in both languages: an input's example. */
const SAME_IN_BOTH = new Set<MessageId>(['page.ticket.sms_placeholder']);

const valuesOf = (sentence: string) => [...sentence.matchAll(VALUES)].map((m) => m[1]).sort();

describe('the message catalogue', () => {
  it('names the same values in English and Arabic, and says each in both', () => {
    const wrong = (Object.keys(MESSAGES) as MessageId[]).filter((id) => {
      const { en, ar } = MESSAGES[id];
      const sameValues = valuesOf(ar).join() === valuesOf(en).join();
      return en.trim() === '' || !sameValues || (!SAME_IN_BOTH.has(id) && !ARABIC_LETTER.test(ar));
    });
    expect(wrong).toEqual([]);
    expect(Object.keys(MESSAGES).length).toBeGreaterThan(150);
  });

  it('renders the values it is given and leaves a missing one visible', () => {
    expect(render(say('field.max_characters', { field: 'note', max: 255 }), 'en')).toBe(
      'The note field must not be greater than 255 characters.',
    );
    expect(text('field.max_characters', 'ar', { field: 'note', max: 255 })).toBe(
      'يجب ألا يزيد طول حقل note عن 255 حرفاً.',
    );
    // A value is put in as given: braces inside it are not read again.
    expect(text('cv.template_id_fixed', 'en', { route: 'PUT /cvs/{uuid}/template' })).toBe(
      'The template id field cannot change here; use PUT /cvs/{uuid}/template.',
    );
    expect(text('field.required', 'en')).toBe('The {field} field is required.');
  });

  it('summarises as Laravel does, in either language', () => {
    const three = [
      say('field.required', { field: 'title' }),
      say('field.required', { field: 'a' }),
      say('field.required', { field: 'b' }),
    ];
    expect(renderAll(summaryOf(three), 'en')).toBe('The title field is required. (and 2 more errors)');
    expect(renderAll(summaryOf(three), 'ar')).toBe('حقل title مطلوب. (و 2 أخطاء أخرى)');
    expect(renderAll(summaryOf(three.slice(0, 2)), 'en')).toBe(
      'The title field is required. (and 1 more error)',
    );
    expect(renderAll(summaryOf([]), 'en')).toBe('The given data was invalid.');
  });

  it('takes from another process only known ids with plain values', () => {
    expect(isMessage({ id: 'field.required', params: { field: 'x' } })).toBe(true);
    expect(isMessage({ id: 'field.required' })).toBe(true);
    expect(isMessage({ id: 'no.such.id' })).toBe(false);
    expect(isMessage({ id: 'field.required', params: { field: { nested: 1 } } })).toBe(false);
    expect(isMessage({ id: 'field.required', params: ['x'] })).toBe(false);
    expect(isMessage('field.required')).toBe(false);
    expect(isMessage({ id: 'toString' })).toBe(false);
  });
});
