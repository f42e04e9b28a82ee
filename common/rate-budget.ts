import { createHash } from 'node:crypto';
import type { Config } from './config';
import type { TextLanguage } from './language';
import type { Logger } from './logger';
import { countInWindow } from './rate-window';
import type { Redis } from './redis';
import { text } from './messages';

/**
 * One budget of the platform: how many requests a minute one credential (or one client address)
 * may make, whichever door it comes through. The count lives in Redis under the budget's name and
 * the credential's identity, so the REST adapter, the gateway's HTTP `/graphql` and its graphql-ws
 * operations all add to the same number.
 */
export interface RatePolicy {
  name: 'tickets' | 'boards' | 'board-sync' | 'cv' | 'cv-exports' | 'people' | 'public' | 'public-writes';
  quota: number;
  windowSeconds: number;
}

/**
 * Writes without a credential per client address and minute, on top of the public budget: the
 * page's (alerts, SMS opt-in, push, feedback; a customer taps a handful of times) and sign-up,
 * sign-in and password resets, which the identity subgraph limits further. The default of
 * PUBLIC_WRITE_RATE_LIMIT.
 */
export const PUBLIC_WRITE_RATE_LIMIT = 30;

/**
 * The window of a board device's allowance for work it did offline (BOARD_SYNC_RATE_LIMIT): ten
 * minutes, so a catch-up of a few hundred operations goes through at once, and a device that
 * replays all the time gets no more than the allowance a ten minutes over its own budget.
 */
export const BOARD_SYNC_WINDOW_SECONDS = 600;

/** Every budget, from the configuration: the documents' limits unless an operator raised them. */
export function ratePolicies(
  config: Pick<
    Config,
    | 'ticketsRateLimit'
    | 'boardRateLimit'
    | 'boardSyncRateLimit'
    | 'cvRateLimit'
    | 'sessionRateLimit'
    | 'publicRateLimit'
    | 'publicWriteRateLimit'
  >,
): Record<'tickets' | 'boards' | 'boardSync' | 'cv' | 'people' | 'public' | 'publicWrites', RatePolicy> {
  return {
    // ticket-calling-api.md: 120 requests a minute per key, over every endpoint.
    tickets: { name: 'tickets', quota: config.ticketsRateLimit, windowSeconds: 60 },
    // A paired board device on the graph: what staff at a counter send, well below what a POS
    // integration polling or pushing orders through it would (docs/API-DECISIONS.md, Board devices).
    boards: { name: 'boards', quota: config.boardRateLimit, windowSeconds: 60 },
    // The same device replaying what it did through an outage (mutations carrying occurredAt):
    // an allowance beside `boards`, never instead of it (CredentialBudgets.takeSync).
    boardSync: {
      name: 'board-sync',
      quota: config.boardSyncRateLimit,
      windowSeconds: BOARD_SYNC_WINDOW_SECONDS,
    },
    // cv-api.md: 60 requests a minute per account, whichever of its keys is used.
    cv: { name: 'cv', quota: config.cvRateLimit, windowSeconds: 60 },
    // A signed-in person's requests (the control panel, a member's board), whichever session they
    // use and wherever they come from: staff of one venue often share one address.
    people: { name: 'people', quota: config.sessionRateLimit, windowSeconds: 60 },
    // Requests without a credential (pages, QR images, token-addressed operations, the catalogue).
    public: { name: 'public', quota: config.publicRateLimit, windowSeconds: 60 },
    publicWrites: { name: 'public-writes', quota: config.publicWriteRateLimit, windowSeconds: 60 },
  };
}

/**
 * A ticket key is counted by its SHA-256, never by the key itself, and never by the text of the
 * header that carried it: `key` is the credential as read once (contracts/authorization.ts), so
 * every spelling of one header counts as the one key.
 */
export function ticketKeyIdentity(key: string): string {
  return `key:${createHash('sha256').update(key).digest('hex')}`;
}

/** A signed-in person is counted as themselves, whichever of their sessions they use. */
export function personIdentity(userId: string): string {
  return `user:${userId}`;
}

/** A caller without a credential is counted by its client address. */
export function addressIdentity(address: string | undefined): string {
  return `ip:${address ?? 'unknown'}`;
}

/** The outcome of counting one request against one budget. */
export interface RateDecision {
  policy: RatePolicy;
  allowed: boolean;
  /** Left in this window; undefined when the count could not be read (Redis away: fail open). */
  remaining?: number;
  /** Seconds until the window resets. */
  resetSeconds?: number;
  /** The counted window's number and the units counted in it, to give back (RateBudgets.giveBack). */
  counted?: { window: number; units: number };
}

/**
 * How long a request waits for its count before it is let through uncounted, unless the process is
 * given another (RATE_COUNT_TIMEOUT_MS): a Redis round trip takes a millisecond or two, so this is
 * Redis away, or an event loop stalled for a quarter of a second.
 */
const COUNT_TIMEOUT_MS = 250;
/** At most one warning in this many milliseconds while Redis is away, not one per request. */
const WARN_EVERY_MS = 10_000;

/** Told of each refusal and each count that failed open (the metrics count them). */
export interface RateBudgetObserver {
  refused?(decision: RateDecision): void;
  failedOpen?(): void;
}

/**
 * Counts requests against budgets. When Redis cannot be reached the request is let through
 * (fail open) with a warning in the log: the limits protect the platform from one caller's
 * excess, and refusing every caller while Redis is away would turn a cache outage into a full one.
 */
export class RateBudgets {
  private lastWarning = 0;

  constructor(
    private readonly redis: Redis,
    private readonly redisPrefix: string,
    private readonly logger: Logger,
    private readonly observer: RateBudgetObserver = {},
    private readonly countTimeoutMs = COUNT_TIMEOUT_MS,
  ) {}

  /**
   * Counts `units` of work (an operation's root fields) against one budget; a request is one.
   * `quiet`: a refusal is not reported (the caller falls back to another budget).
   */
  async take(policy: RatePolicy, who: string, units = 1, quiet = false): Promise<RateDecision> {
    try {
      const { count, ttl, window } = await countInWindow(
        this.redis,
        `${this.redisPrefix}ratelimit:${policy.name}:${who}`,
        policy.windowSeconds,
        this.countTimeoutMs,
        units,
      );
      const decision = {
        policy,
        allowed: count <= policy.quota,
        remaining: Math.max(0, policy.quota - count),
        resetSeconds: ttl,
        counted: { window, units },
      };
      if (!decision.allowed && !quiet) this.observer.refused?.(decision);
      return decision;
    } catch (error) {
      this.observer.failedOpen?.();
      this.warnFailOpen(error);
      return { policy, allowed: true };
    }
  }

  /**
   * Takes back what a decision counted, in the window it was counted in (never a later one's):
   * work that turned out to belong to another budget. Nothing when it was not counted (Redis away).
   */
  async giveBack(decision: RateDecision, who: string): Promise<void> {
    if (decision.counted === undefined) return;
    const { policy } = decision;
    const key = `${this.redisPrefix}ratelimit:${policy.name}:${who}:${decision.counted.window}`;
    try {
      // The window's own expiry again: were it over and gone, the key would otherwise stay.
      await this.redis.multi().decrby(key, decision.counted.units).expire(key, policy.windowSeconds).exec();
    } catch (error) {
      this.warnFailOpen(error);
    }
  }

  /** Counts against every budget given; refused when any is over. */
  async takeAll(budgets: readonly { policy: RatePolicy; who: string }[], units = 1): Promise<RateDecision[]> {
    // A request carries one credential almost always: no Promise.all for it.
    if (budgets.length === 1) return [await this.take(budgets[0]!.policy, budgets[0]!.who, units)];
    return Promise.all(budgets.map(({ policy, who }) => this.take(policy, who, units)));
  }

  private warnFailOpen(error: unknown): void {
    const now = Date.now();
    if (now - this.lastWarning < WARN_EVERY_MS) return;
    this.lastWarning = now;
    this.logger.warn(
      { err: error },
      'rate limits are not enforced: their counts in Redis cannot be reached (failing open)',
    );
  }
}

/**
 * `later` in place of the decisions of the same budgets in `earlier`: what a request's headers
 * report once more of its work has been counted.
 */
export function laterDecisions(
  earlier: readonly RateDecision[],
  later: readonly RateDecision[],
): RateDecision[] {
  const replaced = new Set(later.map((decision) => decision.policy.name));
  return [...earlier.filter((decision) => !replaced.has(decision.policy.name)), ...later];
}

/** The first refusal among decisions, if any. */
export function refusalOf(decisions: readonly RateDecision[]): RateDecision | undefined {
  return decisions.find((decision) => !decision.allowed);
}

/**
 * The IETF httpapi rate-limit headers for the budgets a request was counted against, and
 * `Retry-After` when one of them refused it.
 */
export function rateLimitHeaders(decisions: readonly RateDecision[]): Record<string, string> {
  if (decisions.length === 0) return {};
  const headers: Record<string, string> = {
    'RateLimit-Policy': decisions
      .map(({ policy }) => `"${policy.name}";q=${policy.quota};w=${policy.windowSeconds}`)
      .join(', '),
  };
  const counted = decisions.filter((d) => d.remaining !== undefined);
  if (counted.length > 0) {
    headers.RateLimit = counted
      .map((d) => `"${d.policy.name}";r=${d.remaining};t=${d.resetSeconds}`)
      .join(', ');
  }
  const refused = refusalOf(decisions);
  if (refused !== undefined)
    headers['Retry-After'] = String(refused.resetSeconds ?? refused.policy.windowSeconds);
  return headers;
}

/** The message of a refusal on the graph: which limit, and when to come back. */
export function refusalMessage(decision: RateDecision, language: TextLanguage): string {
  const { policy } = decision;
  const values = {
    quota: policy.quota,
    per: text(`rate.per.${policy.name}`, language),
    wait: decision.resetSeconds ?? policy.windowSeconds,
  };
  if (policy.windowSeconds === 60) return text('rate.limit', language, values);
  return text('rate.limit_window', language, { ...values, minutes: Math.round(policy.windowSeconds / 60) });
}

/** Entries the process keeps of which identity a credential counts as. */
const MEMORY_MAX = 10_000;
const MEMORY_MS = 60_000;
/** Seconds Redis keeps what the graph said of a credential it knows, and of one it refused. */
const KNOWN_SECONDS = 300;
const REFUSED_SECONDS = 60;
/** Stored in Redis for a credential the graph refused. */
const REFUSED = '-';

/** Where Redis keeps who a credential is, by the SHA-256 the database keeps of it too. */
function credentialSlot(redisPrefix: string, kind: CredentialKind, credentialHash: Buffer): string {
  return `${redisPrefix}credential:${kind}:${credentialHash.toString('hex')}`;
}

/**
 * Drops what the doors keep in Redis of who a credential is, given the hash the database keeps of
 * it: a revoked key is then looked up again on its next request, refused, and counted against its
 * client address, not against a budget of its own. (What a door process keeps itself it forgets
 * on the access announcement that follows.)
 */
export async function forgetKnownCredential(
  redis: Redis,
  redisPrefix: string,
  kinds: readonly CredentialKind[],
  credentialHash: Buffer,
): Promise<void> {
  await redis.del(...kinds.map((kind) => credentialSlot(redisPrefix, kind, credentialHash)));
}

/**
 * The kinds of credential a budget is kept for: a ticket key, a paired board device's key, a CV
 * account's key, a session.
 */
export type CredentialKind = 'tickets' | 'board' | 'cv' | 'session';

/**
 * Which budget identity a credential counts as, as the graph last said: a ticket key as itself
 * (`key:<sha256>`), a CV key as its account (`account:<id>`, so every key of an account shares
 * one count), a session as its person (`user:<id>`, so signing in again starts no new count), and
 * a credential the graph refuses as nothing (null): its requests count against
 * the client address, so inventing credentials cannot escape the per-address budget. The answer is
 * kept in Redis, shared by every replica of both doors, and briefly in the process. A credential is
 * the one a header presents as read once (contracts/credentials.ts), never the header's text.
 */
export class KnownCredentials {
  private readonly memory = new Map<string, { who: string | null; until: number }>();

  constructor(
    private readonly redis: Redis,
    private readonly redisPrefix: string,
  ) {}

  /** What is remembered of the credential: its identity, null if refused, undefined if unknown. */
  async recall(kind: CredentialKind, credential: string): Promise<string | null | undefined> {
    const slot = this.slotOf(kind, credential);
    const remembered = this.memory.get(slot);
    if (remembered !== undefined && remembered.until > Date.now()) return remembered.who;
    // Redis away: the credential is looked up again rather than the request failed.
    const stored = await this.redis.get(slot).catch(() => null);
    if (stored === null) return undefined;
    const who = stored === REFUSED ? null : stored;
    this.keep(slot, who);
    return who;
  }

  async remember(kind: CredentialKind, credential: string, who: string | null): Promise<void> {
    const slot = this.slotOf(kind, credential);
    this.keep(slot, who);
    await this.redis
      .set(slot, who ?? REFUSED, 'EX', who === null ? REFUSED_SECONDS : KNOWN_SECONDS)
      .catch(() => undefined);
  }

  /**
   * The identity, looked up when unknown with `lookup`, which answers null for a credential the
   * graph refuses and throws when the graph could not tell (then nothing is remembered).
   */
  async of(
    kind: CredentialKind,
    credential: string,
    lookup: () => Promise<string | null>,
  ): Promise<string | null> {
    const known = await this.recall(kind, credential);
    if (known !== undefined) return known;
    let who: string | null;
    try {
      who = await lookup();
    } catch {
      return null;
    }
    await this.remember(kind, credential, who);
    return who;
  }

  /** Forgets, in this process, who every credential is: an access announcement was heard. */
  forgetKept(): void {
    this.memory.clear();
  }

  private slotOf(kind: CredentialKind, credential: string): string {
    return credentialSlot(this.redisPrefix, kind, createHash('sha256').update(credential).digest());
  }

  private keep(slot: string, who: string | null): void {
    if (this.memory.size >= MEMORY_MAX) this.memory.clear();
    this.memory.set(slot, { who, until: Date.now() + MEMORY_MS });
  }
}

/** The budget each kind of credential counts against. */
const POLICY_OF = {
  tickets: 'tickets',
  board: 'boards',
  cv: 'cv',
  session: 'people',
} as const satisfies Record<CredentialKind, keyof ReturnType<typeof ratePolicies>>;

/**
 * Who a credential is, asked of the graph: its budget identity, null when the graph refuses it, a
 * throw when the graph cannot tell (contracts/credentials.ts reads the answer).
 */
export type CredentialLookup = (kind: CredentialKind, credential: string) => Promise<string | null>;

/**
 * The platform's budgets as every door applies them (docs/ARCHITECTURE.md, "Limits on every
 * door"): a request counts against the budget of each credential it presents (as read once, by
 * kind), or of its client address when it presents none the graph knows. A credential not seen
 * lately is looked up only after the address has been counted, so inventing credentials costs what
 * anonymous requests do, on the REST adapter as on the gateway.
 */
export class CredentialBudgets {
  constructor(
    private readonly budgets: RateBudgets,
    private readonly credentials: KnownCredentials,
    private readonly policies: ReturnType<typeof ratePolicies>,
    private readonly lookup: CredentialLookup,
  ) {}

  /**
   * Counts `units` of work for a request presenting `presented` from `address`. The first sight of
   * a credential counts the address once more, for the look-up it costs.
   */
  async take(
    presented: readonly { kind: CredentialKind; credential: string }[],
    address: string | undefined,
    units = 1,
  ): Promise<RateDecision[]> {
    const byAddress = { policy: this.policies.public, who: addressIdentity(address) };
    const looked: RateDecision[] = [];
    const counted: { policy: RatePolicy; who: string }[] = [];
    for (const { kind, credential } of presented) {
      let who = await this.credentials.recall(kind, credential);
      if (who === undefined) {
        if (looked.length === 0) {
          looked.push(await this.budgets.take(byAddress.policy, byAddress.who));
          if (refusalOf(looked) !== undefined) return looked;
        }
        who = await this.credentials.of(kind, credential, () => this.lookup(kind, credential));
      }
      if (who !== null) counted.push({ policy: this.policies[POLICY_OF[kind]], who });
    }
    if (counted.length > 0) return [...looked, ...(await this.budgets.takeAll(counted, units))];
    // Nothing the graph knows: the work is the address's, of which the look-up counted one already.
    if (looked.length === 0) return [await this.budgets.take(byAddress.policy, byAddress.who, units)];
    if (units === 1) return looked;
    return [await this.budgets.take(byAddress.policy, byAddress.who, units - 1)];
  }

  /**
   * A paired board device replaying what it did offline (an operation whose every root field
   * carries `occurredAt`, gateway/limits/sync-operations.ts): its `units` count against the
   * device's sync allowance (`board-sync`, BOARD_SYNC_RATE_LIMIT in BOARD_SYNC_WINDOW_SECONDS)
   * instead of its ordinary budget, and what its arrival took from `boards` is given back, so each
   * operation counts once, and a catch-up after an outage leaves the board its minute's budget.
   * Undefined when that does not apply (the request presents anything but one known board device)
   * or the allowance is spent: the operation then counts against `boards` as any other, so the
   * allowance is bounded on top of the budget and never multiplies it.
   */
  async takeSync(
    presented: readonly { kind: CredentialKind; credential: string }[],
    arrival: readonly RateDecision[],
    units: number,
  ): Promise<RateDecision[] | undefined> {
    const [board] = presented;
    if (presented.length !== 1 || board?.kind !== 'board') return undefined;
    const who = await this.credentials.recall('board', board.credential);
    if (who === undefined || who === null) return undefined;
    const synced = await this.budgets.take(this.policies.boardSync, who, units, true);
    if (!synced.allowed) return undefined;
    const ordinary = arrival.find((decision) => decision.policy.name === 'boards');
    if (ordinary !== undefined) await this.budgets.giveBack(ordinary, who);
    return [...arrival.filter((decision) => decision !== ordinary), synced];
  }

  /**
   * Counts the client address for a credential the graph does not know as valid (never seen lately,
   * or refused), before a door asks the graph about it on its own (a graphql-ws `connection_init`):
   * none for one it knows, whose requests count as they are sent.
   */
  async takeUnknown(
    presented: readonly { kind: CredentialKind; credential: string }[],
    address: string | undefined,
  ): Promise<RateDecision[]> {
    for (const { kind, credential } of presented) {
      if (!(await this.credentials.recall(kind, credential))) {
        return [await this.budgets.take(this.policies.public, addressIdentity(address))];
      }
    }
    return [];
  }
}
