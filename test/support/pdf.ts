import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Bidi controls a PDF's text may carry around isolated runs; they are not part of what was written. */
const BIDI_CONTROLS = /[\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

function withFile<T>(pdf: Buffer, read: (path: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'nida-pdf-'));
  try {
    const path = join(dir, 'file.pdf');
    writeFileSync(path, pdf);
    return read(path);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The PDF's text exactly as pdftotext writes it: finding a value here also proves no bidi control splits it. */
export function pdfRawText(pdf: Buffer, page?: number): string {
  return withFile(pdf, (path) =>
    execFileSync('pdftotext', [
      '-enc',
      'UTF-8',
      ...(page ? ['-f', String(page), '-l', String(page)] : []),
      path,
      '-',
    ]).toString(),
  );
}

/** The PDF's text as poppler extracts it, in logical order, without bidi controls. */
export function pdfText(pdf: Buffer, page?: number): string {
  return pdfRawText(pdf, page).replace(BIDI_CONTROLS, '');
}

/** `pdfinfo`'s fields: Title, Pages, Page size, Tagged… */
export function pdfInfo(pdf: Buffer): Record<string, string> {
  return withFile(pdf, (path) =>
    Object.fromEntries(
      execFileSync('pdfinfo', [path])
        .toString()
        .split('\n')
        .map((line) => /^([^:]+):\s*(.*)$/.exec(line))
        .filter((match) => match !== null)
        .map((match) => [match[1]!, match[2]!]),
    ),
  );
}

/** Every font of the PDF with whether it is embedded (`pdffonts`' emb column). */
export function pdfFonts(pdf: Buffer): { name: string; embedded: boolean }[] {
  return withFile(pdf, (path) =>
    execFileSync('pdffonts', [path])
      .toString()
      .split('\n')
      .slice(2)
      .filter((line) => line.trim() !== '')
      .map((line) => {
        const columns = line.trim().split(/\s+/);
        // name type [encoding…] emb sub uni object ID: emb is the fifth column from the end.
        return { name: columns[0]!, embedded: columns[columns.length - 5] === 'yes' };
      }),
  );
}
