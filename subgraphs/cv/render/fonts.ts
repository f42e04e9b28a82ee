import { readFileSync } from 'node:fs';
import type { CV_FONT_FAMILIES } from '../../../contracts/cv/cv.payload';

export type FontFamily = (typeof CV_FONT_FAMILIES)[number];

/** The one family name the document's CSS uses; each face below claims its part of Unicode. */
export const CV_FONT = 'CV Text';

type Subset = 'arabic' | 'latin' | 'latin-ext';

/** @fontsource's ranges for its subsets, so a face is only asked for the characters it has. */
const RANGES: Record<Subset, string> = {
  arabic:
    'U+0600-06FF,U+0750-077F,U+0870-088E,U+0890-0891,U+0897-08E1,U+08E3-08FF,U+200C-200E,U+2010-2011,U+204F,U+2E41,U+FB50-FDFF,U+FE70-FE74,U+FE76-FEFC,U+102E0-102FB,U+10E60-10E7E,U+10EC2-10EC4,U+10EFC-10EFF,U+1EE00-1EEFF',
  latin:
    'U+0000-00FF,U+0131,U+0152-0153,U+02BB-02BC,U+02C6,U+02DA,U+02DC,U+0304,U+0308,U+0329,U+2000-206F,U+20AC,U+2122,U+2191,U+2193,U+2212,U+2215,U+FEFF,U+FFFD',
  'latin-ext':
    'U+0100-02BA,U+02BD-02C5,U+02C7-02CC,U+02CE-02D7,U+02DD-02FF,U+0304,U+0308,U+0329,U+1D00-1DBF,U+1E00-1E9F,U+1EF2-1EFF,U+2020,U+20A0-20AB,U+20AD-20C0,U+2113,U+2C60-2C7F,U+A720-A7FF',
};

/** Characters that send a document to the latin-ext files: the range above, minus what latin has. */
const LATIN_EXT_CHARS =
  /[\u0100-\u0130\u0132-\u0151\u0154-\u02BA\u02BD-\u02C5\u1D00-\u1DBF\u1E00-\u1EFF\u2C60-\u2C7F\uA720-\uA7FF]/;
const ARABIC_CHARS = /[\u0600-\u06FF\u0750-\u077F\u0870-\u08FF\uFB50-\uFDFF\uFE70-\uFEFC]/;

/**
 * Where each family takes its Latin letters. Arabic is always Amiri (cv.payload.ts says why).
 * Amiri's Arabic is drawn small on its body, so it is scaled to sit level with the Latin faces.
 */
const FACES: Record<FontFamily | 'arabic', { name: string; sizeAdjust: string }> = {
  naskh: { name: 'amiri', sizeAdjust: '108%' },
  sans: { name: 'noto-sans', sizeAdjust: '100%' },
  serif: { name: 'noto-serif', sizeAdjust: '100%' },
  arabic: { name: 'amiri', sizeAdjust: '118%' },
};

const WEIGHTS = [400, 700] as const;

/** Base64 of each file, read once per process: every export of every CV inlines the same bytes. */
const cache = new Map<string, string>();

function fontData(name: string, file: string): string {
  const key = `${name}/${file}`;
  let data = cache.get(key);
  if (data === undefined) {
    data = readFileSync(require.resolve(`@fontsource/${name}/files/${file}`)).toString('base64');
    cache.set(key, data);
  }
  return data;
}

function face(face: (typeof FACES)[keyof typeof FACES], subset: Subset, weight: number): string {
  const data = fontData(face.name, `${face.name}-${subset}-${weight}-normal.woff2`);
  return (
    `@font-face{font-family:'${CV_FONT}';font-style:normal;font-weight:${weight};font-display:block;` +
    `size-adjust:${face.sizeAdjust};src:url(data:font/woff2;base64,${data}) format('woff2');` +
    `unicode-range:${RANGES[subset]};}`
  );
}

/** What the text of a document asks of the fonts. */
export interface FontNeeds {
  family: FontFamily;
  arabic: boolean;
  latinExt: boolean;
}

/** Reads the needs off the document's text: an English CV without Arabic carries no Arabic face. */
export function fontNeedsOf(family: FontFamily, locale: 'ar' | 'en', text: string): FontNeeds {
  return { family, arabic: locale === 'ar' || ARABIC_CHARS.test(text), latinExt: LATIN_EXT_CHARS.test(text) };
}

/**
 * The `@font-face` rules for a document, fonts inlined as data: URIs: an exported HTML file must
 * open anywhere, and Chromium must fetch nothing while printing. The Arabic face is declared after
 * the Latin one because, where ranges overlap (joiners, directional marks), the last rule wins,
 * and those characters belong to Arabic shaping.
 */
export function fontFaceCss(needs: FontNeeds): string {
  const subsets: Subset[] = needs.latinExt ? ['latin', 'latin-ext'] : ['latin'];
  const rules: string[] = [];
  for (const weight of WEIGHTS) {
    for (const subset of subsets) rules.push(face(FACES[needs.family], subset, weight));
    if (needs.arabic) rules.push(face(FACES.arabic, 'arabic', weight));
  }
  return rules.join('\n');
}
