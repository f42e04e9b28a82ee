import type { Request } from 'express';
import type { TextLanguage } from '../../common/language';

/** What the customer's ticket page accepts: its language, the QR image's size and its writes' bodies. */

/** 58 mm receipt printers are 384 dots wide, 80 mm ones 576. */
export const QR_SIZES = { default: 384, min: 128, max: 1024 } as const;

/** Field → messages of a refused write, answered 422. */
export type WriteErrors = Record<string, string[]>;

/** A write's body as the graph takes it, or why it cannot be. */
export type Checked<T> = { value: T; errors?: undefined } | { value?: undefined; errors: WriteErrors };

/**
 * Arabic unless the customer asks otherwise: `?lang=` (the page's toggle) wins, then the first of
 * ar or en in Accept-Language.
 */
export function pageLanguage(query: unknown, acceptLanguage: string | undefined): TextLanguage {
  if (query === 'en' || query === 'ar') return query;
  for (const part of (acceptLanguage ?? '').split(',')) {
    const tag = part.split(';')[0]?.trim().toLowerCase() ?? '';
    if (tag === 'ar' || tag.startsWith('ar-')) return 'ar';
    if (tag === 'en' || tag.startsWith('en-')) return 'en';
  }
  return 'ar';
}

/** The QR image's size in pixels, or the message refusing `?size=`. */
export function qrSizeOf(size: unknown): number | { message: string } {
  if (size === undefined) return QR_SIZES.default;
  const pixels = Number(size);
  if (!Number.isInteger(pixels) || pixels < QR_SIZES.min || pixels > QR_SIZES.max) {
    return { message: `The size must be a whole number of pixels from ${QR_SIZES.min} to ${QR_SIZES.max}.` };
  }
  return pixels;
}

/** A write's JSON body as an object; anything else reads as one without fields. */
export function writeBody(req: Request): Record<string, unknown> {
  return typeof req.body === 'object' && req.body !== null && !Array.isArray(req.body)
    ? (req.body as Record<string, unknown>)
    : {};
}

/** `POST /t/{token}/push`: PushSubscription.toJSON() as the browser gives it. */
export function pushSubscriptionOf(
  body: Record<string, unknown>,
): Checked<{ endpoint: string; p256dh: string; auth: string }> {
  const { endpoint, keys } = body as { endpoint?: unknown; keys?: { p256dh?: unknown; auth?: unknown } };
  const errors: WriteErrors = {};
  if (typeof endpoint !== 'string') errors.endpoint = ['The endpoint field is required.'];
  if (typeof keys?.p256dh !== 'string') errors['keys.p256dh'] = ['The keys.p256dh field is required.'];
  if (typeof keys?.auth !== 'string') errors['keys.auth'] = ['The keys.auth field is required.'];
  if (Object.keys(errors).length > 0) return { errors };
  return {
    value: { endpoint: endpoint as string, p256dh: keys!.p256dh as string, auth: keys!.auth as string },
  };
}

/** `POST /t/{token}/feedback`: a whole rating and an optional comment; the graph judges their values. */
export function feedbackOf(
  body: Record<string, unknown>,
): Checked<{ rating: number; comment: string | null }> {
  const { rating, comment } = body;
  const errors: WriteErrors = {};
  if (typeof rating !== 'number' || !Number.isInteger(rating)) {
    errors.rating = ['The rating must be 1, 2, 3, 4 or 5.'];
  }
  if (comment !== undefined && comment !== null && typeof comment !== 'string') {
    errors.comment = ['The comment must be a string.'];
  }
  if (Object.keys(errors).length > 0) return { errors };
  return { value: { rating: rating as number, comment: (comment as string | null | undefined) ?? null } };
}
