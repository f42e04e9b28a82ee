import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { NextFunction, Request, Response } from 'express';
import { projectRoot } from '../../common/paths';
import { IMMUTABLE, sendAsset, type Asset } from '../../common/static-asset';

const TYPES = { js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8' } as const;

/** The bundled Naskh files by the names the stylesheets use. */
const FONTS = {
  'naskh-arabic-400.woff2': 'noto-naskh-arabic-arabic-400-normal.woff2',
  'naskh-arabic-700.woff2': 'noto-naskh-arabic-arabic-700-normal.woff2',
  'naskh-latin-400.woff2': 'noto-naskh-arabic-latin-400-normal.woff2',
  'naskh-latin-700.woff2': 'noto-naskh-arabic-latin-700-normal.woff2',
} as const;

export type FontName = keyof typeof FONTS;

/**
 * Scripts and styles of `rest-adapter/public/assets/` under content-hashed names (kept forever by
 * browsers), and the fonts they name, all served under `prefix` (such as `/t/assets`).
 */
export class PageAssetFiles {
  readonly files = new Map<string, Asset>();

  constructor(
    readonly prefix: string,
    fonts: readonly FontName[],
  ) {
    const dir = join(projectRoot(), 'node_modules', '@fontsource', 'noto-naskh-arabic', 'files');
    for (const font of fonts) {
      // Fonts keep their names (the stylesheet refers to them), so a week rather than forever.
      this.files.set(`fonts/${font}`, {
        body: readFileSync(join(dir, FONTS[font])),
        type: 'font/woff2',
        cacheControl: 'public, max-age=604800',
      });
    }
  }

  /** Adds `name` (`page.js`, `board.css`) and answers the path a page links it by. */
  hashed(name: `${string}.${keyof typeof TYPES}`): string {
    const body = readFileSync(join(projectRoot(), 'rest-adapter', 'public', 'assets', name));
    const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
    const served = name.replace(/\.(\w+)$/, `.${hash}.$1`);
    const type = TYPES[name.slice(name.lastIndexOf('.') + 1) as keyof typeof TYPES];
    this.files.set(served, { body, gzipped: gzipSync(body, { level: 9 }), type, cacheControl: IMMUTABLE });
    return `${this.prefix}/${served}`;
  }
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
