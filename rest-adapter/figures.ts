/**
 * How the documents' prose spells a figure that the code decides elsewhere (a limit, a timeout, a
 * budget), so a description is built from the value that is enforced rather than a copy of it.
 */

const KIB = 1024;
const MIB = 1024 * KIB;

/** `4 MB`, `512 KB`, or bytes when neither is whole (the documents' MB is 1024 × 1024 bytes). */
export function bytesInWords(bytes: number): string {
  if (bytes % MIB === 0) return `${bytes / MIB} MB`;
  if (bytes % KIB === 0) return `${bytes / KIB} KB`;
  return `${bytes} bytes`;
}

/** `30 seconds`, `1.5 seconds`, `1 second`. */
export function secondsInWords(seconds: number): string {
  return `${seconds} second${seconds === 1 ? '' : 's'}`;
}

/** `24 hours`, `1 hour`. */
export function hoursInWords(hours: number): string {
  return `${hours} hour${hours === 1 ? '' : 's'}`;
}

/** A budget's window after its count: `a minute` for 60 seconds, `in 90 seconds` otherwise. */
export function perWindow(windowSeconds: number): string {
  return windowSeconds === 60 ? 'a minute' : `in ${secondsInWords(windowSeconds)}`;
}
