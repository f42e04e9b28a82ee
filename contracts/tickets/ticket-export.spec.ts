import { randomBytes } from 'node:crypto';
import {
  checkTicketExportLink,
  signTicketExportLink,
  TICKET_CSV_COLUMNS,
  TICKET_EXPORT_LINK_SECONDS,
  ticketExportUrl,
  type TicketExportLink,
} from './ticket-export';

describe('tickets CSV export links', () => {
  const secret = randomBytes(32).toString('base64url');
  const now = Date.UTC(2026, 10, 26, 4, 0, 0);
  const link: TicketExportLink = {
    branchId: 12,
    from: '2026-10-01T00:00:00.000Z',
    to: '2026-11-01T00:00:00.000Z',
    userId: 7,
    language: 'ar',
    expires: Math.floor(now / 1000) + TICKET_EXPORT_LINK_SECONDS,
  };
  const presented = (signer = secret) =>
    Object.fromEntries(new URL(ticketExportUrl('https://q.example.test', signer, link)).searchParams);

  it('opens a link the platform signed, within its minute', () => {
    expect(checkTicketExportLink(secret, presented(), now)).toEqual({ ok: true, link });
    expect(presented().signature).toBe(signTicketExportLink(secret, link));
  });

  it('refuses a link once its minute has passed', () => {
    expect(checkTicketExportLink(secret, presented(), now + 61_000)).toEqual({
      ok: false,
      reason: 'expired',
    });
  });

  it('refuses any value changed after signing, and a signature of another secret', () => {
    for (const [name, value] of [
      ['branch', '13'],
      ['from', '2025-10-01T00:00:00.000Z'],
      ['to', '2027-11-01T00:00:00.000Z'],
      ['user', '8'],
      ['lang', 'en'],
      ['expires', String(link.expires + 1)],
    ] as const) {
      expect(checkTicketExportLink(secret, { ...presented(), [name]: value }, now)).toEqual({
        ok: false,
        reason: 'invalid',
      });
    }
    expect(checkTicketExportLink(secret, presented(randomBytes(32).toString('base64url')), now)).toEqual({
      ok: false,
      reason: 'invalid',
    });
    expect(checkTicketExportLink(secret, { ...presented(), signature: undefined }, now).ok).toBe(false);
  });

  it('refuses an expiry further ahead than any signer sets, even when signed', () => {
    const far = { ...link, expires: link.expires + 3600 };
    const query = {
      ...presented(),
      expires: String(far.expires),
      signature: signTicketExportLink(secret, far),
    };
    expect(checkTicketExportLink(secret, query, now)).toEqual({ ok: false, reason: 'invalid' });
  });

  it('names the Ticket resource’s fields as the columns, in its order', () => {
    expect(TICKET_CSV_COLUMNS[0]).toBe('id');
    expect(TICKET_CSV_COLUMNS).toHaveLength(24);
    expect(TICKET_CSV_COLUMNS.at(-1)).toBe('updated_at');
  });
});
