import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';

/** A customer's ticket page as the live server sees it: what it learnt, and how its sockets ended. */
export interface PageLikeClient {
  /** Refetched states and live events in the order they arrived: `refetch:READY`, `event:COLLECTED`. */
  seen: string[];
  /**
   * The state the page would show: the newest by `updatedAt`, as page.js keeps it (a refetch
   * answered after a newer event, or an event held through a gap, never replaces a newer state).
   */
  status(): string | undefined;
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
 * its events, keeping the newest state it learns. `address` poses it as that client behind a trusted proxy; `retryWaitMs` is the wait
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
  let shown: { status: string; updatedAt: number } | undefined;
  const learn = (ticket: { status: string; updatedAt: string } | null | undefined) => {
    if (ticket == null) return;
    const updatedAt = Date.parse(ticket.updatedAt) || 0;
    if (shown !== undefined && updatedAt < shown.updatedAt) return;
    shown = { status: ticket.status, updatedAt };
  };
  const client: Client = createClient({
    url,
    webSocketImpl: address === undefined ? WebSocket : webSocketFrom(address),
    retryAttempts: 1_000,
    retryWait: () => new Promise((resolve) => setTimeout(resolve, retryWaitMs())),
    on: {
      connected: () => {
        connections += 1;
        client.subscribe<{ ticketByToken: { status: string; updatedAt: string } | null }>(
          {
            query: 'query ($t: String!) { ticketByToken(token: $t) { status updatedAt } }',
            variables: { t: token },
          },
          {
            next: (result) => {
              seen.push(`refetch:${result.data?.ticketByToken?.status ?? 'error'}`);
              learn(result.data?.ticketByToken);
            },
            error: () => seen.push('refetch:error'),
            complete: () => undefined,
          },
        );
      },
      closed: (event) => closeCodes.push((event as { code: number }).code),
    },
  });
  client.subscribe<{ ticketUpdated: { status: string; updatedAt: string } }>(
    {
      query: 'subscription ($t: String!) { ticketUpdated(token: $t) { status updatedAt } }',
      variables: { t: token },
    },
    {
      next: (result) => {
        seen.push(`event:${result.data?.ticketUpdated.status ?? 'error'}`);
        learn(result.data?.ticketUpdated);
      },
      error: () => seen.push('subscription:error'),
      complete: () => seen.push('subscription:complete'),
    },
  );
  return {
    seen,
    status: () => shown?.status,
    closeCodes,
    connections: () => connections,
    dispose: async () => client.dispose(),
  };
}
