import type { WebSocket } from 'ws';
import { BRANCH_HEADER } from '../../contracts/identity/session';

/** WebSocket close codes of the live server's admission: what a client may open and send. */
export const ADMISSION_CLOSE = {
  /** connection_init carried a parameter the gateway cannot read, as graphql-ws's own 4400. */
  badParams: 4400,
  /** More sockets from one client address than one gateway process takes. */
  tooManySockets: { code: 4430, reason: 'Too many live connections from this address' },
  /** More operations at once on one socket than it may hold. */
  tooManyOperations: { code: 4431, reason: 'Too many operations on this socket' },
} as const;

/**
 * Sockets open per client address on this process. The cap bounds what one address can make one
 * gateway process hold in memory, which is a per-process resource, so the count is kept here
 * rather than in Redis; the per-address request budget, which is in Redis, bounds how fast any
 * address opens them platform-wide.
 */
export class SocketsPerAddress {
  private readonly open = new Map<string, number>();

  constructor(private readonly max: number) {}

  /** Counts the socket under its address until it closes; false, and not counted, past the cap. */
  take(address: string | undefined, socket: WebSocket): boolean {
    if (address === undefined) return true;
    const count = this.open.get(address) ?? 0;
    if (count >= this.max) return false;
    this.open.set(address, count + 1);
    socket.once('close', () => {
      const left = (this.open.get(address) ?? 1) - 1;
      if (left <= 0) this.open.delete(address);
      else this.open.set(address, left);
    });
    return true;
  }

  of(address: string): number {
    return this.open.get(address) ?? 0;
  }
}

/** The connection_init parameters the gateway reads; it passes them on as HTTP headers. */
const READ_PARAMS = ['authorization', 'x-api-key', BRANCH_HEADER, 'accept-language'] as const;
/** What an HTTP header value may hold: no NUL, CR, LF or other controls, and nothing beyond Latin-1. */
const HEADER_TEXT = /^[\t\x20-\x7e\x80-\xff]*$/;
/**
 * Longer than any credential, branch id or language list; with the four of them at this length a
 * subgraph request still fits HEADER_LIMITS.subgraph.
 */
const MAX_PARAM_CHARS = 2048;

/**
 * Why a parameter of connection_init cannot be used, or undefined when all can. Over HTTP such
 * values cannot arrive at all (Node refuses the request), so here they are refused as plainly
 * instead of failing later as a header no subgraph request can carry.
 */
export function connectionParamProblem(params: Record<string, unknown>): string | undefined {
  for (const name of READ_PARAMS) {
    const value = params[name];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string') return `Bad connection_init: ${name} must be a string.`;
    if (value.length > MAX_PARAM_CHARS)
      return `Bad connection_init: ${name} is longer than ${MAX_PARAM_CHARS} characters.`;
    if (!HEADER_TEXT.test(value))
      return `Bad connection_init: ${name} holds a character no HTTP header can carry.`;
  }
  return undefined;
}

export function lowerCaseKeys(params: Record<string, unknown> | undefined | null): Record<string, unknown> {
  return Object.fromEntries(Object.entries(params ?? {}).map(([key, value]) => [key.toLowerCase(), value]));
}

export function stringOr(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
