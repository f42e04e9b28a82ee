import 'reflect-metadata';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { projectRoot } from '../common/paths';
import { startStack } from '../tools/stack';
import { benchEnv, childRunning, profiledEnv } from './bench-stack';
import { flag, load, textFlag, type LoadResult } from './load';
import {
  idleConnectionMemory,
  idleSubscriberMemory,
  measureFanOut,
  probeSubscription,
  type FanOutResult,
} from './peers/fan-out';
import {
  cpuSeconds,
  cpuSecondsByGroup,
  readProcesses,
  type ProcessReading,
  machineBusySeconds,
  graphqlRequestsServed,
  listeningPorts,
  startPeer,
  type PeerProcess,
} from './peers/process-stats';
import { comparable, seed, workloads, type Workload } from './peers/workloads';

/**
 * The platform's gateway against two peers over the same subgraphs, database and supergraph: a
 * stock `@apollo/gateway` on `@apollo/server` (bench/peers/apollo-peer.ts) and Hive Gateway's
 * runtime (bench/peers/hive-peer.ts). Each gateway is its own process; its CPU is read from /proc
 * around every load slice, and the subgraphs' /metrics counters say how many subgraph requests each
 * client request cost. Rounds interleave the gateways (the order rotates each round) so drift of the
 * shared machine falls on all three alike; figures are medians over rounds.
 *
 *   npm run build && npm run bench:peers -- [--rounds 3] [--seconds 5] [--settle 1] [--subscribers 1000] [--idle 10000]
 *                                           [--workloads 'ticket by id,ticket create'] [--connections 1]
 *                                           [--profile /tmp/nida-prof]
 *
 * `--settle` is the seconds of unmeasured load each gateway gets just before each measured slice
 * (0: none), so a slice sees that gateway in the workload's steady state whatever ran before it.
 *
 * `--workloads` runs only the workloads whose names hold one of the comma-separated texts, and
 * the subscription fan-out only when one of them is `subscriptions`: a narrower run for comparing
 * one change, not the issue's figures; so does `--connections`, which keeps one of 1 and 50.
 * `--profile` writes a CPU profile of this gateway and of each subgraph (serving every gateway's
 * load) over the measured rounds into that folder (summarised by `node dist/bench/cpu-profile.js`).
 *
 * Targets, on every workload: ours ≥ 1.5 × Apollo's req/s, ≤ 0.7 × Apollo's CPU per request,
 * ≥ 1.0 × Hive's req/s.
 *
 * Beside them, on the workloads one subgraph answers whole, two floors (bench/peers/floor-peer.ts):
 * a relay with no GraphQL work at all, and the same relay counting each request in Redis as the
 * platform must. Their CPU per request against Apollo's is the least any gateway could reach there.
 */

/** The gateways the targets compare; the subscription fan-out is asked of these. */
type PeerName = 'ours' | 'apollo' | 'hive';
type GatewayName = PeerName | 'floor' | 'floor+count';

/** The relays of bench/peers/floor-peer.ts: they serve single-fetch workloads only. */
const FLOORS: readonly GatewayName[] = ['floor', 'floor+count'];

const serves = (gateway: { name: GatewayName }, workload: Workload) =>
  workload.singleFetch || !FLOORS.includes(gateway.name);

interface Gateway {
  name: GatewayName;
  url: string;
  pid: number;
}

/** Where the machine's CPU goes: the gateway measured, and what every gateway of a workload shares. */
const SHARES = ['gateway', 'subgraphs', 'postgres', 'redis', 'load generator', 'other'] as const;
type Share = (typeof SHARES)[number];

function shareOf(gatewayPid: number): (pid: number, command: string[]) => Share {
  return (pid, command) => {
    if (pid === gatewayPid) return 'gateway';
    if (pid === process.pid) return 'load generator';
    const text = command.join(' ');
    // The stack's subgraphs and its outbox relay (subgraphs/tickets/events/main.js).
    if (text.includes('/dist/subgraphs/')) return 'subgraphs';
    if (command[0]?.startsWith('postgres') || text.includes('/postgresql/')) return 'postgres';
    if (text.includes('redis-server')) return 'redis';
    return 'other';
  };
}

/** Milliseconds of CPU per request by share, between two readings of the machine's processes. */
function msPerRequest(before: ProcessReading, after: ProcessReading, requests: number) {
  const used = cpuSecondsByGroup(before, after);
  return Object.fromEntries(
    SHARES.map((share) => [share, Math.round(((used.get(share) ?? 0) * 1e6) / Math.max(1, requests)) / 1000]),
  ) as Record<Share, number>;
}

interface Slice extends LoadResult {
  gateway: GatewayName;
  workload: string;
  round: number;
  cpuSecondsPer1k: number;
  machineCpuSecondsPer1k: number;
  cpuMsPerRequestBy: Record<Share, number>;
  subgraphRequestsPerRequest: number;
}

interface Row {
  gateway: GatewayName;
  workload: string;
  connections: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  cpuSecondsPer1k: number;
  machineCpuSecondsPer1k: number;
  cpuMsPerRequestBy: Record<Share, number>;
  subgraphRequestsPerRequest: number;
  errors: number;
  requests: number;
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const value = sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return Math.round(value * 1000) / 1000;
};

const graphOk = (status: number, body: string) => status === 200 && !body.includes('"errors"');

/** One request of a workload to each gateway: every answer without errors, reads the same data as ours. */
async function verify(gateways: Gateway[], workload: Workload): Promise<void> {
  let reference: string | undefined;
  for (const gateway of gateways.filter((g) => serves(g, workload))) {
    const call = workload.call(gateway.url, 0);
    const response = await fetch(call.url, {
      method: call.method,
      headers: { 'content-type': 'application/json', ...call.headers },
      body: call.body,
    });
    const body = await response.text();
    if (!graphOk(response.status, body)) {
      throw new Error(
        `${gateway.name} answered ${workload.name} with ${response.status}: ${body.slice(0, 400)}`,
      );
    }
    if (!workload.sameData) continue;
    const data = comparable(body);
    reference ??= data;
    if (data !== reference) {
      throw new Error(
        `${gateway.name} answered ${workload.name} with other data:\n${data}\nthan ours:\n${reference}`,
      );
    }
  }
}

/** One slice: `seconds` of load on one gateway, with its CPU and the subgraph requests it caused. */
async function slice(
  gateway: Gateway,
  workload: Workload,
  connections: number,
  seconds: number,
  subgraphMetrics: string[],
  settleSeconds: number,
): Promise<Omit<Slice, 'round'>> {
  let i = 0;
  const next = () => workload.call(gateway.url, i++);
  // Not counted: the gateway is brought back to this workload's steady state. A round takes
  // minutes, longer than what a gateway keeps in memory for a credential (60 s) and in Redis (300 s),
  // and the slice before was another gateway's load on the shared subgraphs and database: without
  // this, a slice's first requests paid for lookups and leftovers that steady traffic never pays,
  // and whichever gateway came first in a round paid for the round before.
  if (settleSeconds > 0) {
    await load(`${workload.name} on ${gateway.name}, settling`, next, {
      seconds: settleSeconds,
      concurrency: connections,
      ok: graphOk,
    });
  }
  const servedBefore = await graphqlRequestsServed(subgraphMetrics);
  const groupOf = shareOf(gateway.pid);
  const sharesBefore = readProcesses(groupOf);
  const cpuBefore = cpuSeconds(gateway.pid);
  const machineBefore = machineBusySeconds();
  const result = await load(`${workload.name} on ${gateway.name}`, next, {
    seconds,
    concurrency: connections,
    ok: graphOk,
  });
  const cpu = cpuSeconds(gateway.pid) - cpuBefore;
  const machine = machineBusySeconds() - machineBefore;
  const cpuMsPerRequestBy = msPerRequest(sharesBefore, readProcesses(groupOf), result.requests);
  const served = (await graphqlRequestsServed(subgraphMetrics)) - servedBefore;
  return {
    ...result,
    gateway: gateway.name,
    workload: workload.name,
    cpuSecondsPer1k: Math.round(((cpu * 1000) / Math.max(1, result.requests)) * 1000) / 1000,
    machineCpuSecondsPer1k: Math.round(((machine * 1000) / Math.max(1, result.requests)) * 1000) / 1000,
    cpuMsPerRequestBy,
    subgraphRequestsPerRequest: Math.round((served / Math.max(1, result.requests)) * 100) / 100,
  };
}

function summarise(slices: Slice[]): Row[] {
  const rows: Row[] = [];
  const keys = new Set(slices.map((s) => `${s.workload}\u0000${s.concurrency}\u0000${s.gateway}`));
  for (const key of keys) {
    const [workload, connections, gateway] = key.split('\u0000') as [string, string, GatewayName];
    const mine = slices.filter(
      (s) => s.workload === workload && s.concurrency === Number(connections) && s.gateway === gateway,
    );
    rows.push({
      gateway,
      workload,
      connections: Number(connections),
      perSecond: median(mine.map((s) => s.perSecond)),
      p50Ms: median(mine.map((s) => s.p50Ms)),
      p99Ms: median(mine.map((s) => s.p99Ms)),
      cpuSecondsPer1k: median(mine.map((s) => s.cpuSecondsPer1k)),
      machineCpuSecondsPer1k: median(mine.map((s) => s.machineCpuSecondsPer1k)),
      cpuMsPerRequestBy: Object.fromEntries(
        SHARES.map((share) => [share, median(mine.map((s) => s.cpuMsPerRequestBy[share]))]),
      ) as Record<Share, number>,
      subgraphRequestsPerRequest: median(mine.map((s) => s.subgraphRequestsPerRequest)),
      errors: mine.reduce((sum, s) => sum + s.errors, 0),
      requests: mine.reduce((sum, s) => sum + s.requests, 0),
    });
  }
  return rows;
}

/**
 * Ours against each peer per workload: the ratio of the medians (what the targets are judged on),
 * and the same ratio within each round, whose spread shows how far the shared machine moved it.
 */
function compare(rows: Row[], slices: Slice[]) {
  const find = (gateway: GatewayName, workload: string, connections: number) =>
    rows.find((r) => r.gateway === gateway && r.workload === workload && r.connections === connections)!;
  const ratio = (a: number, b: number) => (b === 0 ? 0 : Math.round((a / b) * 100) / 100);
  const perRound = (ours: Row, peer: GatewayName, measure: (s: Slice) => number) => {
    const mine = slices.filter((s) => s.workload === ours.workload && s.concurrency === ours.connections);
    return [...new Set(mine.map((s) => s.round))].map((round) => {
      const of = (gateway: GatewayName) => mine.find((s) => s.round === round && s.gateway === gateway)!;
      return ratio(measure(of('ours')), measure(of(peer)));
    });
  };
  return rows
    .filter((r) => r.gateway === 'ours')
    .map((ours) => {
      const apollo = find('apollo', ours.workload, ours.connections);
      const hive = find('hive', ours.workload, ours.connections);
      const reqPerSecVsApollo = ratio(ours.perSecond, apollo.perSecond);
      const cpuPerRequestVsApollo = ratio(ours.cpuSecondsPer1k, apollo.cpuSecondsPer1k);
      const reqPerSecVsHive = ratio(ours.perSecond, hive.perSecond);
      const floorOf = (name: GatewayName) =>
        rows.find(
          (r) => r.gateway === name && r.workload === ours.workload && r.connections === ours.connections,
        );
      const floorCpu = (name: GatewayName) => {
        const floor = floorOf(name);
        return floor === undefined ? undefined : ratio(floor.cpuSecondsPer1k, apollo.cpuSecondsPer1k);
      };
      // Measured rather than derived: what a relay doing no GraphQL work, but counting each request
      // as the platform must, serves against Apollo on the same machine in the same rounds.
      const countedFloor = floorOf('floor+count');
      // What any gateway could reach against Apollo on this machine if it cost no CPU at all:
      // the rest of the machine's work per request (load generator, subgraphs, Postgres, Redis)
      // stays, so throughput bound by the cores rises at most by the share Apollo's process had.
      const ceilingVsApollo = ratio(
        apollo.machineCpuSecondsPer1k,
        Math.max(0.001, apollo.machineCpuSecondsPer1k - apollo.cpuSecondsPer1k),
      );
      return {
        workload: ours.workload,
        connections: ours.connections,
        reqPerSecVsApollo,
        cpuPerRequestVsApollo,
        reqPerSecVsHive,
        ceilingVsApollo,
        floorCpuVsApollo: floorCpu('floor'),
        countedFloorCpuVsApollo: floorCpu('floor+count'),
        countedFloorReqPerSecVsApollo:
          countedFloor === undefined ? undefined : ratio(countedFloor.perSecond, apollo.perSecond),
        byRound: {
          reqPerSecVsApollo: perRound(ours, 'apollo', (s) => s.perSecond),
          cpuPerRequestVsApollo: perRound(ours, 'apollo', (s) => s.cpuSecondsPer1k),
          reqPerSecVsHive: perRound(ours, 'hive', (s) => s.perSecond),
        },
        pass: {
          reqPerSecVsApollo: reqPerSecVsApollo >= 1.5,
          cpuPerRequestVsApollo: cpuPerRequestVsApollo <= 0.7,
          reqPerSecVsHive: reqPerSecVsHive >= 1.0,
        },
      };
    });
}

async function main(): Promise<void> {
  // Hive Gateway's runtime is the benchmark's own install (bench/peers/package.json), not the platform's.
  execFileSync('bash', [join(projectRoot(), 'bench/peers/install.sh')], { stdio: 'inherit' });
  const rounds = flag('rounds', 3);
  const seconds = flag('seconds', 5);
  const settleIndex = process.argv.indexOf('--settle');
  const settle = settleIndex === -1 ? 1 : Number(process.argv[settleIndex + 1]);
  if (!Number.isFinite(settle) || settle < 0)
    throw new Error('--settle takes the seconds of unmeasured load before each slice (0 for none)');
  const subscribers = flag('subscribers', 1000);
  const idle = flag('idle', 10_000);
  // Every per-credential budget raised so load is not turned into 429s; the gateway still counts.
  const unlimited = '100000000';
  const env = benchEnv({
    TICKETS_RATE_LIMIT: unlimited,
    CV_RATE_LIMIT: unlimited,
    SESSION_RATE_LIMIT: unlimited,
    SIGNUP_RATE_LIMIT: unlimited,
    PUBLIC_WRITE_RATE_LIMIT: unlimited,
  });
  const profileDir = textFlag('profile');
  // Only this gateway and the subgraphs are profiled, and only over the measured rounds
  // (bench/cpu-profiler.ts); the subgraphs' profiles hold every gateway's load.
  const stack = await startStack(profiledEnv(env, profileDir));
  const peers: PeerProcess[] = [];
  try {
    // The peers get the stack's subgraph addresses and internal secret, nothing else of it (no
    // database, no Redis, no budgets).
    const peerEnv: NodeJS.ProcessEnv = {
      ...process.env,
      LOG_LEVEL: env.LOG_LEVEL,
      INTERNAL_SECRET: stack.internalSecret,
      TICKETS_PORT: String(stack.ports.tickets),
      CV_PORT: String(stack.ports.cv),
      BILLING_PORT: String(stack.ports.billing),
      IDENTITY_PORT: String(stack.ports.identity),
    };
    const apollo = await startPeer('apollo-peer.js', peerEnv);
    peers.push(apollo);
    const hive = await startPeer('hive-peer.js', peerEnv);
    peers.push(hive);
    const floor = await startPeer('floor-peer.js', peerEnv);
    peers.push(floor);
    // The counting floor is given Redis, as the platform's gateway has it, for its counts only.
    const countedFloor = await startPeer('floor-peer.js', {
      ...peerEnv,
      REDIS_URL: env.REDIS_URL,
      FLOOR_COUNTS: '1',
    });
    peers.push(countedFloor);
    const ours: Gateway = {
      name: 'ours',
      url: stack.gatewayUrl,
      pid: childRunning(stack.pid, 'gateway/main.js'),
    };
    const gateways: Gateway[] = [
      ours,
      { name: 'apollo', url: apollo.url, pid: apollo.pid },
      { name: 'hive', url: hive.url, pid: hive.pid },
      { name: 'floor', url: floor.url, pid: floor.pid },
      { name: 'floor+count', url: countedFloor.url, pid: countedFloor.pid },
    ];

    const subgraphNames = ['tickets', 'cv', 'billing', 'identity'] as const;
    const subgraphPids = subgraphNames.map((name) => childRunning(stack.pid, `subgraphs/${name}/main.js`));
    const subgraphMetrics = subgraphNames.map((name, i) => {
      const pid = subgraphPids[i]!;
      const port = listeningPorts(pid).find((p) => p !== stack.ports[name]);
      if (port === undefined) throw new Error(`the ${name} subgraph serves no metrics port`);
      return `http://127.0.0.1:${port}/metrics`;
    });

    process.stderr.write('seeding\n');
    const seeded = await seed(stack, env);
    const only = textFlag('workloads')?.split(',');
    const onlyConnections = textFlag('connections') === undefined ? undefined : flag('connections', 1);
    const all = workloads(seeded).filter(
      (w) => only === undefined || only.some((text) => w.name.includes(text)),
    );
    for (const workload of all) await verify(gateways, workload);

    const measuresSubscriptions = only === undefined || only.includes('subscriptions');
    // Memory first, while no gateway holds what load leaves behind for its collector to give back.
    const token = measuresSubscriptions ? await ticketToken(stack.restUrl, seeded.ticketKey) : undefined;
    const idleKib = token === undefined ? undefined : await idleMemoryOf(gateways, token, idle);

    // Warm-up, not counted: each gateway plans and caches each operation and its JIT settles.
    for (const workload of all) {
      for (const gateway of gateways.filter((g) => serves(g, workload))) {
        await slice(gateway, workload, 50, 1, subgraphMetrics, 0);
      }
    }

    if (profileDir !== undefined) {
      for (const pid of [ours.pid, ...subgraphPids]) process.kill(pid, 'SIGUSR2');
    }
    const slices: Slice[] = [];
    for (let round = 1; round <= rounds; round++) {
      const order = gateways.map((_, i) => gateways[(i + round - 1) % gateways.length]!);
      for (const workload of all) {
        for (const connections of workload.connections.filter(
          (c) => onlyConnections === undefined || c === onlyConnections,
        )) {
          for (const gateway of order.filter((g) => serves(g, workload))) {
            const result = await slice(gateway, workload, connections, seconds, subgraphMetrics, settle);
            slices.push({ ...result, round });
            process.stderr.write(
              `round ${round} ${gateway.name.padEnd(6)} ${workload.name} ×${connections}: ${result.perSecond} req/s, p99 ${result.p99Ms} ms, ${result.cpuSecondsPer1k} CPU s/1k, ${result.errors} errors\n`,
            );
          }
        }
      }
    }

    const subscriptions =
      token !== undefined && idleKib !== undefined
        ? await measureSubscriptions(gateways, idleKib, {
            restUrl: stack.restUrl,
            ticketKey: seeded.ticketKey,
            token,
            databaseUrl: env.DATABASE_URL!,
            subscribers,
            rounds: Math.max(rounds, 3),
          })
        : undefined;

    const rows = summarise(slices);
    const ratios = compare(rows, slices);
    process.stdout.write(
      `${JSON.stringify({ rounds, seconds, settle, rows, ratios, subscriptions, slices }, null, 2)}\n\n${report(rows, ratios, subscriptions, idle)}\n`,
    );
  } finally {
    for (const peer of peers) await peer.stop();
    await stack.stop();
  }
}

/** A ticket's token for the page's subscription, from a ticket created through REST. */
async function ticketToken(restUrl: string, ticketKey: string): Promise<string> {
  const response = await fetch(`${restUrl}/tickets`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ticketKey}` },
  });
  return ((await response.json()) as { token: string }).token;
}

/** What a gateway holds per idle socket, and of what: a subscriber where it serves one, else a bare connection. */
type IdleMemory = { per: 'subscriber' | 'connection'; kib: number | undefined };

/**
 * Memory per idle socket of each gateway, measured before any load: ours and any peer that serves
 * `ticketUpdated` per subscriber, a peer that does not per acknowledged graphql-ws connection.
 */
async function idleMemoryOf(
  gateways: Gateway[],
  token: string,
  idle: number,
): Promise<Record<PeerName, IdleMemory>> {
  const memory = {} as Record<PeerName, IdleMemory>;
  for (const name of ['ours', 'apollo', 'hive'] as const) {
    const gateway = gateways.find((g) => g.name === name)!;
    const served = name === 'ours' || (await probeSubscription(gateway.url, token)).served;
    memory[name] = served
      ? { per: 'subscriber', kib: await idleSubscriberMemory(gateway.url, gateway.pid, idle, token) }
      : { per: 'connection', kib: await idleConnectionMemory(gateway.url, gateway.pid, idle) };
  }
  return memory;
}

/** Subscriptions: ours serves graphql-ws from its live hub; each peer is asked what it does. */
async function measureSubscriptions(
  gateways: Gateway[],
  idleKib: Record<PeerName, IdleMemory>,
  options: {
    restUrl: string;
    ticketKey: string;
    token: string;
    databaseUrl: string;
    subscribers: number;
    rounds: number;
  },
): Promise<Record<PeerName, SubscriptionOutcome>> {
  const { token } = options;
  const fanOut = (gateway: Gateway) =>
    measureFanOut({ ...options, wsUrl: gateway.url.replace(/^http/, 'ws'), gatewayPid: gateway.pid });
  const ours = gateways.find((g) => g.name === 'ours')!;
  const subscriptions: Record<PeerName, SubscriptionOutcome> = {
    ours: { supported: true, fanOut: await fanOut(ours), kibPerIdleSubscriber: idleKib.ours.kib },
    apollo: { supported: false, reason: '' },
    hive: { supported: false, reason: '' },
  };
  for (const name of ['apollo', 'hive'] as const) {
    const peer = gateways.find((g) => g.name === name)!;
    const probe = await probeSubscription(peer.url, token);
    if (!probe.served) {
      subscriptions[name] = {
        supported: false,
        reason: `${WHY_NOT[name]} (${probe.http}; graphql-ws: ${probe.ws})`,
        kibPerIdleConnection: idleKib[name].per === 'connection' ? idleKib[name].kib : undefined,
      };
      continue;
    }
    try {
      subscriptions[name] = {
        supported: true,
        fanOut: await fanOut(peer),
        kibPerIdleSubscriber: idleKib[name].per === 'subscriber' ? idleKib[name].kib : undefined,
      };
    } catch (error) {
      subscriptions[name] = {
        supported: false,
        reason: `accepted the subscription but ${String(error)}`,
      };
    }
  }
  return subscriptions;
}

type SubscriptionOutcome =
  | { supported: true; fanOut: FanOutResult; kibPerIdleSubscriber?: number }
  | { supported: false; reason: string; kibPerIdleConnection?: number };

/** Why a peer refuses `ticketUpdated`, beside its own answers. */
const WHY_NOT: Record<PeerName, string> = {
  ours: '',
  apollo: '@apollo/gateway does not execute subscriptions, and @apollo/server serves no graphql-ws',
  hive:
    'Hive Gateway passes a subscription on to the subgraph that declares it (HTTP GET, Accept: text/event-stream), ' +
    'and the tickets subgraph serves none: its Subscription fields only answer where to subscribe, and its ' +
    'CSRF check refuses the GET before that',
};

function report(
  rows: Row[],
  ratios: ReturnType<typeof compare>,
  subscriptions: Record<PeerName, SubscriptionOutcome> | undefined,
  idle: number,
): string {
  const order: GatewayName[] = ['ours', 'apollo', 'hive', 'floor', 'floor+count'];
  const sorted = [...rows].sort(
    (a, b) =>
      ratios.findIndex((r) => r.workload === a.workload) -
        ratios.findIndex((r) => r.workload === b.workload) ||
      a.connections - b.connections ||
      order.indexOf(a.gateway) - order.indexOf(b.gateway),
  );
  const mark = (pass: boolean) => (pass ? 'pass' : 'FAIL');
  const range = (values: number[]) => `[${Math.min(...values)}–${Math.max(...values)}]`;
  return [
    '| workload | conns | gateway | req/s | p50 ms | p99 ms | CPU s / 1k req | machine CPU s / 1k req | subgraph req / req | errors |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...sorted.map(
      (r) =>
        `| ${r.workload} | ${r.connections} | ${r.gateway} | ${Math.round(r.perSecond)} | ${r.p50Ms} | ${r.p99Ms} | ${r.cpuSecondsPer1k} | ${r.machineCpuSecondsPer1k} | ${r.subgraphRequestsPerRequest} | ${r.errors} |`,
    ),
    '',
    "Where the machine's CPU went, ms per request (medians of the rounds): the gateway measured, and the rest of the machine, which every gateway of a workload shares.",
    '',
    `| workload | conns | served by | ${SHARES.join(' | ')} |`,
    `|---|---|---|${SHARES.map(() => '---|').join('')}`,
    ...sorted
      .filter((r) => r.gateway === 'ours' || r.gateway === 'apollo' || r.gateway === 'hive')
      .map(
        (r) =>
          `| ${r.workload} | ${r.connections} | ${r.gateway} | ${SHARES.map((share) => r.cpuMsPerRequestBy[share]).join(' | ')} |`,
      ),
    '',
    'Ratios of the medians, judged against the targets; in brackets, the lowest and highest ratio within one round.',
    "The ceiling is the most any gateway could reach against Apollo's req/s on this machine if it cost no CPU at all: Apollo's machine CPU per request ÷ the same less Apollo's own process's.",
    "The floors are the CPU per request of a relay with no GraphQL work (bench/peers/floor-peer.ts), without and with the platform's count in Redis, against Apollo's: the least any gateway could cost there (single-fetch workloads only). The last column is the counting relay's req/s against Apollo's: the most a gateway that counts each request, as the platform must, reached there in the same rounds.",
    '',
    '| workload | conns | ours/apollo req/s (≥ 1.5) | ours/apollo CPU per req (≤ 0.7) | ours/hive req/s (≥ 1.0) | ceiling ×apollo at zero gateway CPU | floor CPU ×apollo | floor + count CPU ×apollo | floor + count req/s ×apollo |',
    '|---|---|---|---|---|---|---|---|---|',
    ...ratios.map(
      (r) =>
        `| ${r.workload} | ${r.connections} | ${r.reqPerSecVsApollo} ${mark(r.pass.reqPerSecVsApollo)} ${range(r.byRound.reqPerSecVsApollo)} | ${r.cpuPerRequestVsApollo} ${mark(r.pass.cpuPerRequestVsApollo)} ${range(r.byRound.cpuPerRequestVsApollo)} | ${r.reqPerSecVsHive} ${mark(r.pass.reqPerSecVsHive)} ${range(r.byRound.reqPerSecVsHive)} | ${r.ceilingVsApollo} | ${r.floorCpuVsApollo ?? '—'} | ${r.countedFloorCpuVsApollo ?? '—'} | ${r.countedFloorReqPerSecVsApollo ?? '—'} |`,
    ),
    '',
    'subscriptions, ticketUpdated fan-out (POST ready or ring → the message at every subscriber):',
    ...(['ours', 'apollo', 'hive'] as const).map((name) => {
      const outcome = subscriptions?.[name];
      if (outcome === undefined) return `  ${name}: not measured in a run narrowed by --workloads`;
      return outcome.supported
        ? `  ${name}: ${outcome.fanOut.subscribers} subscribers, p50 ${outcome.fanOut.p50Ms} ms, p99 ${outcome.fanOut.p99Ms} ms, max ${outcome.fanOut.maxMs} ms, ${outcome.fanOut.cpuSecondsPerEvent} CPU s per event; memory per idle subscriber ${outcome.kibPerIdleSubscriber ?? '(refused)'} KiB at ${idle}`
        : `  ${name}: not supported: ${outcome.reason}` +
            (outcome.kibPerIdleConnection === undefined
              ? '; acknowledges no graphql-ws connection'
              : `; memory per idle graphql-ws connection ${outcome.kibPerIdleConnection} KiB at ${idle} (acknowledged, nothing subscribed: the least a subscriber would cost there)`);
    }),
    '',
    ...(['reqPerSecVsApollo', 'cpuPerRequestVsApollo', 'reqPerSecVsHive'] as const).map((target) => {
      const missed = ratios.filter((r) => !r.pass[target]);
      return `${missed.length === 0 ? 'PASS' : 'MISS'} ${target} on every workload${missed.length === 0 ? '' : ` (missed: ${missed.map((r) => `${r.workload} ×${r.connections}`).join(', ')})`}`;
    }),
  ].join('\n');
}

main().catch((error: unknown) => {
  process.stderr.write(`bench: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
