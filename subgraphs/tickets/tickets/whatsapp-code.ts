import { randomInt } from 'node:crypto';

/**
 * A ticket's WhatsApp code: what the customer's prefilled message carries so the chat it comes
 * from can be linked to the ticket. Random, so not guessable from the ticket's number: 8 characters
 * of 31 that no one misreads (no 0/O, 1/I/L), about 8.5 × 10^11 codes, stored without the dash
 * and shown as XXXX-XXXX.
 */
export const WHATSAPP_CODE_ALPHABET = '23456789ABCDEFGHJKMNPQRSTUVWXYZ';
export const WHATSAPP_CODE_LENGTH = 8;

/** How many candidates one message may name before the rest are ignored. */
const MAX_CANDIDATES = 8;

const HALF = WHATSAPP_CODE_LENGTH / 2;
const IN_ALPHABET = new RegExp(`^[${WHATSAPP_CODE_ALPHABET}]+$`);

/** A new code as stored: 8 characters, no dash. */
export function newWhatsAppCode(): string {
  let code = '';
  for (let i = 0; i < WHATSAPP_CODE_LENGTH; i++) {
    code += WHATSAPP_CODE_ALPHABET[randomInt(WHATSAPP_CODE_ALPHABET.length)];
  }
  return code;
}

/** "K7Q2M9XD" → "K7Q2-M9XD", as the customer reads it. */
export function formatWhatsAppCode(code: string): string {
  return `${code.slice(0, HALF)}-${code.slice(HALF)}`;
}

/** Arabic-Indic (٠–٩) and Eastern Arabic-Indic (۰–۹) digits as ASCII, letters upper-cased. */
function normalized(text: string): string {
  return text
    .replace(/[\u0660-\u0669]/g, (d) => String(d.charCodeAt(0) - 0x0660))
    .replace(/[\u06f0-\u06f9]/g, (d) => String(d.charCodeAt(0) - 0x06f0))
    .toUpperCase();
}

/**
 * The codes a customer's text may carry, as stored, in the order they appear: a run of 8 letters
 * and digits of the alphabet, or two runs of 4 with anything but letters and digits between them
 * (a dash, spaces, a dot), whatever the case and whichever digits. Words of the message around it
 * ("Code:", the order number, Arabic) are never mistaken for one unless they fit the same shape,
 * and then the database knows no ticket by them.
 */
export function whatsAppCodesIn(text: string): string[] {
  const runs = normalized(text.slice(0, 4096)).split(/[^A-Z0-9]+/);
  const found: string[] = [];
  const add = (code: string) => {
    if (IN_ALPHABET.test(code) && !found.includes(code)) found.push(code);
  };
  runs.forEach((run, i) => {
    if (run.length === WHATSAPP_CODE_LENGTH) add(run);
    const next = runs[i + 1];
    if (run.length === HALF && next?.length === HALF) add(run + next);
  });
  return found.slice(0, MAX_CANDIDATES);
}
