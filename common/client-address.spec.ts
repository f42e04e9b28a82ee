import type { IncomingMessage } from 'node:http';
import { clientAddressOf, proxyTrust, trustedProxyProblem } from './client-address';

/** What proxy-addr reads of a request: the socket's peer and `X-Forwarded-For`. */
function requestFrom(peer: string, forwardedFor?: string): IncomingMessage {
  return {
    socket: { remoteAddress: peer },
    headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
  } as unknown as IncomingMessage;
}

describe('proxyTrust', () => {
  it('trusts nobody when no proxy is named, not even loopback', () => {
    const trust = proxyTrust([]);
    for (const address of ['127.0.0.1', '::1', '10.0.0.7', '192.168.1.1']) {
      expect(trust(address, 0)).toBe(false);
    }
  });

  it('trusts exactly the named addresses and ranges', () => {
    const trust = proxyTrust(['127.0.0.2', '10.0.0.0/8', 'fd00::/8']);
    expect(trust('127.0.0.2', 0)).toBe(true);
    expect(trust('127.0.0.1', 0)).toBe(false);
    expect(trust('10.200.3.4', 0)).toBe(true);
    expect(trust('11.0.0.1', 0)).toBe(false);
    expect(trust('fd12::1', 0)).toBe(true);
    expect(trust('fe80::1', 0)).toBe(false);
  });
});

describe('clientAddressOf', () => {
  it('takes the socket’s peer and ignores X-Forwarded-For when nobody is trusted', () => {
    const trust = proxyTrust([]);
    expect(clientAddressOf(requestFrom('127.0.0.1', '198.51.100.1'), trust)).toBe('127.0.0.1');
    expect(clientAddressOf(requestFrom('::1', '198.51.100.1'), trust)).toBe('::1');
    expect(clientAddressOf(requestFrom('203.0.113.9'), trust)).toBe('203.0.113.9');
  });

  it('ignores X-Forwarded-For from a peer that is not a named proxy', () => {
    const trust = proxyTrust(['127.0.0.2']);
    expect(clientAddressOf(requestFrom('127.0.0.1', '198.51.100.1'), trust)).toBe('127.0.0.1');
  });

  it('takes the forwarded address from a named proxy', () => {
    const trust = proxyTrust(['127.0.0.2']);
    expect(clientAddressOf(requestFrom('127.0.0.2', '198.51.100.1'), trust)).toBe('198.51.100.1');
    expect(clientAddressOf(requestFrom('127.0.0.2'), trust)).toBe('127.0.0.2');
  });

  it('stops at the nearest address no named proxy holds, so a client cannot prepend its own choice', () => {
    // A proxy appends the peer it saw to whatever the client sent: only that last entry is its word.
    const trust = proxyTrust(['10.0.0.7']);
    expect(clientAddressOf(requestFrom('10.0.0.7', '198.51.100.1, 203.0.113.5'), trust)).toBe('203.0.113.5');
  });

  it('walks back through a chain of named proxies', () => {
    const trust = proxyTrust(['10.0.0.0/8']);
    expect(clientAddressOf(requestFrom('10.0.0.7', '203.0.113.5, 10.1.2.3'), trust)).toBe('203.0.113.5');
  });

  it('recognises a named IPv4 proxy behind a dual-stack socket’s IPv4-mapped address', () => {
    const trust = proxyTrust(['10.0.0.7']);
    expect(clientAddressOf(requestFrom('::ffff:10.0.0.7', '203.0.113.5'), trust)).toBe('203.0.113.5');
  });
});

describe('trustedProxyProblem', () => {
  it('accepts IPv4 and IPv6 addresses and CIDR ranges', () => {
    for (const entry of ['10.0.0.7', '::1', '10.0.0.0/8', 'fd00::/8', '172.16.0.0/12']) {
      expect(trustedProxyProblem(entry)).toBeUndefined();
    }
  });

  it('names an entry that is neither an address nor a range', () => {
    expect(trustedProxyProblem('proxy.internal')).toBe(
      '"proxy.internal" is not an IP address or a CIDR range',
    );
    expect(trustedProxyProblem('10.0.0.7:8080')).toMatch(/^"10\.0\.0\.7:8080" is not an IP address/);
    // proxy-addr's own names would trust whole classes of address; the operator names them instead.
    expect(trustedProxyProblem('loopback')).toMatch(/^"loopback" is not/);
    // Shorthand and leading zeros that proxy-addr would refuse at start or read as another address.
    expect(trustedProxyProblem('127.1')).toBe('"127.1" is not an IP address or a CIDR range');
    expect(trustedProxyProblem('010.0.0.7')).toBe('"010.0.0.7" is not an IP address or a CIDR range');
  });

  it('names a range with an impossible prefix or a netmask', () => {
    expect(trustedProxyProblem('10.0.0.0/33')).toBe(
      '"10.0.0.0/33" is not a CIDR range like 10.0.0.0/8 or fd00::/8',
    );
    expect(trustedProxyProblem('10.0.0.0/255.0.0.0')).toMatch(
      /^"10\.0\.0\.0\/255\.0\.0\.0" is not a CIDR range/,
    );
  });
});
