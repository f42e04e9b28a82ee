import { normalizeIraqiMobile } from './iraqi-mobile';

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
