import 'reflect-metadata';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ConfigError, loadConfig, redactUrl, type Config } from '../common/config';
import { describeFailure } from '../common/process';
import { connectRedis } from '../common/redis';
import { migrateAll, seedDemoData, seedReferenceData, type DemoData } from './database-setup';

interface ProcessSpec {
  name: string;
  script: string;
  port: (config: Config) => number;
  /** V8 flags the process is launched with (the deployment manifests launch it with the same). */
  v8Flags?: string[];
}

const SUBGRAPH_PROCESSES: ProcessSpec[] = [
  { name: 'tickets-subgraph', script: 'subgraphs/tickets/main.js', port: (c) => c.ports.tickets },
  { name: 'cv-subgraph', script: 'subgraphs/cv/main.js', port: (c) => c.ports.cv },
  { name: 'billing-subgraph', script: 'subgraphs/billing/main.js', port: (c) => c.ports.billing },
  { name: 'identity-subgraph', script: 'subgraphs/identity/main.js', port: (c) => c.ports.identity },
];
const EVENTS: ProcessSpec = {
  name: 'tickets-events',
  script: 'subgraphs/tickets/events/main.js',
  port: (c) => c.eventsPort,
};
const GATEWAY: ProcessSpec = {
  name: 'gateway',
  script: 'gateway/main.js',
  port: (c) => c.ports.gateway,
  // Most of what the gateway allocates lives for one request, but across a round trip to Redis and
  // a subgraph: a young generation that fills within a few requests most likely copies and
  // promotes much of it, where a larger one lets it die young. CPU per ticket create fell by
  // about a quarter (docs/performance-log/peers.md, "…a young generation sized to requests"). Written again
  // in docker-compose.yml, which test/kubernetes.spec.ts holds the Deployment to.
  v8Flags: ['--max-semi-space-size=64'],
};
const REST_ADAPTER: ProcessSpec = {
  name: 'rest-adapter',
  script: 'rest-adapter/main.js',
  port: (c) => c.ports.rest,
};

const READY_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 15_000;

interface Child {
  spec: ProcessSpec;
  process: ChildProcess;
  exited: Promise<number | null>;
}

function localHost(config: Config): string {
  return config.listenHost === '0.0.0.0' || config.listenHost === '::' ? '127.0.0.1' : config.listenHost;
}

function launch(spec: ProcessSpec): Child {
  const args = [...(spec.v8Flags ?? []), '--enable-source-maps', join(__dirname, '..', spec.script)];
  const child = spawn(process.execPath, args, {
    env: process.env,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  return { spec, process: child, exited };
}

async function waitReady(child: Child, config: Config): Promise<void> {
  const url = `http://${localHost(config)}:${child.spec.port(config)}/readyz`;
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let exitCode: number | null | undefined;
  void child.exited.then((code) => (exitCode = code));
  while (Date.now() < deadline) {
    if (exitCode !== undefined)
      throw new Error(`${child.spec.name} exited with code ${exitCode} while starting`);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await sleep(150);
  }
  throw new Error(`${child.spec.name} was not ready at ${url} within ${READY_TIMEOUT_MS / 1000} s`);
}

async function stopAll(children: Child[]): Promise<void> {
  // Edge first, so nothing new reaches a subgraph that is already draining.
  for (const child of [...children].reverse()) {
    if (child.process.exitCode !== null || child.process.signalCode !== null) continue;
    child.process.kill('SIGTERM');
    const killer = setTimeout(() => child.process.kill('SIGKILL'), STOP_TIMEOUT_MS);
    await child.exited;
    clearTimeout(killer);
  }
}

function summary(config: Config, demo: DemoData | null): string {
  const host = localHost(config);
  const graphql = `http://${host}:${config.ports.gateway}/graphql`;
  const rest = `http://${host}:${config.ports.rest}/api/v1`;
  return [
    '',
    'The platform is running:',
    `  REST API (legacy clients)   ${rest}`,
    `  staff board                 http://${host}:${config.ports.rest}/board`,
    `  GraphQL gateway             ${graphql}`,
    `  tickets subgraph            http://${host}:${config.ports.tickets}/graphql`,
    `  cv subgraph                 http://${host}:${config.ports.cv}/graphql`,
    `  billing subgraph            http://${host}:${config.ports.billing}/graphql`,
    `  identity subgraph           http://${host}:${config.ports.identity}/graphql`,
    `  tickets events worker       http://${host}:${config.eventsPort}/readyz (outbox relay, webhooks)`,
    `  public URLs built from      ${config.publicBaseUrl}`,
    `  database                    ${redactUrl(config.databaseUrl)}`,
    '  every process answers /healthz and /readyz on its own port',
    `  and GET /metrics on ${config.metrics.host}, ${config.metrics.port === 0 ? 'on a free port (in its log line)' : 'its port + 5000 (REST 8000, gateway 9000)'}`,
    '',
    'Demo data: the plan catalogue is seeded.',
    ...(demo === null
      ? ['No demo venue in production (NODE_ENV=production).']
      : [
          `Demo key: ${demo.ticketKey}   (branch "${demo.branch}" of venue "${demo.venue}", ${demo.plan} plan)`,
          'Try:',
          `  curl ${rest}/plans`,
          `  curl -X POST ${rest}/tickets -H 'Authorization: Bearer ${demo.ticketKey}' -H 'content-type: application/json' -d '{"customer_phone":"0770 123 4567"}'`,
          `  curl ${rest}/tickets -H 'Authorization: Bearer ${demo.ticketKey}'`,
          `  curl ${graphql} -H 'content-type: application/json' -H 'Authorization: Bearer ${demo.ticketKey}' -d '{"query":"{ tickets { total items { number status } } }"}'`,
          '',
          `Demo sign-in: ${demo.ownerEmail} / ${demo.ownerPassword}   (owner of "${demo.venue}")`,
          `  curl ${graphql} -H 'content-type: application/json' -d '{"query":"mutation { signIn(input: {email: \\"${demo.ownerEmail}\\", password: \\"${demo.ownerPassword}\\"}) { token } }"}'`,
          '',
          `Demo CV key: ${demo.cvKey}   (account "${demo.cvAccount}", ${demo.cvPlan} plan, one Arabic CV)`,
          'Try:',
          `  curl ${rest}/me -H 'X-API-Key: ${demo.cvKey}'`,
          `  curl ${rest}/cvs/${demo.cvId} -H 'X-API-Key: ${demo.cvKey}' -H 'Accept-Language: ar'`,
          `  curl ${graphql} -H 'content-type: application/json' -H 'X-API-Key: ${demo.cvKey}' -d '{"query":"{ cvs { id title personal { fullName } } }"}'`,
        ]),
    '',
    'Stop with Ctrl-C (each process drains its in-flight requests).',
    '',
  ].join('\n');
}

/** `npm start`: database created and migrated, catalogue seeded, every process started and ready. */
async function main(): Promise<void> {
  // Outside production the supervisor makes the stack's internal secret, so no two local stacks
  // share one and a subgraph port opened by mistake answers nobody; production brings its own.
  if (process.env.NODE_ENV !== 'production' && !process.env.INTERNAL_SECRET) {
    process.env.INTERNAL_SECRET = randomBytes(32).toString('base64url');
  }
  const config = loadConfig();
  if (config.metrics.port !== undefined && config.metrics.port !== 0) {
    // The children share this environment: seven processes cannot bind one port.
    throw new ConfigError([
      `METRICS_PORT: names one process's port, and npm start runs seven; leave it unset (each public port + 5000) or 0 (free ports) (got ${config.metrics.port})`,
    ]);
  }
  const redis = await connectRedis(config.redis, 'start');
  redis.disconnect();
  const report = await migrateAll(config);
  await seedReferenceData(config);
  const demo = config.nodeEnv === 'production' ? null : await seedDemoData(config);
  process.stdout.write(
    `${JSON.stringify({ msg: 'database ready', createdDatabase: report.createdDatabase, applied: report.applied })}\n`,
  );

  const children: Child[] = [];
  let stopping = false;
  const shutdown = (code: number) => {
    if (stopping) return;
    stopping = true;
    void stopAll(children).then(() => process.exit(code));
  };
  process.once('SIGINT', () => shutdown(0));
  process.once('SIGTERM', () => shutdown(0));

  const start = async (specs: ProcessSpec[]) => {
    const started = specs.map(launch);
    children.push(...started);
    for (const child of started) {
      void child.exited.then((code) => {
        if (stopping) return;
        process.stderr.write(`start: ${child.spec.name} exited with code ${code}; stopping the others\n`);
        shutdown(1);
      });
    }
    await Promise.all(started.map((child) => waitReady(child, config)));
  };
  try {
    await start([...SUBGRAPH_PROCESSES, EVENTS]);
    await start([GATEWAY]);
    await start([REST_ADAPTER]);
  } catch (error) {
    stopping = true;
    await stopAll(children);
    throw error;
  }
  process.stdout.write(summary(config, demo));
}

main().catch((error: unknown) => {
  process.stderr.write(`start: ${describeFailure(error)}\n`);
  process.exit(1);
});
