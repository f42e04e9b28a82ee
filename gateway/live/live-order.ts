/**
 * The order one socket's operations take effect in. A customer's page subscribes to its ticket and
 * then reads it (live.js: the subscriptions, then the refetch), after every reconnect. graphql-ws
 * runs a socket's operations at once, so without this the read could answer while the subscription
 * still checks its token or waits for Redis to follow the channel: a change committed between the
 * read and the join would reach the page by neither, and the page would show a stale state until
 * its next event. So an operation runs only once every operation sent before it on the same socket
 * has taken effect: a query or mutation as soon as it is admitted and known not to be a
 * subscription, a subscription once it is joined to the hub (or refused).
 */
export class OperationOrder {
  /** Operations arrived and not yet in effect. */
  private readonly pending = new Set<Turn>();

  /**
   * Called as graphql-ws hands an operation over, before anything awaits, so the socket's message
   * order is the order here. A turn, not the client's operation id: an id completed early may be
   * sent again while its first operation is still joining.
   */
  arrive(): Turn {
    const ahead = [...this.pending].map((turn) => turn.settled);
    let resolve!: () => void;
    const settled = new Promise<void>((done) => (resolve = done));
    const turn: Turn = {
      settled,
      ahead: () => Promise.all(ahead).then(() => undefined),
      settle: () => {
        if (this.pending.delete(turn)) resolve();
      },
    };
    this.pending.add(turn);
    return turn;
  }

  /** Operations not yet in effect. */
  get size(): number {
    return this.pending.size;
  }
}

/** One operation's place in its socket's order. */
export interface Turn {
  /** Resolves once this operation has taken effect (or never will). */
  readonly settled: Promise<void>;
  /** Resolves once every operation sent before this one has taken effect. */
  ahead(): Promise<void>;
  /** This operation has taken effect, or never will (refused, failed): nothing waits on it. */
  settle(): void;
}
