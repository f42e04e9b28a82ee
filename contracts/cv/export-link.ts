import { createHmac, timingSafeEqual } from 'node:crypto';

/** How long a download link works: long enough for a browser to follow it, too short to pass around. */
export const EXPORT_LINK_SECONDS = 60;

/** Processes' clocks may differ this much; beyond it a link's expiry is not one a signer set. */
const CLOCK_SKEW_SECONDS = 5;

/** The formats a link exports, as the REST routes spell them (`/cvs/{uuid}/pdf`, `/html`). */
export type ExportLinkFormat = 'pdf' | 'html';

/** What a download link grants: one CV of one account, in one format, until `expires`. */
export interface ExportLink {
  cvId: string;
  format: ExportLinkFormat;
  accountId: string;
  /** Unix time in seconds after which the link is refused. */
  expires: number;
}

/** A link as it arrives: the query values beside the path's UUID and format. */
export interface PresentedExportLink {
  cvId: string;
  format: ExportLinkFormat;
  accountId: string;
  expires: string;
  signature: string;
}

export type ExportLinkVerdict = { ok: true; link: ExportLink } | { ok: false; reason: 'invalid' | 'expired' };

/**
 * The links' own key, derived from INTERNAL_SECRET: every process that holds the platform's
 * credential can sign and check links without a second secret, and a link's signature reveals
 * nothing usable as the credential itself.
 */
function linkKey(internalSecret: string): Buffer {
  return createHmac('sha256', internalSecret).update('cv-export-link/v1').digest();
}

/** base64url HMAC-SHA256 of `uuid \n format \n account \n expires`, the UUID in lower case. */
export function signExportLink(internalSecret: string, link: ExportLink): string {
  return createHmac('sha256', linkKey(internalSecret))
    .update([link.cvId.toLowerCase(), link.format, link.accountId, String(link.expires)].join('\n'))
    .digest('base64url');
}

/** The link's address on the REST adapter, whose export route serves it without a key. */
export function exportLinkUrl(publicBaseUrl: string, internalSecret: string, link: ExportLink): string {
  const query = new URLSearchParams({
    expires: String(link.expires),
    account: link.accountId,
    signature: signExportLink(internalSecret, link),
  });
  return `${publicBaseUrl}/api/v1/cvs/${encodeURIComponent(link.cvId.toLowerCase())}/${link.format}?${query}`;
}

/**
 * Whether a presented link was signed by the platform and is still within its time. `accepted`
 * is the primary secret and, during a rotation, the secondary: a link signed just before a process
 * changed its primary still opens for its minute. The signature is compared in constant time with
 * each; an expiry further ahead than any signer sets is refused too, so no link outlives
 * EXPORT_LINK_SECONDS even if the rule that signs changes.
 */
export function checkExportLink(
  accepted: string | readonly string[],
  presented: PresentedExportLink,
  nowMs: number = Date.now(),
): ExportLinkVerdict {
  if (!/^\d{1,12}$/.test(presented.expires) || !/^[1-9]\d{0,15}$/.test(presented.accountId)) {
    return { ok: false, reason: 'invalid' };
  }
  const link: ExportLink = {
    cvId: presented.cvId,
    format: presented.format,
    accountId: presented.accountId,
    expires: Number(presented.expires),
  };
  const given = Buffer.from(presented.signature);
  let signed = false;
  for (const secret of typeof accepted === 'string' ? [accepted] : accepted) {
    const expected = Buffer.from(signExportLink(secret, link));
    signed = (given.length === expected.length && timingSafeEqual(given, expected)) || signed;
  }
  if (!signed) return { ok: false, reason: 'invalid' };
  const now = Math.floor(nowMs / 1000);
  if (link.expires > now + EXPORT_LINK_SECONDS + CLOCK_SKEW_SECONDS) return { ok: false, reason: 'invalid' };
  if (link.expires < now) return { ok: false, reason: 'expired' };
  return { ok: true, link };
}
