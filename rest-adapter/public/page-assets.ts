import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { NextFunction, Request, Response } from 'express';
import { projectRoot } from '../../common/paths';
import { IMMUTABLE, sendAsset, type Asset } from '../../common/static-asset';

const TYPES = { js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8' } as const;

/**
 * The characters each of Naskh's files covers, in the order their faces are declared: where the
 * ranges overlap (punctuation, joiners), the face declared last, Latin, is tried first.
 */
const NASKH_SCRIPTS = {
  arabic:
    'U+0600-06FF, U+0750-077F, U+0870-088E, U+0890-0891, U+0898-08E1, U+08E3-08FF, U+200C-200E, ' +
    'U+2010-2011, U+204F, U+2E41, U+FB50-FDFF, U+FE70-FE74, U+FE76-FEFC',
  latin:
    'U+0000-00FF, U+0131, U+0152-0153, U+02BB-02BC, U+02C6, U+02DA, U+02DC, U+2000-206F, U+20AC, ' +
    'U+2122, U+2191, U+2193, U+2212, U+2215, U+FEFF, U+FFFD',
};

/** The weights of Naskh a page may declare; a page without 700 gets its bold drawn from 400. */
export type NaskhWeight = 400 | 700;

/**
 * Scripts and styles of `rest-adapter/public/assets/` under content-hashed names (kept forever by
 * browsers), and the Naskh fonts their faces name, all served under `prefix` (such as `/t/assets`).
 */
export class PageAssetFiles {
  readonly files = new Map<string, Asset>();

  constructor(readonly prefix: string) {}

  /** Adds `name` (`page.js`) and answers the path a page links it by. */
  hashed(name: `${string}.js`): string {
    return this.add(name, this.read(name));
  }

  /**
   * Adds the page's stylesheet `name` after Naskh's `@font-face` rules in `weights`, as one file,
   * and the font files those rules name; answers the path the page links it by. Every page's faces
   * are written here, so the pages' sheets differ only in the weights they ask for.
   */
  stylesheet(name: `${string}.css`, weights: readonly NaskhWeight[]): string {
    const faces: string[] = [];
    for (const [script, ranges] of Object.entries(NASKH_SCRIPTS)) {
      for (const weight of weights) {
        const font = `naskh-${script}-${weight}.woff2`;
        this.addFont(font, `noto-naskh-arabic-${script}-${weight}-normal.woff2`);
        faces.push(
          `@font-face {\n  font-family: 'Naskh';\n  font-weight: ${weight};\n  font-display: swap;\n` +
            `  src: url(fonts/${font}) format('woff2');\n  unicode-range: ${ranges};\n}\n`,
        );
      }
    }
    return this.add(name, Buffer.concat([Buffer.from(faces.join('')), this.read(name)]));
  }

  private add(name: `${string}.${keyof typeof TYPES}`, body: Buffer): string {
    const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
    const served = name.replace(/\.(\w+)$/, `.${hash}.$1`);
    const type = TYPES[name.slice(name.lastIndexOf('.') + 1) as keyof typeof TYPES];
    this.files.set(served, { body, gzipped: gzipSync(body, { level: 9 }), type, cacheControl: IMMUTABLE });
    return `${this.prefix}/${served}`;
  }

  private read(name: string): Buffer {
    return readFileSync(join(projectRoot(), 'rest-adapter', 'public', 'assets', name));
  }

  /** Fonts keep their names (the stylesheet refers to them), so a week rather than forever. */
  private addFont(name: string, bundled: string): void {
    this.files.set(`fonts/${name}`, {
      body: readFileSync(
        join(projectRoot(), 'node_modules', '@fontsource', 'noto-naskh-arabic', 'files', bundled),
      ),
      type: 'font/woff2',
      cacheControl: 'public, max-age=604800',
    });
  }
}

/**
 * The staff board's service worker (`assets/board-sw.js`) for this release: it keeps `paths` and
 * the fonts their stylesheets name, under a cache named by the hash of all of them, so a new
 * release installs beside the old one and replaces it whole, never a page with another's files.
 */
export function boardWorker(assets: PageAssetFiles, paths: readonly string[]): Asset {
  const fonts = new Set<string>();
  for (const path of paths) {
    const asset = assets.files.get(path.slice(assets.prefix.length + 1));
    for (const [, font] of asset?.body.toString().matchAll(/url\((fonts\/[^)]+)\)/g) ?? []) {
      fonts.add(`${assets.prefix}/${font}`);
    }
  }
  const precache = [...paths, ...fonts];
  const script = readFileSync(join(projectRoot(), 'rest-adapter', 'public', 'assets', 'board-sw.js'));
  const release = createHash('sha256').update(precache.join('\n')).update(script).digest('hex').slice(0, 12);
  const body = Buffer.concat([
    Buffer.from(`var RELEASE = '${release}';\nvar PRECACHE = ${JSON.stringify(precache)};\n`),
    script,
  ]);
  // Checked on every start of the board: a new release is found at once.
  return { body, gzipped: gzipSync(body, { level: 9 }), type: TYPES.js, cacheControl: 'no-cache' };
}

/** A strict policy: only the project's own files, and the gateway's socket for live updates. */
export function contentSecurityPolicy(liveUrl: string): string {
  const live = new URL(liveUrl);
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "font-src 'self'",
    "img-src 'self'",
    "worker-src 'self'",
    "manifest-src 'none'",
    `connect-src 'self' ${live.protocol}//${live.host}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** Answers `GET <prefix>/*path` from `files`, or passes on to the next route (a 404). */
export function sendAssetAt(
  req: Request<{ path: string[] }>,
  res: Response,
  files: Map<string, Asset>,
  next: NextFunction,
): void {
  const asset = files.get(req.params.path.join('/'));
  if (asset === undefined) {
    next();
    return;
  }
  sendAsset(req, res, asset);
}
