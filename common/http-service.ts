import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import express, { type Express } from 'express';
import { clientAddressOf, fromTrustedProxy, proxyTrust, type ProxyTrust } from './client-address';
import type { Config } from './config';
import { presentsInternalCredential } from './internal-credential';
import type { Logger } from './logger';
import { captureRoute, metricsPortFor, routeTemplate, type PoolState, type ProcessMetrics } from './metrics';
import { redactUrl } from './redaction';
import type { Redis } from './redis';
import {
  MESSAGE_IDS_HEADER,
  REQUEST_ID_HEADER,
  requestIdFrom,
  runWithRequestId,
  wantsMessageIds,
} from './request-context';
import { currentTraceresponse, TRACERESPONSE_HEADER, trustCallerTraceWhen } from './trace-context';

/** A dependency of a process; readiness fails while any check it cannot serve without fails. */
export interface ReadinessCheck {
  name: string;
  check(): Promise<unknown>;
  /**
   * The process serves without it, worse (Redis: rate limits fail open, caches are skipped): its
   * failure is reported as `degraded` and leaves the process ready, since a load balancer taking
   * every replica out would turn a partial outage into a whole one.
   */
  degradesOnly?: boolean;
}

export interface HttpServiceOptions {
  name: string;
  logger: Logger;
  checks: ReadinessCheck[];
  readyCheckTimeoutMs: number;
  shutdownTimeoutMs: number;
  /**
   * How long `/readyz` answers 503 before the listener closes, requests still served meanwhile: a
   * load balancer polling it stops sending new requests here before any connection is refused.
   */
  shutdownDelayMs?: number;
  /** Figures `/healthz` reports beside its status, such as a gateway's live subscribers. */
  health?: () => Record<string, unknown>;
  /** The most header bytes a request may carry (answered 431 past it); Node's 16 KiB if unset. */
  maxHeaderBytes?: number;
  /** TRUSTED_PROXIES: whose `X-Forwarded-For` names the client (`req.ip`); nobody's if unset. */
  trustedProxies?: readonly string[];
  /**
   * The platform's credential as this process accepts it: a request that carries it is another
   * process of the platform, whose `traceparent` the server span continues as a trusted proxy's.
   */
  internalSecrets?: readonly string[];
  /**
   * The process's instruments: every request is observed in `http_server_request_duration_seconds`
   * and `GET /metrics` is served on `port` (METRICS_PORT; unset, the public port + 5000) at `host`.
   */
  metrics?: { registry: ProcessMetrics; host: string; port: number | undefined };
}

/**
 * Header limits along a request's way, each hop's above the one before it: what a hop accepted,
 * plus the headers it adds when passing the request on (the internal credential, the request id,
 * the session's person), must fit the next hop's limit, or a header the client was allowed to send
 * turns into a server error one hop later. The gateway keeps Node's 16 KiB for its clients.
 */
export const HEADER_LIMITS = {
  /** A little under the gateway's, so the adapter's own headers fit on top. */
  restAdapter: 15 * 1024,
  /** Room for what the gateway accepted (16 KiB over HTTP, a socket's parameters) and its own headers. */
  subgraph: 32 * 1024,
} as const;

const HEALTH_PATHS = new Set(['/healthz', '/readyz']);

/**
 * The frame every process serves in: request ids (and, when traced, `traceresponse`), access
 * logs, `/healthz`, `/readyz`, and a drain on close that lets in-flight requests finish while refusing new ones.
 */
export class HttpService {
  readonly app: Express;
  private server?: Server;
  private draining = false;
  private announced?: Promise<void>;
  private readonly trust: ProxyTrust;
  /** Answers the requests it admits before express sees them (the gateway's `POST /graphql`). */
  private frontDoor?: (req: IncomingMessage, res: ServerResponse) => boolean;

  /** A process of the platform: ready while Postgres answers; degraded while Redis does not. */
  static forPlatform(
    config: Config,
    name: string,
    logger: Logger,
    backing: {
      postgres: () => Promise<unknown>;
      redis: Redis;
      health?: () => Record<string, unknown>;
      metrics: ProcessMetrics;
      /** The process's Postgres pool, reported as connection gauges on scrape. */
      pool?: () => PoolState;
    },
    maxHeaderBytes?: number,
  ): HttpService {
    backing.metrics.watchRedis(backing.redis);
    if (backing.pool !== undefined) backing.metrics.watchPool(backing.pool);
    return new HttpService({
      name,
      logger,
      checks: [
        { name: 'postgres', check: backing.postgres },
        { name: 'redis', check: () => backing.redis.ping(), degradesOnly: true },
      ],
      readyCheckTimeoutMs: config.readyCheckTimeoutMs,
      shutdownTimeoutMs: config.shutdownTimeoutMs,
      shutdownDelayMs: config.shutdownDelayMs,
      health: backing.health,
      maxHeaderBytes,
      trustedProxies: config.trustedProxies,
      internalSecrets: config.acceptedInternalSecrets,
      metrics: { registry: backing.metrics, host: config.metrics.host, port: config.metrics.port },
    });
  }

  constructor(private readonly options: HttpServiceOptions) {
    this.app = express();
    this.app.disable('x-powered-by');
    // Answers are per request and never revalidated; hashing every body for an ETag was pure cost.
    this.app.disable('etag');
    this.trust = proxyTrust(options.trustedProxies ?? []);
    this.app.set('trust proxy', this.trust);
    const fromPlatform =
      options.internalSecrets === undefined
        ? () => false
        : presentsInternalCredential(options.internalSecrets);
    trustCallerTraceWhen((req) => fromTrustedProxy(req, this.trust) || fromPlatform(req));
    this.app.use((req, res, next) => {
      if (options.metrics !== undefined) captureRoute(req, res);
      this.frame(req, res, () => routeTemplate(req, res), req.originalUrl.split('?')[0] ?? '/', next);
    });
    this.app.get('/healthz', (_req, res) => {
      res.json({ status: 'ok', service: options.name, ...options.health?.() });
    });
    this.app.get('/readyz', (_req, res, next) => {
      this.readiness().then(({ status, checks }) => {
        res.status(status === 'unavailable' ? 503 : 200).json({ status, service: options.name, checks });
      }, next);
    });
  }

  get port(): number {
    const address = this.server?.address();
    if (address === null || address === undefined || typeof address === 'string') {
      throw new Error(`${this.options.name} is not listening`);
    }
    return address.port;
  }

  /** The port `GET /metrics` is served on. */
  get metricsPort(): number {
    if (this.options.metrics === undefined) throw new Error(`${this.options.name} serves no metrics`);
    return this.options.metrics.registry.port;
  }

  get httpServer(): Server {
    if (this.server === undefined) throw new Error(`${this.options.name} is not listening`);
    return this.server;
  }

  /**
   * Puts `handler` in front of express: it sees every request first and answers those it admits
   * (returning true) itself, in the same frame express's requests get (`frame`); the rest go on to
   * express untouched.
   */
  setFrontDoor(handler: (req: IncomingMessage, res: ServerResponse) => boolean): void {
    this.frontDoor = handler;
  }

  /** The client's address, as express's `req.ip` gives it for a request that reached express. */
  clientAddress(req: IncomingMessage): string | undefined {
    return clientAddressOf(req, this.trust);
  }

  async listen(port: number, host: string): Promise<number> {
    const server = createServer(
      this.options.maxHeaderBytes === undefined ? {} : { maxHeaderSize: this.options.maxHeaderBytes },
      (req, res) => {
        if (this.frontDoor?.(req, res) !== true) this.app(req, res);
      },
    ).listen(port, host);
    this.server = server;
    // Longer than typical load-balancer idle timeouts so the proxy closes first.
    server.keepAliveTimeout = 65_000;
    await Promise.race([
      once(server, 'listening'),
      once(server, 'error').then(([error]) => {
        throw error instanceof Error && (error as NodeJS.ErrnoException).code === 'EADDRINUSE'
          ? new Error(`${this.options.name}: port ${port} on ${host} is already in use`)
          : error;
      }),
    ]);
    const metrics = this.options.metrics;
    if (metrics !== undefined) {
      try {
        await metrics.registry.listen(metricsPortFor(metrics.port, this.port), metrics.host);
      } catch (error) {
        await new Promise<void>((resolve) => server.close(() => resolve()));
        this.server = undefined;
        throw error;
      }
      this.options.logger.info(
        { port: this.port, host, metricsPort: metrics.registry.port, metricsHost: metrics.host },
        `${this.options.name} listening`,
      );
    } else {
      this.options.logger.info({ port: this.port, host }, `${this.options.name} listening`);
    }
    return this.port;
  }

  /**
   * The first step of a stop: `/readyz` answers 503 and every response says `Connection: close`,
   * while requests are still served for `shutdownDelayMs`. A load balancer's health checks see the
   * 503 and send nothing new here, so closing the listener afterwards refuses nobody, and its
   * keep-alive connections end with a response instead of being cut under a request.
   */
  announceDrain(): Promise<void> {
    if (this.announced !== undefined) return this.announced;
    this.draining = true;
    const delayMs = this.options.shutdownDelayMs ?? 0;
    if (delayMs > 0) {
      this.options.logger.info(
        { delayMs },
        `${this.options.name} not ready; serving until the listener closes`,
      );
    }
    this.announced = new Promise<void>((resolve) => setTimeout(resolve, delayMs));
    return this.announced;
  }

  /**
   * Stops after announcing the drain (announceDrain): stops accepting connections, lets in-flight
   * requests finish, then closes what is left.
   */
  async close(): Promise<void> {
    const server = this.server;
    if (server === undefined) return;
    await this.announceDrain();
    // A scrape has nothing in flight worth draining; its port is free again at once.
    await this.options.metrics?.registry.close();
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    // Keep-alive sockets between requests would hold close() open; drop each one once idle.
    server.closeIdleConnections();
    const sweep = setInterval(() => server.closeIdleConnections(), 50);
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(true), this.options.shutdownTimeoutMs);
    });
    const forced = await Promise.race([closed.then(() => false), timedOut]);
    clearInterval(sweep);
    clearTimeout(timer);
    if (forced) {
      this.options.logger.warn('drain timed out; closing remaining connections');
      server.closeAllConnections();
      await closed;
    }
    this.server = undefined;
  }

  /**
   * The frame every request is served in: its request id (and, when traced, `traceresponse`) on
   * the answer, `Connection: close` while draining, the request context `next` runs in, and at
   * `finish` the duration observed under `route()` and the access log line for `path`, its
   * capability tokens replaced by their fingerprints (common/redaction.ts).
   */
  frame(
    req: IncomingMessage,
    res: ServerResponse,
    route: () => string,
    path: string,
    next: () => void,
  ): void {
    const requestId = requestIdFrom(req.headers[REQUEST_ID_HEADER]);
    req.headers[REQUEST_ID_HEADER] = requestId;
    res.setHeader('X-Request-Id', requestId);
    // The server span of this request, when traced: what a support request quotes to find it.
    const traceresponse = currentTraceresponse();
    if (traceresponse !== undefined) res.setHeader(TRACERESPONSE_HEADER, traceresponse);
    if (this.draining) res.setHeader('Connection', 'close');
    const started = process.hrtime.bigint();
    runWithRequestId(
      requestId,
      () => {
        res.on('finish', () => {
          const seconds = Number(process.hrtime.bigint() - started) / 1e9;
          this.options.metrics?.registry.httpDuration.observe(
            {
              http_request_method: req.method,
              http_route: route(),
              http_response_status_code: res.statusCode,
            },
            seconds,
          );
          const level = HEALTH_PATHS.has(path) ? 'debug' : 'info';
          // Below the configured level no line is written, so nothing of it is worked out.
          if (!this.options.logger.isLevelEnabled(level)) return;
          const entry = {
            method: req.method,
            // A token in the path opens a ticket, a display or a CV: the line names its fingerprint.
            path: redactUrl(path),
            status: res.statusCode,
            durationMs: Number((process.hrtime.bigint() - started) / 1000n) / 1000,
          };
          this.options.logger[level](entry, 'request');
        });
        next();
      },
      wantsMessageIds(req.headers[MESSAGE_IDS_HEADER]),
    );
  }

  private async readiness(): Promise<{
    status: 'ready' | 'degraded' | 'unavailable';
    checks: Record<string, string>;
  }> {
    const checks: Record<string, string> = {};
    if (this.draining) return { status: 'unavailable', checks: { shutdown: 'draining' } };
    await Promise.all(
      this.options.checks.map(async (probe) => {
        const name = probe.name;
        try {
          await withTimeout(probe.check(), this.options.readyCheckTimeoutMs, `${name} did not answer`);
          checks[name] = 'ok';
        } catch (error) {
          checks[name] = error instanceof Error ? error.message : String(error);
        }
      }),
    );
    const failed = this.options.checks.filter((probe) => checks[probe.name] !== 'ok');
    if (failed.length === 0) return { status: 'ready', checks };
    return {
      status: failed.every((probe) => probe.degradesOnly === true) ? 'degraded' : 'unavailable',
      checks,
    };
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${message} within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
