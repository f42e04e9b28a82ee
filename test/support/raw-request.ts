import { request as httpRequest } from 'node:http';
import { isDeepStrictEqual } from 'node:util';

/** An answer as it came off the wire. */
export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * One raw request, sent byte for byte, so two servers compared (a front door's way and express's)
 * see exactly the same thing.
 */
export function sendRaw(
  url: string,
  options: {
    method?: string;
    path?: string;
    headers: Record<string, string | number>;
    body?: Buffer | string;
  },
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const req = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: options.method ?? 'POST',
        path: options.path ?? '/graphql',
        headers: options.headers,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString(),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** Headers whose values may differ between two answers to the same request. */
const VARYING = new Set(['date', 'ratelimit', 'ratelimit-policy', 'keep-alive', 'connection']);

/**
 * What two ways must agree on for one request: status, headers (their values but for those that
 * vary by the moment, the rate-limit headers by name) and body, with what `minted` matches (ids a
 * write made anew on each side) written out as "…".
 */
export function comparable(answer: RawAnswer, minted?: RegExp): unknown {
  const headers = Object.fromEntries(
    Object.entries(answer.headers)
      .filter(([name]) => !VARYING.has(name))
      .map(([name, value]) => [name, name === 'content-length' ? 'n' : value]),
  );
  const named = Object.keys(answer.headers)
    .filter((name) => name.startsWith('ratelimit'))
    .sort();
  const body = minted === undefined ? answer.body : answer.body.replace(minted, '"$1":"…"');
  return { status: answer.status, headers, named, body };
}

/**
 * A count that failed open: the budget named (RateLimit-Policy) without what is left of it
 * (RateLimit), as common/rate-budget.ts answers when Redis gave no count within its allowance.
 */
const failedOpen = (answer: RawAnswer): boolean =>
  answer.headers['ratelimit-policy'] !== undefined && answer.headers.ratelimit === undefined;

/** How often a pair is sent while one side's count fails open. */
const PAIR_ATTEMPTS = 3;

/**
 * Sends one request to a front door's way and to express's, one after the other: the door's answer,
 * and a line naming the request and both answers when they do not agree (`comparable`). A pair in
 * which one side's count failed open is sent again: on a busy machine Redis may miss a count's
 * allowance on either side, which says nothing of the door, and the pair sent again must agree whole.
 */
export async function sendBothWays(
  name: string,
  urls: { door: string; express: string },
  options: Parameters<typeof sendRaw>[1],
  minted?: RegExp,
): Promise<{ door: RawAnswer; difference?: string }> {
  for (let attempt = 1; ; attempt++) {
    const door = await sendRaw(urls.door, options);
    const express = await sendRaw(urls.express, options);
    const [a, b] = [comparable(door, minted), comparable(express, minted)];
    if (isDeepStrictEqual(a, b)) return { door };
    if (attempt < PAIR_ATTEMPTS && failedOpen(door) !== failedOpen(express)) continue;
    return { door, difference: `${name}:\n  door    ${JSON.stringify(a)}\n  express ${JSON.stringify(b)}` };
  }
}
