import { IRAQI_MOBILE_PATTERN, normalizeIraqiMobile } from './iraqi-mobile';

describe('normalizeIraqiMobile', () => {
  it.each([
    ['07701234567', '+9647701234567'],
    ['0770 123 4567', '+9647701234567'],
    ['0770-123-4567', '+9647701234567'],
    ['+9647701234567', '+9647701234567'],
    ['+964 770 123 4567', '+9647701234567'],
    ['009647801234567', '+9647801234567'],
    ['9647501234567', '+9647501234567'],
    [' 07901234567 ', '+9647901234567'],
  ])('stores %j as %j', (input, expected) => {
    expect(normalizeIraqiMobile(input)).toBe(expected);
  });

  it.each([
    '0770123456', // a digit short
    '077012345678', // a digit long
    '06701234567', // not a mobile prefix
    '+9617701234567', // another country
    '+964 1 234 5678', // Baghdad landline
    '0770.123.4567',
    '(0770) 1234567',
    'seven seven',
    '',
  ])('refuses %j', (input) => {
    expect(normalizeIraqiMobile(input)).toBeNull();
  });
});

/** The rule as people state it: drop spaces and dashes, then a prefix and 7 with nine digits. */
function byCompacting(input: string): string | null {
  const compact = input.trim().replace(/[\s-]+/g, '');
  const match = /^(?:\+964|00964|964|0)(7\d{9})$/.exec(compact);
  return match ? `+964${match[1]}` : null;
}

/** A small seeded generator, so a failure names an input that fails again. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

describe('IRAQI_MOBILE_PATTERN', () => {
  it('accepts exactly what the stated rule accepts, as a JSON Schema validator reads it too', () => {
    const next = random(52);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
    const often = <T>(usual: readonly T[], rare: readonly T[]): T =>
      next() < 0.9 ? pick(usual) : pick(rare);
    const separators = [' ', '-', '\t', '\u00a0', '\u3000', '\u2028', '\ufeff', ' - ', '--'];
    const notSeparators = ['.', '/', '_', '(', ')', '+', 'a', '\u200b'];
    const prefixes = ['0', '+964', '00964', '964'];
    const notPrefixes = ['+', '00', '0964', '+9640', '+961', '', '٠'];
    const asPublished = new RegExp(IRAQI_MOBILE_PATTERN, 'u');
    const mismatches: string[] = [];
    let accepted = 0;
    for (let i = 0; i < 20_000; i += 1) {
      const subscriber = Array.from({ length: often([9], [8, 10]) }, () =>
        often([...'0123456789'], [...'٠١٢٣٤٥٦٧٨٩']),
      );
      const characters = [...often(prefixes, notPrefixes), often(['7'], ['6', '٧']), ...subscriber];
      let typed = next() < 0.1 ? often(separators, notSeparators) : '';
      for (const character of characters) {
        typed += character;
        if (next() < 0.2) typed += next() < 0.97 ? pick(separators) : pick(notSeparators);
      }
      const expected = byCompacting(typed);
      if (normalizeIraqiMobile(typed) !== expected || asPublished.test(typed) !== (expected !== null)) {
        mismatches.push(JSON.stringify(typed));
      }
      if (expected !== null) accepted += 1;
    }
    expect(mismatches).toEqual([]);
    // Both sides of the rule are well represented.
    expect(accepted).toBeGreaterThan(4_000);
    expect(accepted).toBeLessThan(16_000);
  });
});
