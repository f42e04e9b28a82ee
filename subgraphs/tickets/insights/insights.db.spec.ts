import 'reflect-metadata';
import { ForbiddenError, NotFoundError, UnauthenticatedError, ValidationError } from '../../../common/errors';
import { useSchemaDatabase } from '../../../test/support/database';
import { rejection } from '../../../test/support/rejection';
import type { Principal } from '../access';
import { TicketService } from '../tickets';
import { VenueRoles, VenueService } from '../venues';
import { InsightsRepository } from './insights.repository';
import { InsightsService, type InsightRange } from './insights.service';
import type { InsightBucketType, InsightsType } from './insights.type';
import { seeded } from '../../../test/support/seeded';

/** `percentile_cont(p)` of exact values, as Postgres defines it. */
function percentileCont(p: number, values: number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const position = p * (sorted.length - 1);
  const lower = Math.floor(position);
  const upper = Math.ceil(position);
  return sorted[lower]! + (position - lower) * (sorted[upper]! - sorted[lower]!);
}

interface TicketRow {
  created_at: Date;
  ready_at: Date | null;
  collected_at: Date | null;
  cancelled_at: Date | null;
  linked_at: Date | null;
  ring_count: number;
  last_alert_at: Date | null;
  rating: number | null;
  feedback_at: Date | null;
}

const seconds = (a: Date, b: Date) => (b.getTime() - a.getTime()) / 1000;

/**
 * The same numbers straight from ticket rows: each event in the bucket (of the starts the service
 * answered) that holds its instant, percentiles over the exact durations.
 */
function reference(rows: TicketRow[], starts: Date[], until: Date): Omit<InsightBucketType, 'start'>[] {
  const bucketOf = (at: Date | null): number => {
    if (at === null || at.getTime() < starts[0]!.getTime() || at.getTime() >= until.getTime()) return -1;
    let found = -1;
    starts.forEach((start, i) => {
      if (start.getTime() <= at.getTime()) found = i;
    });
    return found;
  };
  const all = starts.length;
  const make = () => ({
    created: 0,
    ready: 0,
    collected: 0,
    cancelled: 0,
    linked: 0,
    rings: 0,
    smsSent: 0,
    feedbackCount: 0,
    feedbackSum: 0,
    prep: [] as number[],
    pickup: [] as number[],
  });
  const buckets = Array.from({ length: all + 1 }, make);
  const add = (at: Date | null, apply: (b: ReturnType<typeof make>) => void) => {
    const i = bucketOf(at);
    if (i >= 0) {
      apply(buckets[i]!);
      apply(buckets[all]!);
    }
  };
  for (const row of rows) {
    add(row.created_at, (b) => (b.created += 1));
    add(row.ready_at, (b) => {
      b.ready += 1;
      b.prep.push(seconds(row.created_at, row.ready_at!));
    });
    add(row.collected_at, (b) => {
      b.collected += 1;
      if (row.ready_at !== null) b.pickup.push(seconds(row.ready_at, row.collected_at!));
    });
    add(row.cancelled_at, (b) => (b.cancelled += 1));
    add(row.linked_at, (b) => (b.linked += 1));
    if (row.ring_count > 0) add(row.last_alert_at, (b) => (b.rings += row.ring_count));
    add(row.feedback_at, (b) => {
      b.feedbackCount += 1;
      b.feedbackSum += row.rating!;
    });
  }
  return buckets.map((b) => ({
    created: b.created,
    ready: b.ready,
    collected: b.collected,
    cancelled: b.cancelled,
    linked: b.linked,
    rings: b.rings,
    smsSent: b.smsSent,
    feedbackCount: b.feedbackCount,
    feedbackAverage: b.feedbackCount === 0 ? null : b.feedbackSum / b.feedbackCount,
    prepP50Seconds: percentileCont(0.5, b.prep),
    prepP90Seconds: percentileCont(0.9, b.prep),
    pickupP50Seconds: percentileCont(0.5, b.pickup),
  }));
}

/** Compares an answer with the reference: counts exactly, percentiles within 1 s. */
function expectMatches(answer: InsightsType, expected: Omit<InsightBucketType, 'start'>[]): void {
  const got = [...answer.buckets, answer.totals];
  expect(got).toHaveLength(expected.length);
  const differences: string[] = [];
  got.forEach((bucket, i) => {
    const want = expected[i]!;
    for (const field of Object.keys(want) as (keyof typeof want)[]) {
      const a = bucket[field];
      const b = want[field];
      const close =
        field.endsWith('Seconds') && typeof a === 'number' && typeof b === 'number'
          ? Math.abs(a - b) < 1
          : field === 'feedbackAverage' && typeof a === 'number' && typeof b === 'number'
            ? Math.abs(a - b) < 1e-9
            : a === b;
      if (!close) {
        const name = i === got.length - 1 ? 'totals' : bucket.start.toISOString();
        differences.push(`${name} ${field}: ${String(a)} against ${String(b)}`);
      }
    }
  });
  expect(differences).toEqual([]);
}

describe('venue insights from the rollups the tickets’ triggers keep', () => {
  const db = useSchemaDatabase('tickets');
  const sql = <T extends object[]>(query: string, params: unknown[] = []) =>
    db.orm.em.fork().execute<T>(query, params);
  const OWNER = 9001;

  async function newBranch(timezone: string): Promise<Principal> {
    const venues = new VenueService(db.orm.em.fork());
    const venue = await venues.create({ name: 'Kebab Erbil', timezone });
    const branch = await venues.createBranch(venue.id, 'Main counter');
    await sql(`insert into tickets.venue_members (venue_id, user_id, role) values (?, ?, 'OWNER')`, [
      venue.id,
      OWNER,
    ]);
    return { keyId: 0, branchId: branch.id, venueId: venue.id, scopes: ['tickets:read', 'tickets:write'] };
  }

  const insights = (user: number | null = OWNER) => {
    const em = db.orm.em.fork();
    return new InsightsService(new InsightsRepository(em), new VenueRoles(em, user, null));
  };
  const ofBranch = (branch: Principal, range: InsightRange, user?: number | null) =>
    insights(user).ofBranch({ id: branch.branchId, venueId: branch.venueId }, range);

  let number = 0;
  /** A ticket written as it stands, every timestamp given: the insert's trigger counts them all. */
  async function insertTicket(branch: Principal, row: Partial<TicketRow> & { created_at: Date }) {
    number += 1;
    const status =
      row.cancelled_at != null
        ? 'cancelled'
        : row.collected_at != null
          ? 'collected'
          : row.ready_at != null
            ? 'ready'
            : 'waiting';
    const [inserted] = await sql<{ id: string }[]>(
      `insert into tickets.tickets (branch_id, number, token, status, created_at, ready_at, collected_at,
         cancelled_at, linked_at, ring_count, last_alert_at)
       values (?, ?, md5(random()::text), ?, ?, ?, ?, ?, ?, ?, ?) returning id`,
      [
        branch.branchId,
        String(number),
        status,
        row.created_at,
        row.ready_at ?? null,
        row.collected_at ?? null,
        row.cancelled_at ?? null,
        row.linked_at ?? null,
        row.ring_count ?? 0,
        row.last_alert_at ?? null,
      ],
    );
    return Number(inserted!.id);
  }

  async function ticketRows(branchIds: number[]): Promise<TicketRow[]> {
    const at = (value: unknown) => (value === null ? null : new Date(value as string));
    const rows = await sql<Record<keyof TicketRow, unknown>[]>(
      `select t.created_at, t.ready_at, t.collected_at, t.cancelled_at, t.linked_at, t.ring_count, t.last_alert_at,
              f.rating, f.created_at as feedback_at
         from tickets.tickets t left join tickets.ticket_feedback f on f.ticket_id = t.id
        where t.branch_id = any(?::bigint[])`,
      [`{${branchIds.join(',')}}`],
    );
    return rows.map((row) => ({
      created_at: at(row.created_at)!,
      ready_at: at(row.ready_at),
      collected_at: at(row.collected_at),
      cancelled_at: at(row.cancelled_at),
      linked_at: at(row.linked_at),
      ring_count: Number(row.ring_count),
      last_alert_at: at(row.last_alert_at),
      rating: row.rating === null ? null : Number(row.rating),
      feedback_at: at(row.feedback_at),
    }));
  }

  it('answers counts exactly and percentiles within 1 s of the ticket rows, by hour, by day and in total', async () => {
    const branch = await newBranch('Asia/Baghdad');
    const random = seeded(29);
    const from = new Date('2026-10-01T00:00:00Z');
    const minute = 60_000;
    for (let i = 0; i < 600; i += 1) {
      const created = new Date(from.getTime() + Math.floor(random() * 3 * 24 * 60 * minute) + random() * 999);
      const fate = random();
      // Most within the hour, some past a day (the rollups' last minute slot), one in twenty cancelled.
      const prep =
        (random() < 0.03 ? 25 * 60 * minute : Math.floor(random() * 50 * minute)) + random() * 1000;
      const ready = fate < 0.05 ? null : new Date(created.getTime() + prep);
      const collected =
        ready === null || fate > 0.9 ? null : new Date(ready.getTime() + Math.floor(random() * 15 * minute));
      const cancelled = fate < 0.05 ? new Date(created.getTime() + 5 * minute) : null;
      const linked = random() < 0.6 ? new Date(created.getTime() + 30_000) : null;
      const rings = ready === null ? 0 : Math.floor(random() * 3);
      const id = await insertTicket(branch, {
        created_at: created,
        ready_at: ready,
        collected_at: collected,
        cancelled_at: cancelled,
        linked_at: linked,
        ring_count: rings,
        last_alert_at: rings > 0 ? ready : null,
      });
      if (collected !== null && random() < 0.3) {
        await sql(`insert into tickets.ticket_feedback (ticket_id, rating, created_at) values (?, ?, ?)`, [
          id,
          1 + Math.floor(random() * 5),
          new Date(collected.getTime() + minute),
        ]);
      }
    }
    const rows = await ticketRows([branch.branchId]);
    for (const [bucket, to] of [
      ['HOUR', new Date('2026-10-02T13:30:00Z')],
      ['DAY', new Date('2026-10-05T00:00:00Z')],
    ] as const) {
      const answer = await ofBranch(branch, { from, to, bucket });
      expectMatches(
        answer,
        reference(
          rows,
          answer.buckets.map((b) => b.start),
          // The last bucket ends where the next would start: as far as the rollups count.
          bucket === 'HOUR'
            ? new Date(answer.buckets.at(-1)!.start.getTime() + 3_600_000)
            : new Date(answer.buckets.at(-1)!.start.getTime() + 86_400_000),
        ),
      );
    }
    // The reference's percentile is Postgres's own.
    const [pg] = await sql<{ p50: number; p90: number }[]>(
      `select percentile_cont(0.5) within group (order by extract(epoch from ready_at - created_at)) as p50,
              percentile_cont(0.9) within group (order by extract(epoch from ready_at - created_at)) as p90
         from tickets.tickets where branch_id = ? and ready_at >= ? and ready_at < ?`,
      [branch.branchId, from, new Date('2026-10-05T00:00:00Z')],
    );
    const whole = await ofBranch(branch, { from, to: new Date('2026-10-05T00:00:00Z'), bucket: 'DAY' });
    expect(Math.abs(whole.totals.prepP50Seconds! - pg!.p50)).toBeLessThan(1);
    expect(Math.abs(whole.totals.prepP90Seconds! - pg!.p90)).toBeLessThan(1);
  });

  it('follows the venue’s clock across daylight saving changes and half-hour offsets', async () => {
    const york = await newBranch('America/New_York');
    // 2026-11-01: 02:00 EDT becomes 01:00 EST, so 01:00–02:00 happens twice.
    for (const at of ['2026-11-01T05:30:00Z', '2026-11-01T06:30:00Z', '2026-11-01T06:40:00Z']) {
      await insertTicket(york, { created_at: new Date(at) });
    }
    const fall = await ofBranch(york, {
      from: new Date('2026-11-01T04:00:00Z'),
      to: new Date('2026-11-01T08:00:00Z'),
      bucket: 'HOUR',
    });
    expect(fall.buckets.map((b) => [b.start.toISOString(), b.created])).toEqual([
      ['2026-11-01T04:00:00.000Z', 0], // 00:00 EDT
      ['2026-11-01T05:00:00.000Z', 1], // 01:00 EDT
      ['2026-11-01T06:00:00.000Z', 2], // 01:00 EST
      ['2026-11-01T07:00:00.000Z', 0], // 02:00 EST
    ]);
    const days = await ofBranch(york, {
      from: new Date('2026-10-31T12:00:00Z'),
      to: new Date('2026-11-02T12:00:00Z'),
      bucket: 'DAY',
    });
    // Local midnights: the day of the change lasts 25 hours.
    expect(days.buckets.map((b) => [b.start.toISOString(), b.created])).toEqual([
      ['2026-10-31T04:00:00.000Z', 0],
      ['2026-11-01T04:00:00.000Z', 3],
      ['2026-11-02T05:00:00.000Z', 0],
    ]);

    // 2026-03-08: 02:00 EST becomes 03:00 EDT, so there is no 02:00 hour.
    await insertTicket(york, { created_at: new Date('2026-03-08T06:59:00Z') });
    await insertTicket(york, { created_at: new Date('2026-03-08T07:01:00Z') });
    const spring = await ofBranch(york, {
      from: new Date('2026-03-08T06:00:00Z'),
      to: new Date('2026-03-08T08:00:00Z'),
      bucket: 'HOUR',
    });
    expect(spring.buckets.map((b) => [b.start.toISOString(), b.created])).toEqual([
      ['2026-03-08T06:00:00.000Z', 1], // 01:00 EST
      ['2026-03-08T07:00:00.000Z', 1], // 03:00 EDT
    ]);

    const kolkata = await newBranch('Asia/Kolkata');
    await insertTicket(kolkata, { created_at: new Date('2026-10-01T10:45:00Z') }); // 16:15 IST
    const half = await ofBranch(kolkata, {
      from: new Date('2026-10-01T10:00:00Z'),
      to: new Date('2026-10-01T11:00:00Z'),
      bucket: 'HOUR',
    });
    expect(half.buckets.map((b) => [b.start.toISOString(), b.created])).toEqual([
      ['2026-10-01T09:30:00.000Z', 0],
      ['2026-10-01T10:30:00.000Z', 1],
    ]);
  });

  it('stays equal to the ticket rows, and to a rebuild from them, after concurrent creates, moves and late collections', async () => {
    const branch = await newBranch('Asia/Baghdad');
    const service = () => new TicketService(db.orm.em.fork());
    const created = await Promise.all(Array.from({ length: 40 }, () => service().create(branch, {})));
    const ids = created.map(({ ticket }) => ticket.id);
    // Two staff at once on every ticket: one of each pair wins, the other is refused.
    await Promise.allSettled(
      ids.flatMap((id, i) =>
        i % 4 === 0
          ? [service().move(branch, { id }, 'cancel'), service().move(branch, { id }, 'ready')]
          : [service().move(branch, { id }, 'ready'), service().move(branch, { id }, 'ready')],
      ),
    );
    await Promise.allSettled(
      ids.map((id, i) => (i % 3 === 0 ? service().move(branch, { id }, 'collected') : Promise.resolve())),
    );
    // Late collections: readied long ago, collected now.
    await sql(
      `update tickets.tickets set ready_at = ready_at - interval '40 minutes', created_at = created_at - interval '50 minutes'
        where branch_id = ? and status = 'ready'`,
      [branch.branchId],
    );
    await Promise.allSettled(
      ids.map((id, i) => (i % 3 === 1 ? service().move(branch, { id }, 'collected') : Promise.resolve())),
    );
    const range: InsightRange = {
      from: new Date(Date.now() - 3 * 3_600_000),
      to: new Date(Date.now() + 3_600_000),
      bucket: 'HOUR',
    };
    const answer = await ofBranch(branch, range);
    const rows = await ticketRows([branch.branchId]);
    expect(rows.filter((r) => r.collected_at !== null).length).toBeGreaterThan(10);
    expectMatches(
      answer,
      reference(
        rows,
        answer.buckets.map((b) => b.start),
        new Date(answer.buckets.at(-1)!.start.getTime() + 3_600_000),
      ),
    );
    const rollups = () =>
      sql(
        `select size, start_at, created, ready, collected, cancelled, linked, rings, sms_sent, feedback_count,
                feedback_sum, prep_minutes, pickup_minutes, prep_p50, prep_p90, pickup_p50
           from tickets.insight_buckets where branch_id = ? order by size, start_at`,
        [branch.branchId],
      );
    const durations = () =>
      sql(
        `select size, start_at, measure, minute, seconds from tickets.insight_durations
          where branch_id = ? and seconds <> array_fill(0, array[60]) order by 1, 2, 3, 4`,
        [branch.branchId],
      );
    const kept = [await rollups(), await durations()];
    await sql('select tickets.insight_rebuild(?)', [branch.branchId]);
    // Emptied minutes stay as zero rows after a move; a rebuild writes none.
    expect([await rollups(), await durations()]).toEqual(
      kept.map((rows) =>
        rows.map((row) => {
          const r = row as Record<string, unknown>;
          for (const key of ['prep_minutes', 'pickup_minutes'] as const) {
            if (Array.isArray(r[key])) {
              const counts = [...(r[key] as number[])];
              while (counts.length > 0 && counts.at(-1) === 0) counts.pop();
              r[key] = counts;
            }
          }
          return r;
        }),
      ),
    );
  });

  it('adds a venue’s branches together', async () => {
    const first = await newBranch('Asia/Baghdad');
    const venues = new VenueService(db.orm.em.fork());
    const second = await venues.createBranch(first.venueId, 'Terrace');
    const at = new Date('2026-09-10T09:10:00Z');
    await insertTicket(first, { created_at: at, ready_at: new Date(at.getTime() + 300_000) });
    await insertTicket(
      { ...first, branchId: second.id },
      { created_at: at, ready_at: new Date(at.getTime() + 900_000) },
    );
    const range: InsightRange = {
      from: new Date('2026-09-10T00:00:00Z'),
      to: new Date('2026-09-11T00:00:00Z'),
      bucket: 'DAY',
    };
    const venue = await insights().ofVenue(first.venueId, range);
    expect(venue.totals).toMatchObject({ created: 2, ready: 2, prepP50Seconds: 600 });
    expect((await ofBranch(first, range)).totals).toMatchObject({ created: 1, prepP50Seconds: 300 });
  });

  it('refuses a range that ends before it starts or asks for too many buckets, naming `to`', async () => {
    const branch = await newBranch('Asia/Baghdad');
    const at = new Date('2026-10-01T00:00:00Z');
    const backwards = await rejection(ofBranch(branch, { from: at, to: at, bucket: 'HOUR' }));
    expect(backwards).toBeInstanceOf(ValidationError);
    expect((backwards as ValidationError).fieldErrors).toHaveProperty('to');
    const long = await rejection(
      ofBranch(branch, { from: at, to: new Date(at.getTime() + 60 * 86_400_000), bucket: 'HOUR' }),
    );
    expect(long).toBeInstanceOf(ValidationError);
    expect(
      await ofBranch(branch, { from: at, to: new Date(at.getTime() + 365 * 86_400_000), bucket: 'DAY' }),
    ).toBeDefined();
  });

  it('answers owners and managers only: staff are FORBIDDEN, strangers NOT_FOUND, no session UNAUTHENTICATED', async () => {
    const branch = await newBranch('Asia/Baghdad');
    const range: InsightRange = {
      from: new Date('2026-10-01T00:00:00Z'),
      to: new Date('2026-10-02T00:00:00Z'),
      bucket: 'DAY',
    };
    await sql(
      `insert into tickets.venue_members (venue_id, user_id, role) values (?, 9002, 'MANAGER'), (?, 9003, 'STAFF')`,
      [branch.venueId, branch.venueId],
    );
    expect(await ofBranch(branch, range, 9002)).toBeDefined();
    expect(await rejection(ofBranch(branch, range, 9003))).toBeInstanceOf(ForbiddenError);
    expect(await rejection(ofBranch(branch, range, 9004))).toBeInstanceOf(NotFoundError);
    expect(await rejection(ofBranch(branch, range, null))).toBeInstanceOf(UnauthenticatedError);
    expect(await rejection(insights(9003).ofVenue(branch.venueId, range))).toBeInstanceOf(ForbiddenError);
  });
});
