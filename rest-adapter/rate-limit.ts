import { createHash } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import { countInWindow } from '../common/rate-window';
import type { Config } from '../common/config';
import type { Redis } from '../common/redis';

export interface RateLimitOptions {
  /** Names the policy in the headers and the Redis keys. */
  name: string;
  quota: number;
  windowSeconds: number;
  /** Who is counted: the credential when there is one, else the client address. */
  identify(req: Request): string | Promise<string>;
  /** The refusal, when it must travel to a router's own error handler instead of the default body. */
  refusal?: (req: Request, retryAfterSeconds: number) => Error;
}

/** Who sent a request when no credential says: its client address. */
export function byAddress(req: Request): string {
  return `ip:${req.ip ?? 'unknown'}`;
}

export function credentialOf(header: string | undefined, req: Request): string {
  if (header !== undefined && header !== '')
    return `key:${createHash('sha256').update(header).digest('hex')}`;
  return byAddress(req);
}

/**
 * Fixed-window counter in Redis, shared by every replica. Every response carries the IETF
 * httpapi draft headers (`RateLimit-Policy`, `RateLimit`); past the quota the answer is 429
 * with `Retry-After`.
 */
export function rateLimit(redis: Redis, redisPrefix: string, options: RateLimitOptions): RequestHandler {
  const policy = `"${options.name}";q=${options.quota};w=${options.windowSeconds}`;
  return (req, res, next) => {
    Promise.resolve(options.identify(req))
      .then((who) =>
        countInWindow(redis, `${redisPrefix}ratelimit:${options.name}:${who}`, options.windowSeconds),
      )
      .then(
        ({ count, ttl }) => {
          const remaining = Math.max(0, options.quota - count);
          res.setHeader('RateLimit-Policy', policy);
          res.setHeader('RateLimit', `"${options.name}";r=${remaining};t=${ttl}`);
          if (count <= options.quota) {
            next();
            return;
          }
          res.setHeader('Retry-After', String(ttl));
          if (options.refusal !== undefined) next(options.refusal(req, ttl));
          else res.status(429).json({ message: 'Too Many Attempts.' });
        },
        (error: unknown) => next(error),
      );
  };
}

/**
 * The public pages' one budget per client address (the ticket page, CV share pages, template
 * previews): `PUBLIC_RATE_LIMIT` requests a minute over all of them together.
 */
export function publicRateLimit(
  redis: Redis,
  config: Pick<Config, 'redisPrefix' | 'publicRateLimit'>,
): RequestHandler {
  return rateLimit(redis, config.redisPrefix, {
    name: 'public',
    quota: config.publicRateLimit,
    windowSeconds: 60,
    identify: byAddress,
  });
}
