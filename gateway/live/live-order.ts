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
  /** Operations arrived and not yet in effect, by the client's operation id. */
  private readonly pending = new Map<string, { settled: Promise<void>; settle: () => void }>();
  /** What each arrived operation waits for: the operations pending as it arrived. */
  private readonly ahead = new Map<string, Promise<void>[]>();

  /**
   * Called as graphql-ws hands an operation over, before anything awaits, so the socket's message
   * order is the order here.
   */
  arrive(id: string): void {
    const ahead = [...this.pending.values()].map((entry) => entry.settled);
    if (ahead.length > 0) this.ahead.set(id, ahead);
    let settle!: () => void;
    const settled = new Promise<void>((resolve) => (settle = resolve));
    this.pending.set(id, { settled, settle });
  }

  /** The operation has taken effect: nothing waits on it. */
  settle(id: string): void {
    const entry = this.pending.get(id);
    if (entry === undefined) return;
    this.pending.delete(id);
    entry.settle();
  }

  /** The operation will never run (refused, or its admission failed): nothing waits on it, nor it on anything. */
  abandon(id: string): void {
    this.ahead.delete(id);
    this.settle(id);
  }

  /** Resolves once every operation sent before this one has taken effect. */
  async turnOf(id: string): Promise<void> {
    const ahead = this.ahead.get(id);
    if (ahead === undefined) return;
    this.ahead.delete(id);
    await Promise.all(ahead);
  }

  /** Operations not yet in effect. */
  get size(): number {
    return this.pending.size;
  }
}
