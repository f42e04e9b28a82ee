import 'reflect-metadata';
import { type ValidationError } from '../../../common/errors';
import { useSchemaDatabase } from '../../../test/support/database';
import { rejection } from '../../../test/support/rejection';
import type { Principal } from '../access';
import { LEASED_NUMBERS_PER_DAY, VenueService } from '../venues';
import { NumberLeaseService } from './number-lease.service';
import { TicketService } from './ticket.service';

describe('leases of a branch’s upcoming numbers, on real Postgres', () => {
  const db = useSchemaDatabase('tickets');
  let nextKey = 0;

  const leases = () => new NumberLeaseService(db.orm.em.fork());
  const tickets = () => new TicketService(db.orm.em.fork());
  const sql = <T extends object[]>(query: string, params: unknown[] = []) =>
    db.orm.em.fork().execute<T>(query, params);

  /** A branch of a venue in `timezone`, and a board device of it (a key row of kind board). */
  async function newBranch(
    timezone = 'Asia/Baghdad',
    numberPrefix: string | null = null,
  ): Promise<Principal> {
    const venues = new VenueService(db.orm.em.fork());
    const venue = await venues.create({ name: 'Falafel Basra', timezone });
    const branch = await venues.createBranch(venue.id, 'Counter');
    const [key] = await sql<{ id: string }[]>(
      `insert into tickets.api_keys (branch_id, name, scopes, prefix, key_hash, kind, paired_at, number_prefix)
       values (?, 'Tablet', '{tickets:read,tickets:write}', ?, sha256(?::bytea), 'board', now(), ?) returning id`,
      [branch.id, `bd_${(nextKey += 1)}`, `lease-${nextKey}-${Math.random()}`, numberPrefix],
    );
    return {
      keyId: Number(key!.id),
      branchId: branch.id,
      venueId: venue.id,
      scopes: ['tickets:read', 'tickets:write'],
      board: true,
    };
  }

  /** Another board device of the same branch: its key's id. */
  async function secondDevice(branch: Principal): Promise<number> {
    const [key] = await sql<{ id: string }[]>(
      `insert into tickets.api_keys (branch_id, name, scopes, prefix, key_hash, kind, paired_at)
       values (?, 'Second tablet', '{tickets:read,tickets:write}', 'bd_second', sha256(?::bytea), 'board', now()) returning id`,
      [branch.branchId, `second-${Math.random()}`],
    );
    return Number(key!.id);
  }

  /** Another caller of the same branch: a member working it. */
  const member = (branch: Principal, userId: number): Principal => ({
    ...branch,
    keyId: null,
    userId,
    board: false,
  });

  it('takes the next numbers, records the lease, and the branch’s sequence goes on after them', async () => {
    const branch = await newBranch('Asia/Baghdad', 'AB');
    expect((await tickets().create(branch, {})).ticket.number).toBe('1');
    const lease = await leases().reserve(branch, 5);
    expect(lease.numbers).toEqual(['2', '3', '4', '5', '6']);
    expect(lease.prefix).toBe('AB');
    expect((await tickets().create(branch, {})).ticket.number).toBe('7');
    // A ticket created with a leased number gets it, as a number typed by hand.
    expect((await tickets().create(branch, { number: '4' })).ticket.number).toBe('4');
    const [row] = await sql<{ api_key_id: string; user_id: string | null; numbers: number[]; day: string }[]>(
      `select api_key_id, user_id, numbers, to_char(day, 'YYYY-MM-DD') as day from tickets.number_leases where branch_id = ?`,
      [branch.branchId],
    );
    expect(row).toEqual({
      api_key_id: String(branch.keyId),
      user_id: null,
      numbers: [2, 3, 4, 5, 6],
      day: lease.day,
    });
  });

  it('skips the numbers an open ticket holds, whoever leases', async () => {
    const branch = await newBranch();
    await tickets().create(branch, { number: '2' });
    await tickets().create(branch, { number: '4' });
    const closed = (await tickets().create(branch, { number: '5' })).ticket;
    await tickets().move(branch, { id: closed.id }, 'collected');
    const lease = await leases().reserve(branch, 3);
    expect(lease.numbers).toEqual(['1', '3', '5']);
    expect(lease.prefix).toBeNull();
    expect((await leases().reserve(member(branch, 9), 20)).numbers).toEqual(
      Array.from({ length: 20 }, (_, i) => String(i + 6)),
    );
  });

  it('never gives one number twice among two boards’ parallel leases, a member’s and creates', async () => {
    const branch = await newBranch();
    const other = { ...branch, keyId: await secondDevice(branch) };
    const work = await Promise.all([
      leases().reserve(branch, 20),
      leases().reserve(other, 20),
      leases().reserve(member(branch, 7), 20),
      ...Array.from({ length: 20 }, () => tickets().create(branch, {})),
    ]);
    const numbers = work.flatMap((done) => ('numbers' in done ? done.numbers : [done.ticket.number]));
    expect(numbers).toHaveLength(80);
    expect(new Set(numbers).size).toBe(80);
    expect(numbers.map(Number).sort((a, b) => a - b)).toEqual(Array.from({ length: 80 }, (_, i) => i + 1));
    expect((await tickets().create(branch, {})).ticket.number).toBe('81');
  });

  it('refuses a count outside 1 to 50 on count, taking nothing', async () => {
    const branch = await newBranch();
    for (const count of [0, 51, -3, 2.5]) {
      const refused = await rejection(leases().reserve(branch, count));
      expect((refused as ValidationError).fieldErrors).toEqual({
        count: ['The count field must be between 1 and 50.'],
      });
    }
    expect((await tickets().create(branch, {})).ticket.number).toBe('1');
  });

  it(`refuses past ${LEASED_NUMBERS_PER_DAY} numbers a caller and venue day on count, each caller apart`, async () => {
    const branch = await newBranch();
    for (let i = 0; i < LEASED_NUMBERS_PER_DAY / 50; i++) await leases().reserve(branch, 50);
    const refused = await rejection(leases().reserve(branch, 1));
    expect((refused as ValidationError).fieldErrors).toEqual({
      count: [
        `The caller has leased ${LEASED_NUMBERS_PER_DAY} numbers at this branch today, the most one device, key or person may lease in a venue day: use the numbers it holds.`,
      ],
    });
    // Another caller of the branch, and the same caller on an earlier day, hold no part of it.
    expect((await leases().reserve(member(branch, 3), 1)).numbers).toEqual([
      String(LEASED_NUMBERS_PER_DAY + 1),
    ]);
    await sql(`update tickets.number_leases set day = day - 1 where api_key_id = ?`, [branch.keyId]);
    expect((await leases().reserve(branch, 1)).numbers).toEqual([String(LEASED_NUMBERS_PER_DAY + 2)]);
  });

  it('leases for the venue’s day: the day and its end in the venue’s timezone, and the counter starts again at 1 on a new day', async () => {
    const branch = await newBranch('Pacific/Kiritimati');
    await leases().reserve(branch, 10);
    await sql(`update tickets.branches set number_day = number_day - 1 where id = ?`, [branch.branchId]);
    const lease = await leases().reserve(branch, 2);
    expect(lease.numbers).toEqual(['1', '2']);
    const [venue] = await sql<{ day: string; end: Date }[]>(
      `select to_char((now() at time zone 'Pacific/Kiritimati')::date, 'YYYY-MM-DD') as day,
              (((now() at time zone 'Pacific/Kiritimati')::date + 1)::timestamp at time zone 'Pacific/Kiritimati') as end`,
    );
    expect(lease.day).toBe(venue!.day);
    expect(lease.validUntil.toISOString()).toBe(new Date(venue!.end).toISOString());
    // Kiritimati is 14 hours ahead of UTC: its day ends at 10:00 UTC.
    expect(lease.validUntil.getUTCHours()).toBe(10);
    expect(lease.validUntil.getTime()).toBeGreaterThan(Date.now());
    expect(lease.validUntil.getTime() - Date.now()).toBeLessThanOrEqual(24 * 3600_000);
  });
});
