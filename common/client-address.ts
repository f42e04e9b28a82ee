import type { IncomingMessage } from 'node:http';
import ipaddr from 'ipaddr.js';
import proxyAddr from 'proxy-addr';

/** Whether a peer may say who its client is (`X-Forwarded-For`), as proxy-addr asks it. */
export type ProxyTrust = (address: string, hop: number) => boolean;

/**
 * One entry of TRUSTED_PROXIES: an address (`10.0.0.7`, `::1`) or a CIDR range (`10.0.0.0/8`),
 * or why it is neither.
 */
export function trustedProxyProblem(entry: string): string | undefined {
  const [address = '', prefix] = entry.split('/');
  // ipaddr.js also reads `127.1` and `010.0.0.7`, which proxy-addr then refuses or reads otherwise.
  const written = ipaddr.IPv4.isValidFourPartDecimal(address) || ipaddr.IPv6.isValid(address);
  try {
    if (!written) throw new Error('not an address');
    if (prefix !== undefined) ipaddr.parseCIDR(entry);
    proxyAddr.compile([entry]);
    return undefined;
  } catch {
    return prefix === undefined
      ? `"${entry}" is not an IP address or a CIDR range`
      : `"${entry}" is not a CIDR range like 10.0.0.0/8 or fd00::/8`;
  }
}

/**
 * The proxies whose `X-Forwarded-For` names the client. None by default: a process then takes its
 * client's address from the socket, whoever connects, so no caller can choose the address its
 * per-address limits are counted under. The operator names the load balancer or ingress in front.
 */
export function proxyTrust(trusted: readonly string[]): ProxyTrust {
  if (trusted.length === 0) return () => false;
  return proxyAddr.compile([...trusted]);
}

/**
 * The client's address of a request (or of the upgrade request that opened a socket): the socket's
 * peer, or the nearest address `X-Forwarded-For` names behind a chain of trusted proxies.
 */
export function clientAddressOf(request: IncomingMessage, trust: ProxyTrust): string | undefined {
  return proxyAddr(request, trust);
}

/** Whether a request's socket peer is one of the trusted proxies, whose word about the request counts. */
export function fromTrustedProxy(request: IncomingMessage, trust: ProxyTrust): boolean {
  const peer = request.socket.remoteAddress;
  return peer !== undefined && trust(peer, 0);
}
