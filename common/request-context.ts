import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';

/** The header that carries one request's id from the adapter through the gateway to every subgraph. */
export const REQUEST_ID_HEADER = 'x-request-id';

interface RequestContext {
  requestId: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

const ACCEPTABLE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Keeps a caller's id when it is safe to log, otherwise starts a new one. */
export function requestIdFrom(header: string | string[] | undefined): string {
  const value = Array.isArray(header) ? header[0] : header;
  return value !== undefined && ACCEPTABLE_ID.test(value) ? value : randomUUID();
}

export function runWithRequestId<T>(requestId: string, fn: () => T): T {
  return storage.run({ requestId }, fn);
}

export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}
