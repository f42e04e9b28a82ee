import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';

/** The header that carries one request's id from the adapter through the gateway to every subgraph. */
export const REQUEST_ID_HEADER = 'x-request-id';

/**
 * A caller that renders messages itself (the REST adapter, a front end with its own translations)
 * sends `X-Message-Ids: 1` and gets each error's message ids in `extensions.messages` too.
 */
export const MESSAGE_IDS_HEADER = 'x-message-ids';

interface RequestContext {
  requestId: string;
  messageIds: boolean;
}

const storage = new AsyncLocalStorage<RequestContext>();

/** A request id as every process answers it: the caller's own when it is this, else a new UUID. */
export const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

/** Keeps a caller's id when it is safe to log, otherwise starts a new one. */
export function requestIdFrom(header: string | string[] | undefined): string {
  const value = Array.isArray(header) ? header[0] : header;
  return value !== undefined && REQUEST_ID_PATTERN.test(value) ? value : randomUUID();
}

export function runWithRequestId<T>(requestId: string, fn: () => T, messageIds = false): T {
  return storage.run({ requestId, messageIds }, fn);
}

export function wantsMessageIds(header: string | string[] | undefined): boolean {
  return (Array.isArray(header) ? header[0] : header) === '1';
}

export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}

/** Whether the current request asked for message ids (MESSAGE_IDS_HEADER). */
export function currentWantsMessageIds(): boolean {
  return storage.getStore()?.messageIds ?? false;
}
