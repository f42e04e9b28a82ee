import { addFieldError, renderFields, type FieldMessages } from './errors';
import {
  isStorableDate,
  parseRecordId,
  textErrorsIn,
  textProblemMessage,
  textProblemOf,
} from './input.rules';
import { render, say } from './messages';

/** The English a caller of these rules shows. */
const english = (value: unknown, path?: (string | number)[]) => renderFields(textErrorsIn(value, path), 'en');

describe('the text every door refuses', () => {
  it('finds a NUL anywhere and a lone surrogate of either half, and passes paired ones', () => {
    expect(textProblemOf('a\u0000b')).toBe('nul');
    expect(textProblemOf('\ud800')).toBe('malformed');
    expect(textProblemOf('x\udfffy')).toBe('malformed');
    expect(textProblemOf('\udc00\ud800')).toBe('malformed');
    expect(textProblemOf('😀 مرحبا \u202e\ufeff')).toBeUndefined();
    expect(textProblemOf('')).toBeUndefined();
  });

  it('says what is wrong in Laravel’s words, with the field named as the documents do', () => {
    expect(render(textProblemMessage('customer_name', 'nul'), 'en')).toBe(
      'The customer name field must not contain NUL characters.',
    );
    expect(render(textProblemMessage('sections.experience.0.title', 'malformed'), 'en')).toBe(
      'The sections.experience.0.title field must be valid UTF-8 text.',
    );
  });

  it('names every bad string of a JSON value by its path, object keys included', () => {
    expect(
      english({
        customer_name: 'a\u0000',
        sections: { experience: [{ title: 'ok' }, { title: '\ud800' }] },
        'bad\u0000key': 1,
      }),
    ).toEqual({
      customer_name: ['The customer name field must not contain NUL characters.'],
      'sections.experience.1.title': ['The sections.experience.1.title field must be valid UTF-8 text.'],
      'bad\ufffdkey': ['The bad\ufffdkey field must not contain NUL characters.'],
    });
    expect(english('\u0000')).toEqual({ body: ['The body field must not contain NUL characters.'] });
    expect(english({ note: 'fine', n: 1, list: [null, true] })).toEqual({});
  });

  it('stops at 32 levels and names the field the nesting came in, without exhausting the stack', () => {
    let deep: unknown = 'x\u0000';
    for (let i = 0; i < 200_000; i += 1) deep = [deep];
    const message = 'The sections field must not be nested more than 32 levels deep.';
    expect(english({ title: 'ok', sections: deep })).toEqual({ sections: [message] });
    expect(english(deep)).toEqual({
      body: ['The body field must not be nested more than 32 levels deep.'],
    });
    expect(english(deep, ['input', 'resume'])).toEqual({
      'input.resume': ['The input.resume field must not be nested more than 32 levels deep.'],
    });
  });

  it('keeps __proto__ and constructor as fields of their own', () => {
    const errors = textErrorsIn(JSON.parse('{"__proto__": "\\u0000", "constructor": "\\ud800"}'));
    expect(Object.keys(errors)).toEqual(['__proto__', 'constructor']);
    expect(Object.getPrototypeOf(errors)).toBe(Object.prototype);
    const more: FieldMessages = {};
    addFieldError(more, 'constructor', say('field.required', { field: 'one' }));
    addFieldError(more, 'constructor', say('field.required', { field: 'one' }));
    expect(JSON.stringify(renderFields(more, 'en'))).toBe('{"constructor":["The one field is required."]}');
  });
});

describe('a record’s id', () => {
  it('is a positive whole number in plain decimal that a JavaScript number keeps exactly', () => {
    expect(parseRecordId('42')).toBe(42);
    expect(parseRecordId(42)).toBe(42);
    expect(parseRecordId('9007199254740991')).toBe(9007199254740991);
  });

  it('is nothing for anything else, so no query asks for it', () => {
    for (const id of [
      '0',
      '-1',
      '042',
      '1e3',
      '1.0',
      ' 1',
      '9007199254740992',
      '9223372036854775807',
      '99999999999999999999',
      'abc',
      '1\u0000',
      '',
      null,
      undefined,
      0,
      -5,
      1.5,
      Number.POSITIVE_INFINITY,
      2 ** 60,
    ]) {
      expect(parseRecordId(id)).toBeNull();
    }
  });
});

describe('a date every door and store reads alike', () => {
  it('is within years 1 to 9999, as a Date or as ISO 8601 text', () => {
    for (const date of ['0001-01-01T00:00:00Z', '2026-11-25', '9999-12-31T23:59:59.999Z'])
      expect(isStorableDate(date)).toBe(true);
    expect(isStorableDate(new Date('2026-11-25T10:00:00+03:00'))).toBe(true);
  });

  it('is not year 0, a year past 9999 or no date at all', () => {
    for (const date of [
      '0000-01-01T00:00:00Z',
      '0000-12-31T23:59:59.999Z',
      '+010000-01-01T00:00:00Z',
      'yesterday',
    ])
      expect(isStorableDate(date)).toBe(false);
    expect(isStorableDate(new Date(Number.NaN))).toBe(false);
  });
});
