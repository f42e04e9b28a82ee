import type { Request, Response } from 'express';

/** A file a page loads (a script, a style, a font), ready to send as is or gzipped. */
export interface Asset {
  body: Buffer;
  gzipped?: Buffer;
  type: string;
  cacheControl: string;
}

/** For files whose name carries a hash of their content: a new content is a new name. */
export const IMMUTABLE = 'public, max-age=31536000, immutable';

export function sendAsset(req: Request, res: Response, asset: Asset): void {
  res.setHeader('Content-Type', asset.type);
  res.setHeader('Cache-Control', asset.cacheControl);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Vary', 'Accept-Encoding');
  if (asset.gzipped !== undefined && /\bgzip\b/.test(req.get('accept-encoding') ?? '')) {
    res.setHeader('Content-Encoding', 'gzip');
    res.end(asset.gzipped);
    return;
  }
  res.end(asset.body);
}
