import { createHmac, timingSafeEqual } from 'node:crypto';

/** The document's receiver rule: a timestamp more than this far from now is refused. */
export const SIGNATURE_MAX_AGE_SECONDS = 300;

export const TIMESTAMP_HEADER = 'X-Service-Timestamp';
export const SIGNATURE_HEADER = 'X-Service-Signature';
export const EVENT_HEADER = 'X-Service-Event';
export const EVENT_ID_HEADER = 'X-Service-Event-Id';

/** `sha256=` + hex HMAC-SHA256 of `timestamp + "." + body`, keyed with the endpoint's secret. */
export function signWebhook(secret: string, timestamp: number, body: string | Buffer): string {
  const hmac = createHmac('sha256', secret);
  hmac.update(`${timestamp}.`);
  hmac.update(body);
  return `sha256=${hmac.digest('hex')}`;
}

export type WebhookVerdict =
  | { ok: true; timestamp: number }
  | { ok: false; reason: 'missing-headers' | 'bad-timestamp' | 'stale-timestamp' | 'bad-signature' };

/**
 * The receiver's check, as the document states it: the signature must match (compared in constant
 * time), and the timestamp must be within 300 seconds of now, in either direction. Pass the raw
 * body bytes exactly as received: a re-serialised JSON body does not verify.
 *
 *   const verdict = verifyWebhook({
 *     secret: process.env.SIGNING_SECRET,
 *     body: rawBody,
 *     timestamp: req.headers['x-service-timestamp'],
 *     signature: req.headers['x-service-signature'],
 *   });
 *   if (!verdict.ok) return res.status(400).end();
 */
export function verifyWebhook({
  secret,
  body,
  timestamp,
  signature,
  nowSeconds = Math.floor(Date.now() / 1000),
  maxAgeSeconds = SIGNATURE_MAX_AGE_SECONDS,
}: {
  secret: string;
  body: string | Buffer;
  timestamp: string | string[] | undefined;
  signature: string | string[] | undefined;
  nowSeconds?: number;
  maxAgeSeconds?: number;
}): WebhookVerdict {
  if (typeof timestamp !== 'string' || typeof signature !== 'string') {
    return { ok: false, reason: 'missing-headers' };
  }
  if (!/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: 'bad-timestamp' };
  const sentAt = Number(timestamp);
  if (Math.abs(nowSeconds - sentAt) > maxAgeSeconds) return { ok: false, reason: 'stale-timestamp' };
  const expected = Buffer.from(signWebhook(secret, sentAt, body), 'utf8');
  const given = Buffer.from(signature, 'utf8');
  // timingSafeEqual needs equal lengths; the length of a well-formed signature is public anyway.
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return { ok: false, reason: 'bad-signature' };
  }
  return { ok: true, timestamp: sentAt };
}
