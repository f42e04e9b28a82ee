/**
 * One keyed in-flight join: while work for a key is under way, a second caller with the same key
 * waits for that work's result instead of starting it again. Nothing is kept once the work
 * settles. The gateway's subgraph fetches and its session look-ups both share this way, under one
 * rule (docs/API-DECISIONS.md, "Identical subgraph fetches in flight"): nothing joins work started
 * before the last access announcement this process heard, and nothing joins while announcements
 * may be missed.
 */
export class InflightJoin<V, Leader = undefined> {
  private readonly running = new Map<string, { value: Promise<V>; leader: Leader }>();

  constructor(private readonly hearsAccess: () => boolean) {}

  /** Whether joining may happen now: access announcements reach this process. */
  get mayJoin(): boolean {
    return this.hearsAccess();
  }

  /** Work under way now, for tests. */
  get size(): number {
    return this.running.size;
  }

  /** An access announcement arrived: later callers start their own work. */
  accessChanged(): void {
    this.running.clear();
  }

  /**
   * `key`'s work under way, joined (with what its starter left as `leader`), or else `start()`,
   * begun now and joinable until it settles.
   */
  join(key: string, start: () => Promise<V>, leader: () => Leader): { value: Promise<V>; joined?: Leader } {
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
    entry.value.then(forget, forget);
    return { value: entry.value };
  }
}
