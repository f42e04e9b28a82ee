import { randomBytes } from 'node:crypto';
import { checkExportLink, signExportLink, type ExportLink } from './export-link';

describe('export links across a rotation of INTERNAL_SECRET', () => {
  const previous = randomBytes(32).toString('base64url');
  const next = randomBytes(32).toString('base64url');
  const now = Date.UTC(2026, 10, 26, 4, 0, 0);
  const link: ExportLink = {
    cvId: '7D1B3C4E-1111-4222-8333-444455556666',
    format: 'pdf',
    accountId: '42',
    expires: Math.floor(now / 1000) + 30,
  };
  const presented = (secret: string) => ({
    cvId: link.cvId,
    format: link.format,
    accountId: link.accountId,
    expires: String(link.expires),
    signature: signExportLink(secret, link),
  });

  it('opens a link signed with either accepted secret, so one signed just before a swap still works', () => {
    for (const signer of [previous, next]) {
      expect(checkExportLink([next, previous], presented(signer), now)).toEqual({ ok: true, link });
    }
  });

  it('refuses a link signed with a secret no longer accepted', () => {
    expect(checkExportLink([next], presented(previous), now)).toEqual({ ok: false, reason: 'invalid' });
    expect(checkExportLink(next, presented(previous), now)).toEqual({ ok: false, reason: 'invalid' });
  });

  it('refuses a signature changed in any way whichever secrets are accepted', () => {
    const signed = presented(previous);
    const altered = { ...signed, signature: `${signed.signature.slice(0, -1)}A` };
    const other = altered.signature === signed.signature ? { ...signed, signature: 'x' } : altered;
    expect(checkExportLink([next, previous], other, now)).toEqual({ ok: false, reason: 'invalid' });
    expect(checkExportLink([next, previous], { ...signed, accountId: '43' }, now)).toEqual({
      ok: false,
      reason: 'invalid',
    });
  });
});
