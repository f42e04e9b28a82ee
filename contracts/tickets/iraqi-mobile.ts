/**
 * An Iraqi mobile number in any of the forms people type it (07XXXXXXXXX, +9647XXXXXXXXX,
 * 009647XXXXXXXXX, 9647XXXXXXXXX, with spaces or dashes) → E.164 (+9647XXXXXXXXX), or null.
 */
export function normalizeIraqiMobile(input: string): string | null {
  const compact = input.trim().replace(/[\s-]+/g, '');
  const match = /^(?:\+964|00964|964|0)(7\d{9})$/.exec(compact);
  return match ? `+964${match[1]}` : null;
}
