import { readFileSync } from 'node:fs';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { bearer, graphData, signUpPerson, type SignedUp } from '../support/graph';
import { platformEnv, startPlatform, type Platform } from '../support/platform';
import { freePorts, startProcess, type PlatformProcess } from '../support/processes';

const ROWS = 200_000;
const MB = 1024 * 1024;
/**
 * Both serving processes run with an old generation no larger than the file (73 MB), so a process
 * that held the file would die of it, and a young generation of 2 MB, so RSS follows what is live
 * rather than how much garbage V8 lets pile up between collections. Without the caps garbage piles
 * up to a few hundred MB before a full collection (RSS then swings up and down with no trend, and
 * the bounds below would not hold), which says nothing about what the stream holds;
 * EXPORT_HEAP_CAP='' runs without them. Likewise glibc is asked to give socket-sized buffers back to
 * the system when freed (one arena, mmap from 32 KB), so RSS does not keep what the process let go.
 */
const HEAP_CAP = process.env.EXPORT_HEAP_CAP ?? '--max-old-space-size=72 --max-semi-space-size=2';

/** A process's resident set, from the kernel (Linux), in bytes. */
function rssOf(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb) * 1024;
}

/**
 * The file of 200,000 tickets goes from Postgres through the tickets subgraph and the REST adapter,
 * each its own compiled process as in production, to a reader that also stops reading for a while:
 * neither process's memory grows with the file, since each holds one batch or one socket buffer.
 */
describe('a 200,000-ticket CSV export', () => {
  let database: TestDatabase;
  let platform: Platform;
  let tickets: PlatformProcess;
  let adapter: PlatformProcess;
  let adapterUrl: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    platform = await startPlatform(database);
    const [ticketsPort, restPort] = (await freePorts(2)) as [number, number];
    tickets = await startProcess(
      'subgraphs/tickets/main.js',
      platformEnv(platform.config, {
        TICKETS_PORT: String(ticketsPort),
        NODE_OPTIONS: HEAP_CAP,
        MALLOC_ARENA_MAX: '1',
        MALLOC_MMAP_THRESHOLD_: '32768',
      }),
      `http://127.0.0.1:${ticketsPort}/readyz`,
    );
    adapter = await startProcess(
      'rest-adapter/main.js',
      platformEnv(platform.config, {
        REST_PORT: String(restPort),
        NODE_OPTIONS: HEAP_CAP,
        MALLOC_ARENA_MAX: '1',
        MALLOC_MMAP_THRESHOLD_: '32768',
        TICKETS_SUBGRAPH_URL: `http://127.0.0.1:${ticketsPort}/graphql`,
      }),
      `http://127.0.0.1:${restPort}/readyz`,
    );
    adapterUrl = `http://127.0.0.1:${restPort}`;
  });

  afterAll(async () => {
    await adapter?.stop();
    await tickets?.stop();
    await platform?.stop();
    await database?.drop();
  });

  const start = new Date(Date.UTC(2026, 0, 1));
  let owner: SignedUp;
  let branchId: number;

  /** The 200,000 tickets, one every 100 ms of 2026's first hours, of one branch of `owner`'s. */
  beforeAll(async () => {
    owner = await signUpPerson(platform.gatewayUrl, {
      email: 'accountant@example.test',
      name: 'Owner',
    });
    const { createVenue } = await graphData<{ createVenue: { id: string } }>(
      platform.gatewayUrl,
      'mutation ($i: CreateVenueInput!) { createVenue(input: $i) { id } }',
      { i: { name: 'مشويات سامراء', language: 'ar', timezone: 'Asia/Baghdad' } },
      bearer(owner.token),
    );
    const { createBranch } = await graphData<{ createBranch: { id: string } }>(
      platform.gatewayUrl,
      'mutation ($i: CreateBranchInput!) { createBranch(input: $i) { id } }',
      { i: { venueId: createVenue.id, name: 'Counter' } },
      bearer(owner.token),
    );
    branchId = Number(createBranch.id);
    // One statement; the insights triggers are off for this session only (the export reads tickets).
    await database.query(`
      set session_replication_role = replica;
      insert into tickets.tickets
        (branch_id, number, token, status, customer_name, note, external_id, source, ring_count,
         ready_at, collected_at, created_at, updated_at)
      select ${branchId}, 'A' || g, md5(g::text), 'collected', 'زبون رقم ' || g,
             case when g % 2 = 0 then 'بدون بصل، "حار" جداً' else null end, 'POS-' || g, 1 + g % 3, g % 4,
             timestamptz '${start.toISOString()}' + g * interval '100 ms' + interval '5 minutes',
             timestamptz '${start.toISOString()}' + g * interval '100 ms' + interval '9 minutes',
             timestamptz '${start.toISOString()}' + g * interval '100 ms',
             timestamptz '${start.toISOString()}' + g * interval '100 ms' + interval '9 minutes'
        from generate_series(1, ${ROWS}) g;`);
  });

  /** A signed link to the export of the tickets created before `to`, at this test's adapter. */
  const linkFor = async (to: Date) =>
    (
      await graphData<{ exportTicketsCsv: { url: string } }>(
        platform.gatewayUrl,
        'query ($b: ID!, $from: DateTimeISO!, $to: DateTimeISO!) { exportTicketsCsv(branchId: $b, from: $from, to: $to) { url } }',
        { b: String(branchId), from: start.toISOString(), to: to.toISOString() },
        bearer(owner.token),
      )
    ).exportTicketsCsv.url.replace(platform.config.publicBaseUrl, adapterUrl);

  // 200,000 rows take 20–30 s on two cores, and over a minute beside the rest of `npm test` on a busy day.
  it('streams every row while the serving processes’ memory stays far below the file’s size', async () => {
    // A small export first, so both processes have loaded and run every path before the baseline.
    const warm = await fetch(await linkFor(new Date(start.getTime() + 1_000 * 100)));
    expect((await warm.text()).split('\r\n')).toHaveLength(1 + 999 + 1);

    const pids = { tickets: tickets.child.pid!, adapter: adapter.child.pid! };
    const baseline = { tickets: rssOf(pids.tickets), adapter: rssOf(pids.adapter) };
    const peak = { ...baseline };
    const sampler = setInterval(() => {
      peak.tickets = Math.max(peak.tickets, rssOf(pids.tickets));
      peak.adapter = Math.max(peak.adapter, rssOf(pids.adapter));
    }, 20);

    const began = Date.now();
    const answer = await fetch(await linkFor(new Date(start.getTime() + ROWS * 100 + 1_000)));
    expect(answer.status).toBe(200);
    const reader = answer.body!.getReader();
    let bytes = 0;
    const timeline: { tickets: number; adapter: number }[] = [];
    let lines = 0;
    let paused = false;
    let pausedAtBytes = 0;
    let afterPause = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.byteLength;
      if (bytes >= (timeline.length + 1) * 8 * MB) {
        timeline.push({ tickets: rssOf(pids.tickets), adapter: rssOf(pids.adapter) });
      }
      for (let i = 0; i < value.length; i += 1) if (value[i] === 0x0a) lines += 1;
      if (!paused && bytes > 10 * MB) {
        // A reader that stops: the processes must wait for it, not read the rest into memory.
        paused = true;
        pausedAtBytes = bytes;
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        afterPause = 1;
      }
    }
    clearInterval(sampler);
    const seconds = (Date.now() - began) / 1000;
    const growth = { tickets: peak.tickets - baseline.tickets, adapter: peak.adapter - baseline.adapter };
    console.log(
      `200k export (${HEAP_CAP || 'no heap cap'}): ${(bytes / MB).toFixed(1)} MB, ${lines - 1} rows in ${seconds.toFixed(1)} s (1.5 s paused at ${(pausedAtBytes / MB).toFixed(1)} MB); ` +
        `RSS tickets ${(baseline.tickets / MB).toFixed(1)} → peak ${(peak.tickets / MB).toFixed(1)} MB (+${(growth.tickets / MB).toFixed(1)}), ` +
        `adapter ${(baseline.adapter / MB).toFixed(1)} → peak ${(peak.adapter / MB).toFixed(1)} MB (+${(growth.adapter / MB).toFixed(1)}); every 8 MB (tickets/adapter MB): ${timeline.map((at) => `${(at.tickets / MB).toFixed(0)}/${(at.adapter / MB).toFixed(0)}`).join(' ')}`,
    );

    expect(afterPause).toBe(1);
    expect(lines).toBe(1 + ROWS);
    expect(bytes).toBeGreaterThan(60 * MB);
    // Far below the file: each process holds one batch of rows and its socket buffers; what
    // grows is V8's young generation sizing up to the throughput, not the rows.
    expect(growth.tickets).toBeLessThan(bytes / 2);
    expect(growth.adapter).toBeLessThan(bytes / 2);
    // Flat: no trend from the first half of the file to the second. Medians, since a pass-through's
    // RSS swings by ten MB or more as V8 collects the socket buffers it let pile up outside the heap.
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    const half = Math.floor(timeline.length / 2);
    for (const side of ['tickets', 'adapter'] as const) {
      const first = median(timeline.slice(0, half).map((at) => at[side]));
      const second = median(timeline.slice(half).map((at) => at[side]));
      expect(second - first).toBeLessThan(12 * MB);
    }
  }, 180_000);

  it('streams two at once per tickets process, answers a third 503, and frees a slot when a reader goes away', async () => {
    const whole = new Date(start.getTime() + ROWS * 100 + 1_000);
    // Two readers that take the headers and then nothing: each stream stops once the buffers between
    // are full, its cursor and transaction still open.
    const stalled = [await fetch(await linkFor(whole)), await fetch(await linkFor(whole))];
    for (const answer of stalled) expect(answer.status).toBe(200);
    const third = await fetch(await linkFor(whole));
    expect(third.status).toBe(503);
    expect(third.headers.get('retry-after')).toBe('5');
    expect(((await third.json()) as { message: string }).message).toEqual(expect.any(String));

    // One reader goes away mid-file: its transaction ends and its slot is free again.
    await stalled[0]!.body!.cancel();
    const open = async () => {
      const answer = await fetch(await linkFor(new Date(start.getTime() + 1_000 * 100)));
      return {
        status: answer.status,
        lines: answer.status === 200 ? (await answer.text()).split('\r\n').length : 0,
      };
    };
    let next = await open();
    for (let tries = 0; next.status === 503 && tries < 50; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      next = await open();
    }
    expect(next).toEqual({ status: 200, lines: 1 + 999 + 1 });
    await stalled[1]!.body!.cancel();
    // Nothing of the cut exports is left holding a connection in Postgres.
    const deadline = Date.now() + 10_000;
    let openCursors = 1;
    while (openCursors > 0 && Date.now() < deadline) {
      const [row] = await database.query(
        `select count(*)::int as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and query ilike 'fetch%' and state <> 'idle'`,
      );
      openCursors = Number(row!.n);
      if (openCursors > 0) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(openCursors).toBe(0);
  });
});
