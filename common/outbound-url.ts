import { lookup } from 'node:dns/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { render, say, type Message } from './messages';

/**
 * Ranges a webhook may never reach, whatever ipaddr.js calls them: loopback, private, link-local
 * (cloud metadata), carrier-grade NAT, documentation, benchmarking, multicast, reserved. Listed
 * here as well so that a change in the library's classification cannot open one of them.
 */
const NOT_PUBLIC_IPV4 = [
  '0.0.0.0/8',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.0.0.0/24',
  '192.0.2.0/24',
  '192.88.99.0/24',
  '192.168.0.0/16',
  '198.18.0.0/15',
  '198.51.100.0/24',
  '203.0.113.0/24',
  '224.0.0.0/4',
  '240.0.0.0/4',
].map((cidr) => ipaddr.IPv4.parseCIDR(cidr));

/** The same for IPv6; the ranges that carry an IPv4 address are judged by it instead (below). */
const NOT_PUBLIC_IPV6 = [
  'fc00::/7',
  'fe80::/10',
  'fec0::/10',
  'ff00::/8',
  '100::/64',
  '2001::/23',
  '2001:2::/48',
  '2001:db8::/32',
  '3fff::/20',
  '5f00::/16',
].map((cidr) => ipaddr.IPv6.parseCIDR(cidr));

/** Everything outside it is unassigned or special-purpose; nothing public is routed there. */
const GLOBAL_UNICAST_IPV6 = ipaddr.IPv6.parseCIDR('2000::/3');

/**
 * IPv6 ranges that stand for IPv4 addresses: the kernel, a NAT64 or SIIT translator, or a 6to4 or
 * Teredo tunnel delivers the packet to the IPv4 address it carries, so that address decides. Each
 * entry gives the IPv4 addresses carried, or null when where they sit cannot be told.
 */
const CARRIES_IPV4: readonly {
  range: [ipaddr.IPv6, number];
  carried: (bytes: number[]) => number[][] | null;
}[] = [
  { range: ipaddr.IPv6.parseCIDR('::ffff:0:0/96'), carried: (bytes) => [bytes.slice(12)] },
  { range: ipaddr.IPv6.parseCIDR('::ffff:0:0:0/96'), carried: (bytes) => [bytes.slice(12)] },
  { range: ipaddr.IPv6.parseCIDR('64:ff9b::/96'), carried: (bytes) => [bytes.slice(12)] },
  {
    // RFC 8215 lets the operator pick the prefix length, which moves the IPv4 address; only the
    // /96 layout, with nothing between the prefix and the last 32 bits, can be judged.
    range: ipaddr.IPv6.parseCIDR('64:ff9b:1::/48'),
    carried: (bytes) => (bytes.slice(6, 12).every((byte) => byte === 0) ? [bytes.slice(12)] : null),
  },
  // Deprecated IPv4-compatible addresses; `::` and `::1` fall in it and carry 0.0.0.0/8 addresses.
  { range: ipaddr.IPv6.parseCIDR('::/96'), carried: (bytes) => [bytes.slice(12)] },
  { range: ipaddr.IPv6.parseCIDR('2002::/16'), carried: (bytes) => [bytes.slice(2, 6)] },
  {
    // The server relays and the client receives, so both must be public; the client's address is
    // stored inverted so NATs rewriting addresses in payloads leave it alone.
    range: ipaddr.IPv6.parseCIDR('2001::/32'),
    carried: (bytes) => [bytes.slice(4, 8), bytes.slice(12).map((byte) => byte ^ 0xff)],
  },
];

function isPublicIPv4(address: ipaddr.IPv4): boolean {
  return address.range() === 'unicast' && !NOT_PUBLIC_IPV4.some((range) => address.match(range));
}

function isPublicIPv6(address: ipaddr.IPv6): boolean {
  const carrier = CARRIES_IPV4.find(({ range }) => address.match(range));
  if (carrier !== undefined) {
    const carried = carrier.carried(address.toByteArray());
    return carried !== null && carried.every((octets) => isPublicIPv4(new ipaddr.IPv4(octets)));
  }
  return (
    address.range() === 'unicast' &&
    address.match(GLOBAL_UNICAST_IPV6) &&
    !NOT_PUBLIC_IPV6.some((range) => address.match(range))
  );
}

/**
 * Whether a webhook may connect to the address, in whatever text form it comes (URL host, DNS
 * answer): only unicast addresses routed on the public internet, and IPv6 forms that carry an IPv4
 * address only when that IPv4 address is.
 */
export function isPublicAddress(address: string): boolean {
  // A zone id scopes the address to one link, which no public address is.
  if (address.includes('%')) return false;
  // Node's check is strict; ipaddr.js alone would also read `0177.1` or `0x7f.1` as IPv4.
  const family = isIP(address);
  try {
    if (family === 4) return isPublicIPv4(ipaddr.IPv4.parse(address));
    if (family === 6) return isPublicIPv6(ipaddr.IPv6.parse(address));
  } catch {
    return false;
  }
  return false;
}

export class UnsafeWebhookUrlError extends Error {
  constructor(readonly said: Message) {
    super(render(said, 'en'));
    this.name = 'UnsafeWebhookUrlError';
  }
}

const URL_MAX = 2048;

/**
 * The URL's form: https (http too when insecure is allowed), a host, no credentials. `field` names
 * it in the refusal (a webhook's `url`, a push subscription's `endpoint`).
 */
export function checkWebhookUrlForm(value: string, allowInsecure: boolean, field = 'url'): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UnsafeWebhookUrlError(say('url.absolute', { field }));
  }
  const schemes = allowInsecure ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) {
    throw new UnsafeWebhookUrlError(say(allowInsecure ? 'url.https_or_http' : 'url.https', { field }));
  }
  if (url.username !== '' || url.password !== '') {
    throw new UnsafeWebhookUrlError(say('url.credentials', { field }));
  }
  if (value.length > URL_MAX) throw new UnsafeWebhookUrlError(say('url.too_long', { field, max: URL_MAX }));
  // A literal address needs no lookup, so it is refused here already: a push subscription is
  // stored on the strength of this check alone and only vetted again when a push is sent.
  const host = unbracketed(url);
  if (!allowInsecure && isIP(host) !== 0 && !isPublicAddress(host)) {
    throw new UnsafeWebhookUrlError(say('url.not_public', { field, host, address: host }));
  }
  return url;
}

/** The host as an address can be read from it: URLs bracket IPv6 (`[64:ff9b::7f00:1]`). */
function unbracketed(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}

/**
 * Resolves the URL's host and returns the address to connect to. Every address the name resolves
 * to must be public, so one private answer among public ones is refused too; the caller connects
 * to the returned address itself, so a second lookup cannot swap in another (DNS rebinding).
 */
export async function vetWebhookHost(
  url: URL,
  allowInsecure: boolean,
): Promise<{ address: string; family: number }> {
  const host = unbracketed(url);
  let addresses: { address: string; family: number }[];
  try {
    addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await lookup(host, { all: true });
  } catch (error) {
    throw new UnsafeWebhookUrlError(
      say('url.unresolved', { field: 'url', host, reason: (error as Error).message }),
    );
  }
  const first = addresses[0];
  if (first === undefined) throw new UnsafeWebhookUrlError(say('url.no_address', { field: 'url', host }));
  if (!allowInsecure) {
    const refused = addresses.find((a) => !isPublicAddress(a.address));
    if (refused !== undefined) {
      throw new UnsafeWebhookUrlError(
        say('url.not_public', { field: 'url', host, address: refused.address }),
      );
    }
  }
  return first;
}

/** What one outbound POST came to: the receiver's status, or why there was none. */
export interface PostOutcome {
  statusCode: number | null;
  error: string | null;
}

/**
 * POSTs to the address `vetWebhookHost` returned, whatever a second lookup would say now, with one
 * bound on the whole exchange; redirects are never followed. Used for webhooks and Web Push, whose
 * URLs both come from outside.
 */
export function postToVetted(
  url: URL,
  target: { address: string; family: number },
  headers: Record<string, string>,
  body: string | Buffer,
  timeoutMs: number,
): Promise<PostOutcome> {
  const lookup: LookupFunction = (_host, options, callback) => {
    if (options.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
  return new Promise((resolve) => {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(url, { method: 'POST', headers, lookup, agent: false }, (res: IncomingMessage) => {
      res.resume();
      res.on('end', () => {
        clearTimeout(timer);
        resolve({ statusCode: res.statusCode ?? null, error: null });
      });
      res.on('error', (error) => {
        clearTimeout(timer);
        resolve({ statusCode: res.statusCode ?? null, error: error.message });
      });
    });
    const timer = setTimeout(() => req.destroy(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    req.on('error', (error) => {
      clearTimeout(timer);
      resolve({ statusCode: null, error: error.message });
    });
    req.end(body);
  });
}
