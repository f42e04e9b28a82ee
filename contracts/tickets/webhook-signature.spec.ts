import { createHmac } from 'node:crypto';
import { signWebhook, verifyWebhook } from './webhook-signature';

describe('webhook signatures as the ticket document defines them', () => {
  const secret = 'whsec_test';
  const body = '{"id":"e1","event":"ticket.ready","data":{"ticket":{"id":1}}}';
  const now = 1_800_000_000;

  it('is sha256= and the hex HMAC-SHA256 of timestamp + "." + body', () => {
    const expected = createHmac('sha256', secret).update(`${now}.${body}`).digest('hex');
    expect(signWebhook(secret, now, body)).toBe(`sha256=${expected}`);
  });

  it('accepts a matching signature within 300 seconds either way', () => {
    for (const sentAt of [now, now - 300, now + 300]) {
      const verdict = verifyWebhook({
        secret,
        body,
        timestamp: String(sentAt),
        signature: signWebhook(secret, sentAt, body),
        nowSeconds: now,
      });
      expect(verdict).toEqual({ ok: true, timestamp: sentAt });
    }
  });

  it('refuses a timestamp more than 300 seconds away', () => {
    for (const sentAt of [now - 301, now + 301]) {
      expect(
        verifyWebhook({
          secret,
          body,
          timestamp: String(sentAt),
          signature: signWebhook(secret, sentAt, body),
          nowSeconds: now,
        }),
      ).toEqual({ ok: false, reason: 'stale-timestamp' });
    }
  });

  it('refuses another secret, another body, a re-serialised body and a signature of another timestamp', () => {
    const signature = signWebhook(secret, now, body);
    const check = (over: Partial<Parameters<typeof verifyWebhook>[0]>) =>
      verifyWebhook({ secret, body, timestamp: String(now), signature, nowSeconds: now, ...over });
    expect(check({ secret: 'whsec_other' })).toEqual({ ok: false, reason: 'bad-signature' });
    expect(check({ body: body.replace('ready', 'collected') })).toEqual({
      ok: false,
      reason: 'bad-signature',
    });
    expect(check({ body: JSON.stringify(JSON.parse(body), null, 2) })).toEqual({
      ok: false,
      reason: 'bad-signature',
    });
    expect(check({ timestamp: String(now - 1) })).toEqual({ ok: false, reason: 'bad-signature' });
    expect(check({ signature: signature.slice(0, -2) })).toEqual({ ok: false, reason: 'bad-signature' });
  });

  it('refuses missing or malformed headers', () => {
    const signature = signWebhook(secret, now, body);
    expect(verifyWebhook({ secret, body, timestamp: undefined, signature, nowSeconds: now })).toEqual({
      ok: false,
      reason: 'missing-headers',
    });
    expect(
      verifyWebhook({ secret, body, timestamp: String(now), signature: undefined, nowSeconds: now }),
    ).toEqual({
      ok: false,
      reason: 'missing-headers',
    });
    expect(verifyWebhook({ secret, body, timestamp: '17e8', signature, nowSeconds: now })).toEqual({
      ok: false,
      reason: 'bad-timestamp',
    });
  });
});
