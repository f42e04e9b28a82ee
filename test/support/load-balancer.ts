import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePorts } from './processes';
import { waitUntil } from './wait';

const HAPROXY = process.env.HAPROXY_PATH ?? '/usr/sbin/haproxy';

/** One load-balanced service: a frontend on its own port in front of its replicas' ports. */
export interface BalancedService {
  name: string;
  servers: readonly number[];
  /** The body HAProxy answers with its own 503 (no server up, a connection that died). */
  errorBody: string;
  /**
   * Whether a POST is retried after it reached a server that then answered nothing: only when
   * repeating it is harmless, that is when it carries an Idempotency-Key (REST creates).
   */
  retryPostsWithIdempotencyKey?: boolean;
}

/** What HAProxy's 503 tells a client: wait a second, then retry (docs/OPERATIONS.md). */
export const LOAD_BALANCER_RETRY_AFTER_SECONDS = 1;

/** The REST adapter's documented 503 body (docs/API-DECISIONS.md). */
export const REST_UNAVAILABLE_BODY = JSON.stringify({
  message: 'The service is temporarily unavailable; retry shortly.',
});

/** The gateway's documented GraphQL 503 (`UNAVAILABLE` with `retryAfter`). */
export const GRAPHQL_UNAVAILABLE_BODY = JSON.stringify({
  errors: [
    {
      message: 'The service is temporarily unavailable; retry shortly.',
      extensions: { code: 'UNAVAILABLE', retryAfter: LOAD_BALANCER_RETRY_AFTER_SECONDS },
    },
  ],
});

/** A raw HTTP response as HAProxy's errorfile wants it: every error of its own is this 503. */
function errorFile(body: string): string {
  return [
    'HTTP/1.1 503 Service Unavailable',
    'Content-Type: application/json',
    `Retry-After: ${LOAD_BALANCER_RETRY_AFTER_SECONDS}`,
    'Cache-Control: no-store',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

/**
 * The configuration the replica test runs and docs/OPERATIONS.md shows: health checks on /readyz
 * every 200 ms (three failures in a row take a server out, two successes bring it back), a request whose
 * connection failed is sent to the other server, one request per client connection, and HAProxy's
 * own errors are the platform's 503.
 */
export function haproxyConfig(
  services: readonly (BalancedService & { port: number; errorFile: string })[],
  statsPort: number,
): string {
  const lines = [
    'global',
    '  maxconn 4000',
    '  log stderr format raw daemon',
    '',
    'defaults',
    '  mode http',
    // Only what ended abnormally (a server gone mid-request, a 5xx) is logged, on HAProxy's stderr.
    '  log global',
    '  option httplog',
    '  option dontlog-normal',
    '  timeout connect 1s',
    '  timeout client 60s',
    '  timeout server 30s',
    '  timeout http-keep-alive 10s',
    // A live socket is a tunnel once upgraded; it may stay quiet for long between events.
    '  timeout tunnel 1h',
    // A check waits its turn behind the requests a busy process already holds, and a replica that
    // is slow is still serving: only one that answers nothing for this long is counted as failed.
    // A stopped replica refuses the connection and a draining one answers 503, both at once.
    '  timeout check 10s',
    '  option httpchk GET /readyz',
    '  http-check expect status 200',
    // Three failed checks in a row take a server out: a replica draining answers 503 at once, so it
    // is out within a second, while checks slowed by a burst of work take nobody out.
    '  default-server check inter 200ms fall 3 rise 2',
    // A request whose server is gone is sent to the other one rather than failed.
    '  option redispatch',
    '  retries 3',
    '  retry-on conn-failure empty-response response-timeout',
    '',
    'frontend stats',
    `  bind 127.0.0.1:${statsPort}`,
    '  stats enable',
    '  stats uri /stats',
    '',
  ];
  for (const service of services) {
    lines.push(
      `frontend ${service.name}`,
      `  bind 127.0.0.1:${service.port}`,
      // One request per client connection. When a server dies before answering a request that is
      // not retried, HAProxy answers the 502 (the 503 below) only to the first request of a client
      // connection; on a kept-alive one it closes the connection unanswered and logs nothing,
      // leaving the client to resend, which fetch and most HTTP clients never do for a POST. The
      // servers' side stays kept alive; an upgrade (101, the live sockets) keeps its header.
      '  http-response set-header Connection close unless { status 101 }',
      `  default_backend ${service.name}`,
      '',
      `backend ${service.name}`,
      '  balance roundrobin',
      ...['502', '503', '504'].map((code) => `  errorfile ${code} ${service.errorFile}`),
      // A POST that reached a server may have done its work: only a connection that never carried
      // it is retried, unless the request says it may be repeated.
      service.retryPostsWithIdempotencyKey === true
        ? '  http-request disable-l7-retry if METH_POST !{ req.hdr(idempotency-key) -m found }'
        : '  http-request disable-l7-retry if METH_POST',
      ...service.servers.map((port, i) => `  server ${service.name}-${i} 127.0.0.1:${port}`),
      '',
    );
  }
  return `${lines.join('\n')}\n`;
}

export interface LoadBalancer {
  /** Each service's frontend port. */
  ports: Record<string, number>;
  config: string;
  /** HAProxy's view of one server: `UP`, `DOWN`, `MAINT`, or what its stats say in between. */
  serverStatus(service: string, index: number): Promise<string>;
  /** Resolves once HAProxy's checks see the server `status`. */
  waitForServer(service: string, index: number, status: 'UP' | 'DOWN', timeoutMs?: number): Promise<void>;
  output(): string;
  /** What HAProxy logged (server state changes, requests that ended abnormally) between two times. */
  linesBetween(from: number, to: number): { at: number; line: string }[];
  stop(): Promise<void>;
}

/** HAProxy as a child of the test, on free ports, in front of `services`. */
export async function startLoadBalancer(services: readonly BalancedService[]): Promise<LoadBalancer> {
  const folder = await mkdtemp(join(tmpdir(), 'nida-haproxy-'));
  const [statsPort, ...frontendPorts] = (await freePorts(services.length + 1)) as [number, ...number[]];
  const placed = await Promise.all(
    services.map(async (service, i) => {
      const file = join(folder, `${service.name}.503.http`);
      await writeFile(file, errorFile(service.errorBody));
      return { ...service, port: frontendPorts[i]!, errorFile: file };
    }),
  );
  const config = haproxyConfig(placed, statsPort);
  const configFile = join(folder, 'haproxy.cfg');
  await writeFile(configFile, config);
  const child: ChildProcess = spawn(HAPROXY, ['-f', configFile, '-db'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  // Each line carries when it arrived: HAProxy's raw log stamps requests but not a server's state changes.
  const stamped: { at: number; line: string }[] = [];
  // One per stream, so a line split across chunks of one is never joined to the other's.
  const lineReader = (): ((chunk: Buffer) => void) => {
    let partial = '';
    return (chunk) => {
      const text = chunk.toString();
      output += text;
      const lines = (partial + text).split('\n');
      partial = lines.pop() ?? '';
      const at = Date.now();
      for (const line of lines) if (line !== '') stamped.push({ at, line });
    };
  };
  child.stdout?.on('data', lineReader());
  child.stderr?.on('data', lineReader());
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const stats = async (): Promise<string[][]> => {
    const response = await fetch(`http://127.0.0.1:${statsPort}/stats;csv`);
    return (await response.text())
      .split('\n')
      .filter((line) => line !== '' && !line.startsWith('#'))
      .map((line) => line.split(','));
  };
  const serverStatus = async (service: string, index: number): Promise<string> => {
    const row = (await stats()).find((cells) => cells[0] === service && cells[1] === `${service}-${index}`);
    // Column 18 is `status` in HAProxy's CSV (docs: "9.1. CSV format").
    return row?.[17] ?? 'absent';
  };

  try {
    await waitUntil(
      async () => {
        if (child.exitCode !== null) throw new Error(`haproxy exited with ${child.exitCode}: ${output}`);
        return (await fetch(`http://127.0.0.1:${statsPort}/stats;csv`).catch(() => null))?.ok === true;
      },
      10_000,
      'haproxy serving its stats',
    );
  } catch (error) {
    child.kill('SIGKILL');
    await rm(folder, { recursive: true, force: true });
    throw error;
  }

  return {
    ports: Object.fromEntries(placed.map((service) => [service.name, service.port])),
    config,
    serverStatus,
    waitForServer: (service, index, status, timeoutMs = 20_000) =>
      waitUntil(
        async () => (await serverStatus(service, index)).startsWith(status),
        timeoutMs,
        `haproxy seeing ${service}-${index} ${status}`,
      ),
    output: () => output,
    linesBetween: (from, to) => stamped.filter((l) => l.at >= from && l.at <= to),
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
      await rm(folder, { recursive: true, force: true });
    },
  };
}
