import {
  formatWhatsAppCode,
  newWhatsAppCode,
  WHATSAPP_CODE_ALPHABET,
  whatsAppCodesIn,
} from './whatsapp-code';

describe('WhatsApp codes', () => {
  it('makes 8 characters of the unambiguous alphabet, different each time', () => {
    const codes = new Set(Array.from({ length: 2000 }, () => newWhatsAppCode()));
    expect(codes.size).toBe(2000);
    for (const code of codes) {
      expect(code).toMatch(/^[23456789ABCDEFGHJKMNPQRSTUVWXYZ]{8}$/);
    }
    expect(WHATSAPP_CODE_ALPHABET).not.toMatch(/[01ILO]/);
  });

  it('shows a code as XXXX-XXXX', () => {
    expect(formatWhatsAppCode('K7Q2M9XD')).toBe('K7Q2-M9XD');
  });

  it('finds the code in the English and Arabic prefilled texts', () => {
    expect(whatsAppCodesIn('Notify me when order 42 is ready. Code: K7Q2-M9XD')).toEqual(['K7Q2M9XD']);
    expect(whatsAppCodesIn('أبلغوني عندما يجهز الطلب 42. الرمز: K7Q2-M9XD')).toEqual(['K7Q2M9XD']);
  });

  it('tolerates case, spaces, another dash and no separator', () => {
    expect(whatsAppCodesIn('k7q2 m9xd')).toEqual(['K7Q2M9XD']);
    expect(whatsAppCodesIn('code k7q2m9xd please')).toEqual(['K7Q2M9XD']);
    expect(whatsAppCodesIn('K7Q2 – M9XD')).toEqual(['K7Q2M9XD']);
    expect(whatsAppCodesIn('K7Q2\nM9XD')).toEqual(['K7Q2M9XD']);
  });

  it('reads Arabic-Indic and Eastern Arabic-Indic digits', () => {
    expect(whatsAppCodesIn('K٧Q٢-M٩XD')).toEqual(['K7Q2M9XD']);
    expect(whatsAppCodesIn('K۷Q۲ M۹XD')).toEqual(['K7Q2M9XD']);
  });

  it('finds nothing in a text without a code', () => {
    expect(whatsAppCodesIn('hello, is my order ready?')).toEqual([]);
    expect(whatsAppCodesIn('مرحبا')).toEqual([]);
    expect(whatsAppCodesIn('')).toEqual([]);
    // Letters outside the alphabet (O, I, L, 0, 1) never make a code.
    expect(whatsAppCodesIn('HOLD ONTO')).toEqual([]);
  });

  it('does not glue a longer run to a half', () => {
    expect(whatsAppCodesIn('K7Q2M M9XD')).toEqual([]);
    expect(whatsAppCodesIn('ABCD EFGH JKMN')).toEqual(['ABCDEFGH', 'EFGHJKMN']);
  });
});
