import { Kind, OperationTypeNode, parse } from 'graphql';

/** At most this many settled results are held at once; past it, results are forgotten as they settle. */
const KEPT_CAP = 1_000;

/**
 * One keyed in-flight join: while work for a key is under way, a second caller with the same key
 * waits for that work's result instead of starting it again. Once the work settles it is
 * forgotten, unless `keep` says its result stays good for a while (an answer its source declared
 * public, gateway/fetch/inflight-fetches.ts): then later callers take that result until it lapses. The
 * gateway's subgraph fetches and its session look-ups both share this way, under one rule
 * (docs/API-DECISIONS.md, "Identical subgraph fetches in flight"): nothing joins work started
 * before the last access announcement this process heard, and nothing joins while announcements
 * may be missed.
 */
export class InflightJoin<V, Leader = undefined> {
  private readonly running = new Map<string, { value: Promise<V>; leader: Leader }>();
  /** Settled results held on by `keep`, lapsed or not yet. */
  private kept = 0;

  constructor(private readonly hearsAccess: () => boolean) {}

  /** Whether joining may happen now: access announcements reach this process. */
  get mayJoin(): boolean {
    return this.hearsAccess();
  }

  /** Work under way now, and results held by `keep`, for tests. */
  get size(): number {
    return this.running.size;
  }

  /**
   * What is under way or held may be from before a change (an access announcement, a write, a live
   * event): later callers start their own work.
   */
  forgetUnderWay(): void {
    this.running.clear();
  }

  /**
   * `key`'s work under way, joined (with what its starter left as `leader`), or else `start()`,
   * begun now and joinable until it settles.
   */
  join(
    key: string,
    start: () => Promise<V>,
    leader: () => Leader,
    keep?: (value: V) => number,
  ): { value: Promise<V>; joined?: Leader } {
    if (!this.hearsAccess()) {
      // An announcement may be missed meanwhile: what is under way may be from before it.
      this.running.clear();
      return { value: start() };
    }
    const running = this.running.get(key);
    if (running !== undefined) return { value: running.value, joined: running.leader };
    const entry = { value: start(), leader: leader() };
    this.running.set(key, entry);
    const forget = () => {
      // An announcement may have put newer work under the same key meanwhile.
      if (this.running.get(key) === entry) this.running.delete(key);
    };
    entry.value.then((value) => {
      const keptMs = keep === undefined || this.kept >= KEPT_CAP ? 0 : keep(value);
      if (keptMs <= 0) {
        forget();
        return;
      }
      this.kept += 1;
      setTimeout(() => {
        this.kept -= 1;
        forget();
      }, keptMs).unref();
    }, forget);
    return { value: entry.value };
  }
}

/** True when every operation in `document` is a query; false for anything else or unparsable. */
export function holdsOnlyQueries(document: string): boolean {
  try {
    return parse(document, { noLocation: true }).definitions.every(
      (definition) =>
        definition.kind !== Kind.OPERATION_DEFINITION || definition.operation === OperationTypeNode.QUERY,
    );
  } catch {
    return false;
  }
}

/**
 * A join key for a request: what it asks (`parts`) and every header it sends by lower-cased name,
 * but for `ignored` (headers that only say which caller's request it is: with them in the key no
 * two callers would ever share). Two requests with one key ask the same thing with the same
 * credentials.
 */
export function requestKey(
  parts: readonly string[],
  headers: Readonly<Record<string, string>>,
  ignored: ReadonlySet<string>,
): string {
  const sent = Object.entries(headers)
    .map(([name, value]): [string, string] => [name.toLowerCase(), value])
    .filter(([name]) => !ignored.has(name))
    .sort(([a, va], [b, vb]) => (a < b ? -1 : a > b ? 1 : va < vb ? -1 : va > vb ? 1 : 0));
  return JSON.stringify([...parts, sent]);
}
