import { randomBytes } from 'node:crypto';
import { internalCredentialCheck } from './internal-credential';

describe('the internal credential check', () => {
  const primary = randomBytes(32).toString('base64url');
  const secondary = randomBytes(32).toString('base64url');

  it('accepts the one secret outside a rotation and nothing else', () => {
    const isPlatform = internalCredentialCheck([primary]);
    expect(isPlatform(primary)).toBe(true);
    for (const other of [secondary, undefined, '', primary.slice(1), `${primary} `]) {
      expect([other, isPlatform(other)]).toEqual([other, false]);
    }
  });

  it('accepts both the primary and the secondary during a rotation, in either order', () => {
    for (const accepted of [
      [primary, secondary],
      [secondary, primary],
    ]) {
      const isPlatform = internalCredentialCheck(accepted);
      expect([isPlatform(primary), isPlatform(secondary)]).toEqual([true, true]);
      expect(isPlatform(randomBytes(32).toString('base64url'))).toBe(false);
      expect(isPlatform(undefined)).toBe(false);
    }
  });

  it('still takes one secret as a string, as callers outside a rotation pass it', () => {
    expect(internalCredentialCheck(primary)(primary)).toBe(true);
    expect(internalCredentialCheck(primary)(secondary)).toBe(false);
  });

  it('refuses to be built with nothing to accept, rather than accept nothing silently', () => {
    expect(() => internalCredentialCheck([])).toThrow(/at least one accepted secret/);
  });
});
