import { randomBytes } from 'node:crypto';
import { parseSchedule } from '../../../common/config';
import { seal, unseal, unsealWithEither } from './secret-box';
import { parseEvents } from './webhook-events';
import { checkWebhookUrlForm, isPublicAddress } from '../../../common/outbound-url';
import { retryDelayMs } from './delivery-rows';

describe('webhook building blocks', () => {
  it('tells public addresses from loopback, private, link-local, metadata and reserved ones', () => {
    for (const address of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) {
      expect([address, isPublicAddress(address)]).toEqual([address, true]);
    }
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '::1',
      '::',
      'fd00:ec2::254',
      'fe80::1',
      '::ffff:127.0.0.1',
      '::ffff:169.254.169.254',
      'not an address',
    ]) {
      expect([address, isPublicAddress(address)]).toEqual([address, false]);
    }
  });

  it('allows http only when insecure delivery is allowed', () => {
    expect(() => checkWebhookUrlForm('http://example.com/h', false)).toThrow('The url must use https.');
    expect(checkWebhookUrlForm('http://example.com/h', true).host).toBe('example.com');
    expect(() => checkWebhookUrlForm('ftp://example.com/h', true)).toThrow('The url must use https or http.');
  });

  it('seals secrets so that only the same key opens them, and any altered byte is refused', () => {
    const key = randomBytes(32);
    const sealed = seal(key, 'whsec_abc');
    expect(sealed.includes(Buffer.from('whsec_abc'))).toBe(false);
    expect(unseal(key, sealed)).toBe('whsec_abc');
    expect(() => unseal(randomBytes(32), sealed)).toThrow();
    const altered = Buffer.from(sealed);
    altered[14] = (altered[14] ?? 0) ^ 1;
    expect(() => unseal(key, altered)).toThrow();
  });

  it('opens a secret sealed under either key of a rotation and says whether it is under the sealing one', () => {
    const previous = randomBytes(32);
    const next = randomBytes(32);
    const underPrevious = seal(previous, 'whsec_old');
    const underNext = seal(next, 'whsec_new');
    const rolling = { secretKey: next, secondarySecretKey: previous };
    expect(unsealWithEither(rolling, underPrevious)).toEqual({ secret: 'whsec_old', current: false });
    expect(unsealWithEither(rolling, underNext)).toEqual({ secret: 'whsec_new', current: true });
    // Roll 1: the new key only opens, the old one still seals.
    expect(unsealWithEither({ secretKey: previous, secondarySecretKey: next }, underPrevious)).toEqual({
      secret: 'whsec_old',
      current: true,
    });
    // Roll 3, the old key dropped: what it sealed no longer opens; the reseal is what prevents that.
    expect(() => unsealWithEither({ secretKey: next, secondarySecretKey: null }, underPrevious)).toThrow();
    expect(() => unsealWithEither(rolling, seal(randomBytes(32), 'whsec_other'))).toThrow();
  });

  it('reads retry schedules and repeats the last wait once they run out', () => {
    expect(parseSchedule('10s,1m,5m,30m,2h')).toEqual([10_000, 60_000, 300_000, 1_800_000, 7_200_000]);
    expect(parseSchedule(' 250ms , 1s')).toEqual([250, 1_000]);
    expect(() => parseSchedule('10s,soon')).toThrow('"soon" is not a duration');
    expect([1, 2, 3, 4, 5].map((n) => retryDelayMs([100, 200], n))).toEqual([100, 200, 200, 200, 200]);
  });

  it('names unknown events', () => {
    expect(parseEvents('ticket.ready, ticket.rung,ticket.ready')).toEqual(['ticket.ready', 'ticket.rung']);
    expect(() => parseEvents('ticket.ready,ticket.gone')).toThrow(/unknown: ticket\.gone/);
    expect(() => parseEvents(' , ')).toThrow(/comma-separated list/);
  });
});
