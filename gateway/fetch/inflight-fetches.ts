import { AsyncLocalStorage } from 'node:async_hooks';
import type { Fetcher, FetcherRequestInit, FetcherResponse } from '@apollo/utils.fetcher';
import type { Logger } from '../../common/logger';
import { REQUEST_ID_HEADER } from '../../common/request-context';
import { currentTraceparent, linkActiveSpanTo, TRACEPARENT_HEADER } from '../../common/trace-context';
import { cacheHintOf } from './cache-hint';
import { InflightJoin, requestKey } from '../../common/inflight-join';

/**
 * Headers that only say which client request a fetch belongs to. They are left out of the key, or
 * no two client requests would ever share a fetch; every other header the gateway sends is in it
 * (docs/API-DECISIONS.md, "Identical subgraph fetches in flight").
 */
export const CORRELATION_HEADERS: ReadonlySet<string> = new Set([
  REQUEST_ID_HEADER,
  TRACEPARENT_HEADER,
  'tracestate',
]);

/**
 * What a subgraph sees of a fetch, but for the correlation headers: its URL, its method, its exact
 * body (document, variables, operation name) and every other header, by lower-cased name.
 */
export function fetchKey(url: string, init: FetcherRequestInit | undefined): string {
  const body = init?.body === undefined ? '' : init.body.toString();
  return requestKey([url, init?.method ?? 'GET', body], init?.headers ?? {}, CORRELATION_HEADERS);
}

type Settled = { ok: true; response: FetcherResponse } | { ok: false; error: unknown };

/** The longest a public answer is held, whatever its subgraph allows. */
export const PUBLIC_ANSWER_CAP_MS = 30_000;

/**
 * How long a settled fetch may answer identical ones after it: as long as its subgraph declared
 * the answer public (`Cache-Control: max-age=N, public`, which Apollo Server sends only for an
 * answer without errors whose every field allows it), at most PUBLIC_ANSWER_CAP_MS; otherwise not
 * at all. The key is still everything the subgraph saw, so a held answer reaches only requests the
 * subgraph could not tell from the one it answered.
 */
export function publicFor(settled: Settled): number {
  if (!settled.ok || !settled.response.ok) return 0;
  const hint = cacheHintOf(settled.response.headers.get('cache-control'));
  return hint.scope === 'PUBLIC' ? Math.min(hint.maxAge * 1000, PUBLIC_ANSWER_CAP_MS) : 0;
}

interface Leader {
  requestId: string | undefined;
  traceparent: string | null;
}

/** A copy of what a fetch threw, so that no two requests hold one error object. */
function copyOf(error: unknown): unknown {
  if (error === null || typeof error !== 'object') return error;
  const copy = Object.create(Object.getPrototypeOf(error) as object | null) as object;
  return Object.defineProperties(copy, Object.getOwnPropertyDescriptors(error));
}

export interface InflightFetchesOptions {
  logger: Logger;
  /** Told of every fetch that joined one in flight instead of being sent. */
  joined(subgraph: string): void;
  /**
   * Whether access announcements (revocations, ended sessions, plan changes) reach this process
   * now; `accessChanged` is to be called on each. Nothing is shared while they do not.
   */
  hearsAccess(): boolean;
}

/**
 * In-flight deduplication of subgraph fetches: while a fetch is on its way, an identical one (same
 * `fetchKey`) waits for its answer instead of being sent again. Each waiter gets its own response
 * object over the one answer text, parsed separately, and a failure reaches each of them. Once the
 * answer is in, the next identical fetch is sent anew, unless the subgraph declared the answer
 * public (`publicFor`): then identical fetches take it for as long as that allows.
 *
 * A fetch in flight may have read a credential that an access announcement has since revoked, so
 * no fetch joins one sent before the last announcement this process heard, and none joins while
 * announcements may be missed: revocation holds from its announcement on, as in the subgraphs'
 * caches and on live sockets.
 */
export class InflightFetches {
  private readonly shareable = new AsyncLocalStorage<true>();
  /** One join per subgraph, so that a change of one subgraph's data ends only its own. */
  private readonly fetches = new Map<string, InflightJoin<Settled, Leader>>();
  private readonly joins: InflightJoin<unknown, unknown>[] = [];

  constructor(private readonly options: InflightFetchesOptions) {}

  /**
   * Another keyed join under the same rule, cleared with the fetches' on every announcement (the
   * gateway's session look-ups, gateway/context/sessions.ts).
   */
  keyed<V, L = undefined>(): InflightJoin<V, L> {
    const join = new InflightJoin<V, L>(() => this.options.hearsAccess());
    this.joins.push(join);
    return join;
  }

  /** Runs `work` with its subgraph fetches allowed to join identical ones in flight. */
  sharing<T>(work: () => T): T {
    return this.shareable.run(true, work);
  }

  /** An access announcement arrived: later fetches are sent, not joined to those sent before. */
  accessChanged(): void {
    for (const join of this.joins) join.forgetUnderWay();
  }

  /**
   * This process heard that `subgraph`'s data changed (a live event of a ticket): later fetches to
   * it are sent, not joined to those sent before. A live page subscribes, then refetches what it
   * missed; its refetch runs once its subscription listens, and without this it could join a read
   * sent before an event that reached the hub before it joined, and so miss that change twice.
   */
  dataChanged(subgraph: string): void {
    this.fetches.get(subgraph)?.forgetUnderWay();
  }

  /** Fetches in flight now, and public answers held, for tests. */
  get size(): number {
    let size = 0;
    for (const join of this.fetches.values()) size += join.size;
    return size;
  }

  /** `fetcher` for one subgraph, joining identical fetches made inside `sharing`. */
  fetcher(subgraph: string, fetcher: Fetcher): Fetcher {
    const fetches = this.fetches.get(subgraph) ?? this.keyed<Settled, Leader>();
    this.fetches.set(subgraph, fetches);
    return async (url, init) => {
      if (this.shareable.getStore() !== true) return fetcher(url, init);
      const { value, joined } = fetches.join(
        fetchKey(url, init),
        () =>
          fetcher(url, init).then(
            (response): Settled => ({ ok: true, response }),
            (error: unknown): Settled => ({ ok: false, error }),
          ),
        () => ({ requestId: init?.headers?.[REQUEST_ID_HEADER], traceparent: currentTraceparent() }),
        publicFor,
      );
      if (joined !== undefined) {
        this.options.joined(subgraph);
        this.options.logger.debug(
          { subgraph, requestId: init?.headers?.[REQUEST_ID_HEADER], leaderRequestId: joined.requestId },
          'subgraph fetch joined an identical one in flight',
        );
        linkActiveSpanTo(joined.traceparent);
        const settled = await value;
        if (settled.ok) return settled.response.clone();
        throw copyOf(settled.error);
      }
      const outcome = await value;
      if (!outcome.ok) throw outcome.error;
      // Joiners clone the same response, possibly after this one's body was read.
      return outcome.response.clone();
    };
  }
}
