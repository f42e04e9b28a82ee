import type { IncomingMessage } from 'node:http';
import { MESSAGE_IDS_HEADER, REQUEST_ID_HEADER } from '../../common/request-context';
import { readAuthorization } from '../../contracts/authorization';
import {
  BRANCH_HEADER,
  CLIENT_ADDRESS_HEADER,
  SESSION_ID_HEADER,
  SESSION_USER_HEADER,
} from '../../contracts/identity/session';
import { ACCESS_RECHECK_HEADER } from '../../contracts/tickets/access-change';
import { REST_DOOR_HEADER } from '../../contracts/tickets/board-device';
import { TICKET_TOKEN_HEADER } from '../../contracts/tickets/live-event';
import type { GatewayContext } from './gateway-context';

/** Headers of the client a subgraph needs to decide who is asking and how to answer. */
export const FORWARDED_HEADERS = [
  REQUEST_ID_HEADER,
  'authorization',
  'x-api-key',
  'accept-language',
  TICKET_TOKEN_HEADER,
  MESSAGE_IDS_HEADER,
  BRANCH_HEADER,
  // Only ever narrows what a key may do, so a client may send it too.
  REST_DOOR_HEADER,
] as const;

/**
 * Headers only the gateway sets (contracts/identity/session.ts): never taken from a client, always
 * passed on to the subgraphs.
 */
export const GATEWAY_SET_HEADERS = [
  SESSION_USER_HEADER,
  SESSION_ID_HEADER,
  CLIENT_ADDRESS_HEADER,
  ACCESS_RECHECK_HEADER,
] as const;

/**
 * The client's credential headers as every part of the gateway reads them: a Bearer credential in
 * its one spelling (so the sessions' look-ups, the shared fetches and the live sockets' checks key on
 * the credential, not on how it was spelt), an API key without surrounding whitespace.
 */
export function canonicalHeaders(headers: GatewayContext['headers']): GatewayContext['headers'] {
  const reading = readAuthorization(headers.authorization);
  if (reading.kind === 'bearer') headers.authorization = reading.header;
  else if (reading.kind === 'none') delete headers.authorization;
  const apiKey = headers['x-api-key']?.trim();
  if (apiKey) headers['x-api-key'] = apiKey;
  else delete headers['x-api-key'];
  return headers;
}

/** The headers of a client request that the subgraphs are given, credentials in their one spelling. */
export function forwardedHeaders(req: IncomingMessage): GatewayContext['headers'] {
  const headers: GatewayContext['headers'] = {};
  for (const name of FORWARDED_HEADERS) {
    const value = req.headers[name];
    headers[name] = Array.isArray(value) ? value[0] : value;
  }
  return canonicalHeaders(headers);
}

/** A request with neither a bearer credential nor an API key: its mutations are page writes. */
export function sentWithoutCredential(headers: GatewayContext['headers']): boolean {
  return !headers.authorization && !headers['x-api-key']?.trim();
}

/**
 * Whether a client's Authorization header is no Bearer credential. The doors pass a readable one on
 * in its one spelling (`canonicalHeaders`); one that does not parse is refused as UNAUTHENTICATED
 * once its client address has been counted, never taken as a credential of its own.
 */
export function presentsMalformedAuthorization(headers: GatewayContext['headers']): boolean {
  return readAuthorization(headers.authorization).kind === 'malformed';
}
