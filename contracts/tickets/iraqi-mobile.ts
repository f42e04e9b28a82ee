/** What may stand between and around the digits of a typed number: spaces of any kind and dashes. */
const SEPARATORS = '[\\s-]*';

/** The characters of a prefix, separators allowed between them. */
const spaced = (...characters: string[]) => characters.join(SEPARATORS);

/** The country code as typed (+964, 00964, 964), or the national trunk 0. */
const PREFIX = `(?:${spaced('\\+', '9', '6', '4')}|${spaced('0', '0', '9', '6', '4')}|${spaced('9', '6', '4')}|0)`;

/**
 * An Iraqi mobile number in any of the forms people type it (07XXXXXXXXX, +9647XXXXXXXXX,
 * 009647XXXXXXXXX, 9647XXXXXXXXX, with spaces or dashes anywhere), as an ECMA-262 pattern: the
 * test normalizeIraqiMobile applies, and what the ticket document publishes for `customer_phone`,
 * so the two cannot differ.
 */
export const IRAQI_MOBILE_PATTERN = `^${SEPARATORS}${PREFIX}${SEPARATORS}7(?:${SEPARATORS}[0-9]){9}${SEPARATORS}$`;

const IRAQI_MOBILE = new RegExp(IRAQI_MOBILE_PATTERN);

/** An Iraqi mobile number as typed (IRAQI_MOBILE_PATTERN) → E.164 (+9647XXXXXXXXX), or null. */
export function normalizeIraqiMobile(input: string): string | null {
  if (!IRAQI_MOBILE.test(input)) return null;
  // Whatever the prefix, the number itself is the last ten digits, 7 first.
  return `+964${input.replace(/[^0-9]/g, '').slice(-10)}`;
}
