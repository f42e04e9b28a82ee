import { fork } from 'node:child_process';
import { once } from 'node:events';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * What one round trip to another process costs the caller in CPU, back to back and with the two
 * processes idle between trips (one trip every 1, 5 and 10 ms). The difference is what waking an
 * idle process costs on this machine, which every gateway pays per request at low rates (one
 * connection, or creates that wait on one branch's row): a machine where it is dear pulls every
 * CPU-per-request ratio towards 1, since what differs between gateways is then a small part of each
 * request. Read it beside `bench:peers` figures taken on the same machine. Then what an idle
 * process spends sampling its event-loop delay (what prom-client's default metrics do) at 10 ms,
 * prom-client's default, and at 100 ms, the platform's (common/metrics.ts).
 *
 *   npm run build && node dist/bench/wake-cost.js [--trips 400]
 */

/** The echo side, in a child process of its own so that every trip crosses processes. */
function serveEcho(): void {
  const server = createServer((socket) => socket.on('data', (data) => socket.write(data)));
  server.listen(0, '127.0.0.1', () => process.send?.((server.address() as AddressInfo).port));
}

async function tripsCost(socket: Socket, trips: number, gapMs: number): Promise<number> {
  let started: NodeJS.CpuUsage | undefined;
  for (let trip = 0; trip <= trips; trip++) {
    // The first trip is not counted: it finds the echo process however the last gap left it.
    if (trip === 1) started = process.cpuUsage();
    if (gapMs > 0) await sleep(gapMs);
    const answered = once(socket, 'data');
    socket.write('x');
    await answered;
  }
  const used = process.cpuUsage(started);
  return (used.user + used.system) / trips;
}

/** An idle process's CPU over `ms`, in µs a second, while its event-loop delay is sampled every `resolutionMs`. */
async function idleCost(resolutionMs: number | undefined, ms: number): Promise<number> {
  const histogram =
    resolutionMs === undefined ? undefined : monitorEventLoopDelay({ resolution: resolutionMs });
  histogram?.enable();
  const started = process.cpuUsage();
  await sleep(ms);
  const used = process.cpuUsage(started);
  histogram?.disable();
  return ((used.user + used.system) * 1000) / ms;
}

async function main(): Promise<void> {
  const at = process.argv.indexOf('--trips');
  const trips = at === -1 ? 400 : Number(process.argv[at + 1]);
  if (!Number.isInteger(trips) || trips < 10) throw new Error('--trips takes a whole number of at least 10');
  const echo = fork(__filename, ['echo'], { stdio: 'inherit' });
  try {
    const [port] = (await once(echo, 'message')) as [number];
    const socket = connect(port, '127.0.0.1');
    await once(socket, 'connect');
    socket.setNoDelay(true);
    const rows: string[] = [];
    for (const gapMs of [0, 1, 5, 10]) {
      const micros = await tripsCost(socket, gapMs === 0 ? trips * 10 : trips, gapMs);
      rows.push(`| ${gapMs === 0 ? 'back to back' : `every ${gapMs} ms`} | ${micros.toFixed(0)} |`);
    }
    socket.destroy();
    const idle: string[] = [];
    for (const resolutionMs of [undefined, 10, 100]) {
      const micros = await idleCost(resolutionMs, 5_000);
      idle.push(
        `| ${resolutionMs === undefined ? 'not sampled' : `every ${resolutionMs} ms`} | ${micros.toFixed(0)} |`,
      );
    }
    process.stdout.write(
      `| round trips to another process | caller's CPU per trip, µs |\n|---|---|\n${rows.join('\n')}\n\n` +
        `| idle, event-loop delay sampled | CPU, µs a second |\n|---|---|\n${idle.join('\n')}\n`,
    );
  } finally {
    echo.kill();
  }
}

if (process.argv[2] === 'echo') serveEcho();
else
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
