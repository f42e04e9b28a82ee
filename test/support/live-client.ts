import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';

/** A customer's ticket page as the live server sees it: what it learnt, and how its sockets ended. */
export interface PageLikeClient {
  /** Refetched states and live events in the order they arrived: `refetch:READY`, `event:COLLECTED`. */
  seen: string[];
  closeCodes: number[];
  connections(): number;
  dispose(): Promise<void>;
}

/** A WebSocket whose upgrade request says, through a trusted proxy, which client address it is. */
function webSocketFrom(address: string) {
  return class extends WebSocket {
    constructor(url: string | URL, protocols?: string | string[]) {
      super(url, protocols, { headers: { 'x-forwarded-for': address } });
    }
  };
}

/**
 * A client that behaves as the ticket page does (rest-adapter/public/assets/live.js): it
 * reconnects after every close and refetches the ticket after every (re)connect, then follows
 * its events. `address` poses it as that client behind a trusted proxy; `retryWaitMs` is the wait
 * before each reconnect.
 */
export function pageLikeClient(
  url: string,
  token: string,
  { address, retryWaitMs = () => 250 }: { address?: string; retryWaitMs?: () => number } = {},
): PageLikeClient {
  const seen: string[] = [];
  const closeCodes: number[] = [];
  let connections = 0;
  const client: Client = createClient({
    url,
    webSocketImpl: address === undefined ? WebSocket : webSocketFrom(address),
    retryAttempts: 1_000,
    retryWait: () => new Promise((resolve) => setTimeout(resolve, retryWaitMs())),
    on: {
      connected: () => {
        connections += 1;
        client.subscribe<{ ticketByToken: { status: string } | null }>(
          {
            query: 'query ($t: String!) { ticketByToken(token: $t) { status } }',
            variables: { t: token },
          },
          {
            next: (result) => seen.push(`refetch:${result.data?.ticketByToken?.status ?? 'error'}`),
            error: () => seen.push('refetch:error'),
            complete: () => undefined,
          },
        );
      },
      closed: (event) => closeCodes.push((event as { code: number }).code),
    },
  });
  client.subscribe<{ ticketUpdated: { status: string } }>(
    {
      query: 'subscription ($t: String!) { ticketUpdated(token: $t) { status } }',
      variables: { t: token },
    },
    {
      next: (result) => seen.push(`event:${result.data?.ticketUpdated.status ?? 'error'}`),
      error: () => seen.push('subscription:error'),
      complete: () => seen.push('subscription:complete'),
    },
  );
  return { seen, closeCodes, connections: () => connections, dispose: async () => client.dispose() };
}
