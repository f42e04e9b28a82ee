import 'reflect-metadata';
import { performance } from 'node:perf_hooks';
import { Client } from 'pg';
import { startStack } from '../tools/stack';
import { benchEnv, benchVenue } from './bench-stack';
import { flag } from './load';

/**
 * Venue insights at a venue's real size: one branch with `--tickets` tickets (2,000,000) over the
 * year before now, arriving mostly at lunch and dinner in Asia/Baghdad, nine in ten readied after
 * a prep time drawn from a fixed seed's long-tailed spread, most collected minutes later, one in
 * twenty cancelled; then the panel's 30-day hourly query and a one-year daily one, through the
 * gateway as a signed-in owner, `--runs` times each after a warm-up. It prints the median, p95
 * and slowest milliseconds of each, and checks the median against 100 ms. Then the last hour's
 * service is added and the board's live wait and a waiting customer's estimate are timed the same way.
 *
 * The tickets are written in one statement with the rollups' triggers off, and the rollups then
 * built from them by `tickets.insight_rebuild` (as the migration does for tickets that existed
 * before it); a sample of the answer is checked against the same computed straight from the rows.
 *
 *   npm run build && npm run bench:insights -- [--tickets 2000000] [--runs 20] [--reuse]
 */
const QUERY = `query ($id: ID!, $from: DateTimeISO!, $to: DateTimeISO!, $bucket: InsightBucketSize!) {
  branch(id: $id) { insights(from: $from, to: $to, bucket: $bucket) {
    totals { created ready collected cancelled prepP50Seconds prepP90Seconds pickupP50Seconds linked rings smsSent feedbackCount feedbackAverage }
    buckets { start created ready collected cancelled prepP50Seconds prepP90Seconds pickupP50Seconds linked rings smsSent feedbackCount feedbackAverage }
  } }
}`;

interface Totals {
  created: number;
  ready: number;
  prepP50Seconds: number | null;
  prepP90Seconds: number | null;
  pickupP50Seconds: number | null;
}

/** Where the last bucket ends (Baghdad keeps no daylight saving): the rollups count whole buckets. */
function endOfLast(buckets: { start: string }[], bucket: string): Date {
  return new Date(Date.parse(buckets.at(-1)!.start) + (bucket === 'HOUR' ? 3_600_000 : 86_400_000));
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/**
 * A year of one branch's tickets in one statement, with the rollups' insert trigger off (the
 * rollups are built after, from the rows, as the migration does).
 */
async function seed(db: Client, branchId: string, tickets: number): Promise<void> {
  await db.query('select setseed(0.29)');
  await db.query('alter table tickets.tickets disable trigger tickets_insights_insert');
  // Arrivals: a uniform day of the year, an hour from a lunch and dinner peak (Baghdad is UTC+3),
  // prep from a long tail (most 4–20 minutes, some an hour, a few past a day).
  await db.query(
    `insert into tickets.tickets (branch_id, number, token, status, created_at, ready_at, collected_at, cancelled_at,
       linked_at, ring_count, last_alert_at, source)
     select $1, i::text, md5(i::text || 'bench'),
            case when fate < 0.05 then 'cancelled' when fate < 0.95 then 'collected' else 'ready' end,
            created, case when fate >= 0.05 then created + prep end,
            case when fate >= 0.05 and fate < 0.95 then created + prep + pickup end,
            case when fate < 0.05 then created + interval '3 minutes' end,
            case when link < 0.6 then created + interval '20 seconds' end,
            case when fate >= 0.05 then 1 + (link * 10)::int % 3 else 0 end,
            case when fate >= 0.05 then created + prep end, 1
       from (
         select i, random() as fate, random() as link,
                date_trunc('day', now() - interval '365 days') + (floor(random() * 365) || ' days')::interval
                  + make_interval(hours => (array[6,7,8,9,9,10,10,11,12,13,14,15,15,16,16,17,17,17,18,19])[1 + floor(random() * 20)::int])
                  + make_interval(secs => random() * 3600) as created,
                make_interval(secs => case when random() < 0.002 then 86400 + random() * 7200
                                           else 240 + 960 * random() + 2400 * power(random(), 6) end) as prep,
                make_interval(secs => 30 + 600 * power(random(), 2)) as pickup
           from generate_series(1, $2) as i
       ) s
      where created < now()`,
    [branchId, tickets],
  );
  await db.query('alter table tickets.tickets enable trigger tickets_insights_insert');
}

/** Times one operation `runs` times after a warm-up: median and p95 milliseconds, and its last answer. */
async function timed<T>(runs: number, ask: () => Promise<T>) {
  for (let i = 0; i < 3; i++) await ask();
  const times: number[] = [];
  let answer: T | undefined;
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    answer = await ask();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return {
    medianMs: Number(quantile(times, 0.5).toFixed(1)),
    p95Ms: Number(quantile(times, 0.95).toFixed(1)),
    slowestMs: Number(times.at(-1)!.toFixed(1)),
    answer: answer!,
  };
}

/**
 * The board's live wait and a customer's estimate on the same branch, its year behind it (with
 * the one in twenty tickets the seed leaves ready and never collected): the last hour's service
 * is added first, 30 tickets ready within it after 5 to 25 minutes and 20 waiting.
 */
async function liveNumbers(
  db: Client,
  graph: <T>(query: string, variables?: Record<string, unknown>) => Promise<T>,
  branchId: string,
  runs: number,
) {
  await db.query(
    `insert into tickets.tickets (branch_id, number, token, status, created_at, ready_at, source)
     select $1::bigint, 'L' || i || '.' || floor(extract(epoch from now()))::bigint, md5('live' || i || $1::text || now()::text), case when i <= 30 then 'ready' else 'waiting' end,
            case when i <= 30 then now() - make_interval(mins => 2 * i + 5 + i % 20)
                 else now() - make_interval(mins => 50 - i) end,
            case when i <= 30 then now() - make_interval(mins => 2 * i) end, 1
       from generate_series(1, 50) as i`,
    [branchId],
  );
  const [{ token }] = (
    await db.query(
      `select token from tickets.tickets where branch_id = $1 and status = 'waiting' order by created_at desc limit 1`,
      [branchId],
    )
  ).rows as [{ token: string }];
  const wait = await timed(runs, () =>
    graph<{ branch: { wait: { waiting: number; medianWaitSeconds: number } } }>(
      'query ($id: ID!) { branch(id: $id) { wait { waiting oldestWaitingSince medianWaitSeconds readyLastHour alert } } }',
      { id: branchId },
    ),
  );
  const estimate = await timed(runs, () =>
    graph<{ ticketByToken: { estimatedReadyAt: string | null } }>(
      'query ($t: String!) { ticketByToken(token: $t) { status estimatedReadyAt } }',
      { t: token },
    ),
  );
  return [
    {
      case: 'the board’s live wait',
      medianMs: wait.medianMs,
      p95Ms: wait.p95Ms,
      answer: `${wait.answer.branch.wait.waiting} waiting, median ${Math.round(wait.answer.branch.wait.medianWaitSeconds)} s`,
    },
    {
      case: 'the newest waiting ticket’s estimate',
      medianMs: estimate.medianMs,
      p95Ms: estimate.p95Ms,
      answer: `estimated ready at ${String(estimate.answer.ticketByToken.estimatedReadyAt)}`,
    },
  ];
}

async function main(): Promise<void> {
  const tickets = flag('tickets', 2_000_000);
  const runs = flag('runs', 20);
  const env = benchEnv({ SESSION_RATE_LIMIT: '100000000', SIGNUP_RATE_LIMIT: '100000000' });
  const stack = await startStack(env);
  const db = new Client({ connectionString: env.DATABASE_URL });
  await db.connect();
  try {
    const owner = await benchVenue(stack.gatewayUrl, {
      who: 'bench-insights',
      venue: 'Bench Grill',
      branch: 'Bench counter',
      timezone: 'Asia/Baghdad',
    });
    const { graph, venueId } = owner;
    let branchId = owner.branchId;

    // --reuse: the year an earlier run seeded into this database, read by this run's owner (made
    // an owner of that branch's venue): to time a change to the reading without seeding again.
    const earlier = process.argv.includes('--reuse')
      ? ((
          await db.query(
            `select b.id, b.venue_id from tickets.branches b where b.name = 'Bench counter'
                and (select count(*) from tickets.tickets t where t.branch_id = b.id) >= $1
              order by b.id desc limit 1`,
            [Math.floor(tickets * 0.9)],
          )
        ).rows[0] as { id: string; venue_id: string } | undefined)
      : undefined;
    if (earlier !== undefined) {
      await db.query(
        `insert into tickets.venue_members (venue_id, user_id, role)
           select $1, user_id, 'OWNER' from tickets.venue_members where venue_id = $2`,
        [earlier.venue_id, venueId],
      );
      branchId = String(earlier.id);
    }
    const seeding = performance.now();
    if (earlier === undefined) await seed(db, branchId, tickets);
    const written = performance.now();
    if (earlier === undefined) {
      await db.query('select tickets.insight_rebuild($1)', [branchId]);
      await db.query('analyze tickets.insight_buckets; analyze tickets.insight_durations');
    }
    const rebuilt = performance.now();
    const [{ count }] = (
      await db.query('select count(*)::int as count from tickets.tickets where branch_id = $1', [branchId])
    ).rows as [{ count: number }];

    const now = new Date();
    const cases = [
      { name: '30 days by the hour', from: new Date(now.getTime() - 30 * 86_400_000), bucket: 'HOUR' },
      { name: 'one year by the day', from: new Date(now.getTime() - 365 * 86_400_000), bucket: 'DAY' },
    ];
    const results = [];
    for (const c of cases) {
      const variables = { id: branchId, from: c.from.toISOString(), to: now.toISOString(), bucket: c.bucket };
      const run = await timed(runs, () =>
        graph<{ branch: { insights: { totals: Totals; buckets: unknown[] } } }>(QUERY, variables),
      );
      const answer = run.answer;
      // The answer against the rows themselves: the range's counts and prep percentiles, straight
      // from the tickets, over the instants the buckets cover.
      const buckets = answer.branch.insights.buckets as { start: string }[];
      const [direct] = (
        await db.query(
          `select count(*) filter (where created_at >= $2 and created_at < $3) as created,
                  percentile_cont(0.5) within group (order by extract(epoch from ready_at - created_at))
                    filter (where ready_at >= $2 and ready_at < $3) as p50,
                  percentile_cont(0.9) within group (order by extract(epoch from ready_at - created_at))
                    filter (where ready_at >= $2 and ready_at < $3) as p90
             from tickets.tickets where branch_id = $1 and (created_at >= $2 or ready_at >= $2)`,
          [branchId, buckets[0]!.start, endOfLast(buckets, c.bucket)],
        )
      ).rows as [{ created: string; p50: number; p90: number }];
      const totals = answer.branch.insights.totals;
      results.push({
        case: c.name,
        buckets: answer.branch.insights.buckets.length,
        medianMs: run.medianMs,
        p95Ms: run.p95Ms,
        slowestMs: run.slowestMs,
        ticketsCreatedInRange: totals.created,
        matchesRows:
          totals.created === Number(direct.created) &&
          Math.abs((totals.prepP50Seconds ?? 0) - direct.p50) < 1 &&
          Math.abs((totals.prepP90Seconds ?? 0) - direct.p90) < 1,
      });
    }
    const live = await liveNumbers(db, graph, branchId, runs);
    const report = {
      tickets: count,
      seedSeconds: Number(((written - seeding) / 1000).toFixed(1)),
      rebuildSeconds: Number(((rebuilt - written) / 1000).toFixed(1)),
      runs,
      results,
      live,
    };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    for (const r of live) {
      process.stdout.write(`${r.case}: median ${r.medianMs} ms, p95 ${r.p95Ms} ms (${r.answer})\n`);
    }
    for (const r of results) {
      process.stdout.write(
        `${r.medianMs < 100 && r.matchesRows ? 'PASS' : 'MISS'} ${r.case}: median ${r.medianMs} ms (target < 100), p95 ${r.p95Ms} ms, answer ${r.matchesRows ? 'matches' : 'DIFFERS FROM'} the rows\n`,
      );
    }
  } finally {
    await db.end();
    await stack.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench: ${String(error)}\n`);
  process.exit(1);
});
