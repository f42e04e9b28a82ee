import { lookup } from 'node:dns/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { render, say, type Message } from '../../../common/messages';

/** Addresses a webhook may never reach: loopback, private, link-local (cloud metadata), reserved. */
const NOT_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  NOT_PUBLIC.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['2001:db8::', 32],
  ['100::', 64],
] as const) {
  NOT_PUBLIC.addSubnet(network, prefix, 'ipv6');
}

export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !NOT_PUBLIC.check(address, 'ipv4');
  if (family !== 6) return false;
  // IPv4-mapped and NAT64 forms carry an IPv4 address that decides.
  const embedded = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (embedded !== undefined) return isPublicAddress(embedded);
  return !NOT_PUBLIC.check(address, 'ipv6');
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
  return url;
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
  const host = url.hostname.replace(/^\[|\]$/g, '');
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
