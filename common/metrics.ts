import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { Request, Response } from 'express';
import type { Pool } from 'pg';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { MikroORM } from './database';
import type { RateBudgetObserver } from './rate-budget';
import type { Redis } from './redis';

/** OpenTelemetry's advice for `http.server.request.duration`, in seconds. */
export const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

/** `http_route` of a request no route template matched: one value, whatever the path was. */
export const UNMATCHED_ROUTE = 'unmatched';

/** Where a handler that is no express route (Apollo's middleware) names its template. */
const ROUTE_LOCAL = 'httpRoute';

/**
 * The route template of a request as OpenTelemetry spells it (`/api/v1/tickets/{id}`): express's
 * matched route under its mount path, `:param` and `*splat` written `{param}`. Never the raw path,
 * so an id, token or key cannot become a label value.
 */
export function routeTemplate(req: Request, res: Response): string {
  const named = (res.locals as Record<string, unknown>)[ROUTE_LOCAL];
  return typeof named === 'string' ? named : UNMATCHED_ROUTE;
}

/**
 * Remembers the route template as express matches the route. Read later, at `finish`, `baseUrl`
 * would be gone: a router restores it when a handler passes an error on to the app's handler.
 * A mount path holding a parameter would put a raw value into `baseUrl`; none is mounted so.
 */
export function captureRoute(req: Request, res: Response): void {
  let matched: unknown;
  Object.defineProperty(req, 'route', {
    configurable: true,
    enumerable: true,
    get: () => matched,
    set(route: { path?: unknown } | undefined) {
      matched = route;
      if (typeof route?.path === 'string') {
        (res.locals as Record<string, unknown>)[ROUTE_LOCAL] = templateOf(`${req.baseUrl}${route.path}`);
      }
    },
  });
}

/** `/t/:token{/:part}` → `/t/{token}{/{part}}`: express 5's path syntax in OpenTelemetry's form. */
export function templateOf(path: string): string {
  const template = path.replace(/[:*]([A-Za-z_$][\w$]*)/g, '{$1}');
  return template === '' ? '/' : template;
}

/** Marks the requests a non-route handler serves (Apollo under `/graphql`) with its template. */
export function nameRoute(template: string) {
  return (_req: Request, res: Response, next: () => void): void => {
    (res.locals as Record<string, unknown>)[ROUTE_LOCAL] = template;
    next();
  };
}

/**
 * Label values from an open set (GraphQL operation names) kept bounded: the first `cap` distinct
 * values are kept as they are, every later one is `other`. A cap, not an allow-list, because the
 * doors may not import each other, so the gateway cannot know the adapter's operations; who may
 * add a value is the caller's decision (`value` adds, `kept` never does).
 */
const MAX_LABEL_LENGTH = 100;

export class BoundedLabel {
  private readonly seen = new Set<string>();

  constructor(
    private readonly cap: number,
    private readonly overflow = 'other',
  ) {}

  value(raw: string): string {
    if (this.seen.has(raw)) return raw;
    // A name as long as a document would make every scrape carry it.
    if (raw.length > MAX_LABEL_LENGTH) return this.overflow;
    if (this.seen.size >= this.cap) return this.overflow;
    this.seen.add(raw);
    return raw;
  }

  /** The value when it already is one, the overflow otherwise: for a sender that may not add one. */
  kept(raw: string): string {
    return this.seen.has(raw) ? raw : this.overflow;
  }
}

/** How a process's Postgres connections stand at one moment. */
export interface PoolState {
  inUse: number;
  idle: number;
  waiting: number;
}

/** The connection counts of a `pg` pool (the doors' probe pool). */
export function pgPoolState(pool: Pool): PoolState {
  return { inUse: pool.totalCount - pool.idleCount, idle: pool.idleCount, waiting: pool.waitingCount };
}

interface TarnPool {
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
}

/** The connection counts of MikroORM's knex (tarn) pool; zeros until its first connection. */
export function ormPoolState(orm: MikroORM): () => PoolState {
  return () => {
    const knex = orm.em.getConnection().getKnex() as unknown as { client?: { pool?: TarnPool } };
    const pool = knex.client?.pool;
    if (pool === undefined) return { inUse: 0, idle: 0, waiting: 0 };
    return { inUse: pool.numUsed(), idle: pool.numFree(), waiting: pool.numPendingAcquires() };
  };
}

/**
 * The instruments of one process, in a registry of its own: tests run every process in one Node
 * process, where prom-client's global registry would mix their series.
 */
export class ProcessMetrics {
  readonly registry = new Registry();
  readonly httpDuration: Histogram<'http_request_method' | 'http_route' | 'http_response_status_code'>;
  private server?: Server;

  constructor(readonly service: string) {
    // prom-client samples event-loop delay every 10 ms by default: a hundred wake-ups a second of
    // an otherwise idle process, 0.5–0.7% of a core each on a machine where waking is dear
    // (bench/wake-cost.ts). Every 100 ms still catches any stall of 100 ms or more whole.
    collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: 100 });
    this.httpDuration = new Histogram({
      name: 'http_server_request_duration_seconds',
      help: 'Duration of HTTP server requests, by method, route template and status.',
      labelNames: ['http_request_method', 'http_route', 'http_response_status_code'],
      buckets: DURATION_BUCKETS,
      registers: [this.registry],
    });
  }

  counter<L extends string>(name: string, help: string, labelNames: readonly L[] = []): Counter<L> {
    return new Counter({ name, help, labelNames, registers: [this.registry] });
  }

  histogram<L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[] = [],
    buckets = DURATION_BUCKETS,
  ): Histogram<L> {
    return new Histogram({ name, help, labelNames, buckets, registers: [this.registry] });
  }

  /** A gauge read when Prometheus scrapes, so nothing is counted between scrapes. */
  gauge<L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    collect: (gauge: Gauge<L>) => void | Promise<void>,
  ): Gauge<L> {
    return new Gauge({
      name,
      help,
      labelNames,
      registers: [this.registry],
      collect() {
        return collect(this);
      },
    });
  }

  /** Postgres connections in use, idle and waiting for one, read on scrape. */
  watchPool(state: () => PoolState): void {
    this.gauge(
      'nida_postgres_pool_connections',
      'Postgres connections of this process: in_use, idle, and waiting (requests queued for one).',
      ['state'],
      (gauge) => {
        const now = state();
        gauge.set({ state: 'in_use' }, now.inUse);
        gauge.set({ state: 'idle' }, now.idle);
        gauge.set({ state: 'waiting' }, now.waiting);
      },
    );
  }

  /**
   * Redis connection errors and reconnects. With no offline queue every command fails at once while
   * Redis is away, and the limits fail open; these counters rise for as long as that lasts.
   */
  watchRedis(redis: Redis): void {
    const errors = this.counter('nida_redis_errors_total', 'Errors of the Redis connection.');
    const reconnects = this.counter('nida_redis_reconnects_total', 'Reconnection attempts to Redis.');
    errors.inc(0);
    reconnects.inc(0);
    redis.on('error', () => errors.inc());
    redis.on('reconnecting', () => reconnects.inc());
  }

  /**
   * Counts a process's rate-budget outcomes: every count that failed open (Redis away: the
   * limits let everything through) and, for a door that refuses with these budgets itself, each
   * refusal by the budget (principal) that ran out.
   */
  rateBudgetObserver(door?: string): RateBudgetObserver {
    const failedOpen = this.counter(
      'nida_rate_limit_fail_open_total',
      'Rate-budget counts that could not reach Redis and let the request through uncounted.',
    );
    failedOpen.inc(0);
    const refused =
      door === undefined
        ? undefined
        : this.counter('nida_rate_limited_total', 'Requests refused by a rate budget, by door and budget.', [
            'door',
            'principal',
          ]);
    return {
      failedOpen: () => failedOpen.inc(),
      refused:
        refused === undefined
          ? undefined
          : (decision) => refused.inc({ door, principal: decision.policy.name }),
    };
  }

  /** Serves `GET /metrics` on its own listener, apart from the public port. Returns the bound port. */
  async listen(port: number, host: string): Promise<number> {
    const server = createServer((req, res) => {
      if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
        res.writeHead(404).end();
        return;
      }
      this.registry.metrics().then(
        (text) => res.writeHead(200, { 'content-type': this.registry.contentType }).end(text),
        (error: unknown) => res.writeHead(500).end(error instanceof Error ? error.message : String(error)),
      );
    }).listen(port, host);
    this.server = server;
    await Promise.race([
      once(server, 'listening'),
      once(server, 'error').then(([error]) => {
        throw error instanceof Error && (error as NodeJS.ErrnoException).code === 'EADDRINUSE'
          ? new Error(`${this.service}: metrics port ${port} on ${host} is already in use`)
          : error;
      }),
    ]);
    return this.port;
  }

  get port(): number {
    const address = this.server?.address();
    if (address === null || address === undefined || typeof address === 'string') {
      throw new Error(`${this.service} metrics are not listening`);
    }
    return address.port;
  }

  async close(): Promise<void> {
    const server = this.server;
    if (server === undefined) return;
    this.server = undefined;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
  }
}

/** The metrics port of a process: METRICS_PORT, else its public port + 5000 (0 stays 0). */
export function metricsPortFor(configured: number | undefined, publicPort: number): number {
  if (configured !== undefined) return configured;
  return publicPort === 0 ? 0 : publicPort + 5000;
}
