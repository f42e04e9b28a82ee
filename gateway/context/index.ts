/**
 * The request context: what every operation the gateway plans carries (GatewayContext), the
 * headers a client request passes on and how its credentials are read, who a session is
 * (SessionResolver), and how the gateway runs an operation of its own (RunQuery).
 * What the other folders of the gateway may use; the rest of context/ is its own.
 * It uses no other folder of the gateway: every other folder stands on it.
 */
export { type GatewayContext, type RunAheadTicket, type RunQuery } from './gateway-context';
export {
  FORWARDED_HEADERS,
  GATEWAY_SET_HEADERS,
  forwardedHeaders,
  presentsMalformedAuthorization,
  sentWithoutCredential,
} from './request-headers';
export { SESSION_KEPT_MS, SessionResolver, type Principal } from './sessions';
export { gatewayRunQuery } from './run-query';
