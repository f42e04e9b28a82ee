import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';

/** True when If-None-Match names the tag (or is `*`); weak and strong forms compare alike. */
function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  return ifNoneMatch
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .some((tag) => tag === '*' || tag === etag);
}

/**
 * Sends a JSON body clients may keep (cv-api.md: template and plan lists change rarely): an ETag
 * of its bytes and Cache-Control; a request that already holds these bytes gets 304 and no body.
 */
export function sendCacheable(req: Request, res: Response, body: unknown, cacheControl: string): void {
  const json = JSON.stringify(body);
  const etag = `"${createHash('sha256').update(json).digest('base64url').slice(0, 27)}"`;
  res.setHeader('ETag', etag);
  res.setHeader('Cache-Control', cacheControl);
  if (matches(req.get('if-none-match'), etag)) {
    res.status(304).end();
    return;
  }
  res.type('application/json').send(json);
}
