import { bearerKey } from '../authorization';

/**
 * A paired board device's credential: a branch key of its own kind. It opens the staff board (the
 * product itself, whatever the plan), never the POS API that only some plans include.
 */

/** The prefix of a board device's key, which tells it from a branch's API key (`tk_`). */
export const BOARD_KEY_PREFIX = 'bd_';

/** Whether a Bearer credential, as read, is a board device's key. */
export function isBoardToken(token: string): boolean {
  return token.startsWith(BOARD_KEY_PREFIX);
}

/** Whether an Authorization header carries a board device's key. */
export function isBoardKey(authorization: string | undefined): boolean {
  const token = bearerKey(authorization);
  return token !== undefined && isBoardToken(token);
}

/**
 * Set by the REST adapter on every operation it sends: the request came through the documents'
 * REST API, which a board device's key does not open (402, as a plan without API access). A client
 * that sends it to the gateway itself only narrows what its own key may do.
 */
export const REST_DOOR_HEADER = 'x-rest-door';
