import 'reflect-metadata';
import { ValidationError } from '../../../common/errors';
import { useSchemaDatabase } from '../../../test/support/database';
import { rejection } from '../../../test/support/rejection';
import type { Principal } from '../access';
import { TicketService } from './ticket.service';
import { VenueService } from '../venues';

/** A board's work replayed after an outage: creates and moves dated `occurredAt`, moves with keys. */
describe('work done offline, replayed on real Postgres', () => {
  const db = useSchemaDatabase('tickets');

  const tickets = () => new TicketService(db.orm.em.fork());
  const sql = <T extends object[]>(query: string, params: unknown[] = []) =>
    db.orm.em.fork().execute<T>(query, params);
  const ago = (seconds: number) => new Date(Date.now() - seconds * 1_000);

  async function newBranch(): Promise<Principal> {
    const venues = new VenueService(db.orm.em.fork());
    const venue = await venues.create({ name: 'Tea House', timezone: 'Asia/Baghdad' });
    const branch = await venues.createBranch(venue.id, 'Counter');
    return {
      keyId: 0,
      branchId: branch.id,
      venueId: venue.id,
      scopes: ['tickets:read', 'tickets:write'],
      board: true,
    };
  }

  const events = (ticketId: number) =>
    sql<{ event: string; payload: { ticket: Record<string, string | null> } }[]>(
      'select event, payload from tickets.outbox where ticket_id = ? order by id',
      [ticketId],
    );

  it('stamps a create’s and each move’s occurredAt, and the outbox events carry the stamped times', async () => {
    const branch = await newBranch();
    const created = ago(600);
    const ready = ago(300);
    const collected = ago(120);
    const { ticket } = await tickets().create(branch, { number: '7' }, 'create-7', created);
    expect(ticket.createdAt.toISOString()).toBe(created.toISOString());
    expect(Date.now() - ticket.updatedAt.getTime()).toBeLessThan(30_000);
    const readied = await tickets().move(branch, { id: ticket.id }, 'ready', {
      idempotencyKey: 'ready-7',
      occurredAt: ready,
    });
    expect(readied.readyAt?.toISOString()).toBe(ready.toISOString());
    // The customer is alerted at sync: the ring interval starts now, not when it was readied.
    expect(Date.now() - readied.lastAlertAt!.getTime()).toBeLessThan(30_000);
    expect(Date.now() - readied.updatedAt.getTime()).toBeLessThan(30_000);
    const done = await tickets().move(branch, { id: ticket.id }, 'collected', { occurredAt: collected });
    expect(done.collectedAt?.toISOString()).toBe(collected.toISOString());

    const written = await events(ticket.id);
    expect(written.map(({ event }) => event)).toEqual(['ticket.created', 'ticket.ready', 'ticket.collected']);
    expect(written[0]!.payload.ticket.createdAt).toBe(created.toISOString());
    expect(written[1]!.payload.ticket.readyAt).toBe(ready.toISOString());
    expect(written[2]!.payload.ticket.collectedAt).toBe(collected.toISOString());
  });

  it('stamps the one-statement create (an automatic number, no key) with occurredAt too', async () => {
    const branch = await newBranch();
    const created = ago(90);
    const { ticket } = await tickets().create(branch, {}, null, created);
    expect(ticket.number).toBe('1');
    expect(ticket.createdAt.toISOString()).toBe(created.toISOString());
    const [event] = await events(ticket.id);
    expect(event!.payload.ticket.createdAt).toBe(created.toISOString());
  });

  it('applies a move repeated with its key once: one event, the ticket as it is now, no error', async () => {
    const branch = await newBranch();
    const { ticket } = await tickets().create(branch, {}, null, ago(120));
    const occurredAt = ago(60);
    const move = () =>
      tickets().move(branch, { id: ticket.id }, 'ready', { idempotencyKey: 'k-ready', occurredAt });
    const first = await move();
    await tickets().move(branch, { id: ticket.id }, 'collected');
    // The answer was lost; the board sends it again after the ticket moved on.
    const repeated = await move();
    expect(repeated.id).toBe(first.id);
    expect(repeated.status).toBe('collected');
    expect(repeated.readyAt?.toISOString()).toBe(occurredAt.toISOString());
    expect((await events(ticket.id)).map(({ event }) => event)).toEqual([
      'ticket.created',
      'ticket.ready',
      'ticket.collected',
    ]);
  });

  it('applies one of ten parallel repeats of a keyed move, and answers all ten', async () => {
    const branch = await newBranch();
    const { ticket } = await tickets().create(branch, {});
    const occurredAt = ago(30);
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        tickets().move(branch, { id: ticket.id }, 'cancel', { idempotencyKey: 'k-cancel', occurredAt }),
      ),
    );
    expect(new Set(answers.map((answer) => answer.status))).toEqual(new Set(['cancelled']));
    expect((await events(ticket.id)).map(({ event }) => event)).toEqual([
      'ticket.created',
      'ticket.cancelled',
    ]);
  });

  it('refuses a key used with another move, ticket or occurredAt on idempotencyKey, the create’s keys included', async () => {
    const branch = await newBranch();
    const one = (await tickets().create(branch, {}, 'k-create')).ticket;
    const two = (await tickets().create(branch, {})).ticket;
    const occurredAt = ago(30);
    await tickets().move(branch, { id: one.id }, 'ready', { idempotencyKey: 'k-move', occurredAt });
    const refusals = await Promise.all([
      rejection(tickets().move(branch, { id: one.id }, 'cancel', { idempotencyKey: 'k-move', occurredAt })),
      rejection(tickets().move(branch, { id: two.id }, 'ready', { idempotencyKey: 'k-move', occurredAt })),
      rejection(
        tickets().move(branch, { id: one.id }, 'ready', { idempotencyKey: 'k-move', occurredAt: ago(10) }),
      ),
      rejection(tickets().move(branch, { id: two.id }, 'ready', { idempotencyKey: 'k-create' })),
    ]);
    for (const refused of refusals) {
      expect(refused).toBeInstanceOf(ValidationError);
      expect((refused as ValidationError).fieldErrors).toEqual({
        idempotencyKey: ['The Idempotency-Key was already used with a different request body.'],
      });
    }
    expect((await tickets().get(branch, { id: two.id })).status).toBe('waiting');
    const long = await rejection(
      tickets().move(branch, { id: two.id }, 'ready', { idempotencyKey: 'x'.repeat(256) }),
    );
    expect((long as ValidationError).fieldErrors).toHaveProperty('idempotencyKey');
  });

  it('keeps nothing of a refused keyed move, so the same key answers the same refusal again', async () => {
    const branch = await newBranch();
    const { ticket } = await tickets().create(branch, {});
    await tickets().move(branch, { id: ticket.id }, 'cancel');
    const again = () => tickets().move(branch, { id: ticket.id }, 'ready', { idempotencyKey: 'k-late' });
    for (const refused of [await rejection(again()), await rejection(again())]) {
      expect((refused as ValidationError).fieldErrors).toEqual({
        status: ['A cancelled ticket cannot be marked ready.'],
      });
    }
    const [kept] = await sql<{ n: string }[]>(
      'select count(*) as n from tickets.idempotency_keys where branch_id = ? and key = ?',
      [branch.branchId, 'k-late'],
    );
    expect(Number(kept!.n)).toBe(0);
  });

  describe('the rules of occurredAt', () => {
    it('refuses a moment more than 24 hours ago on occurredAt, writing nothing', async () => {
      const branch = await newBranch();
      const { ticket } = await tickets().create(branch, {});
      const old = ago(24 * 3600 + 60);
      const refusals = [
        await rejection(tickets().create(branch, {}, null, old)),
        await rejection(tickets().move(branch, { id: ticket.id }, 'ready', { occurredAt: old })),
      ];
      for (const refused of refusals) {
        expect((refused as ValidationError).fieldErrors).toEqual({
          occurredAt: [
            'The occurredAt must be within the last 24 hours: a change older than that is not taken.',
          ],
        });
      }
      expect((await tickets().get(branch, { id: ticket.id })).status).toBe('waiting');
      expect((await events(ticket.id)).length).toBe(1);
    });

    it('refuses a moment more than 60 s ahead, and takes one up to 60 s ahead as now', async () => {
      const branch = await newBranch();
      const { ticket } = await tickets().create(branch, {});
      const refused = await rejection(
        tickets().move(branch, { id: ticket.id }, 'ready', { occurredAt: new Date(Date.now() + 90_000) }),
      );
      expect((refused as ValidationError).fieldErrors).toEqual({
        occurredAt: [
          'The occurredAt must not be later than now: a clock up to 60 seconds ahead is taken as now, this one is further.',
        ],
      });
      const before = Date.now();
      const ahead = new Date(before + 45_000);
      const ready = await tickets().move(branch, { id: ticket.id }, 'ready', { occurredAt: ahead });
      expect(ready.readyAt!.getTime()).toBeLessThan(ahead.getTime());
      expect(Math.abs(ready.readyAt!.getTime() - before)).toBeLessThan(30_000);
      const created = (await tickets().create(branch, {}, null, new Date(Date.now() + 45_000))).ticket;
      expect(created.createdAt.getTime()).toBeLessThanOrEqual(Date.now());
    });

    it('takes a moment before the ticket’s previous event as that event’s: created for waiting, ready for ready', async () => {
      const branch = await newBranch();
      const createdAt = ago(600);
      const waiting = (await tickets().create(branch, {}, null, createdAt)).ticket;
      const readied = await tickets().move(branch, { id: waiting.id }, 'ready', { occurredAt: ago(900) });
      expect(readied.readyAt!.toISOString()).toBe(createdAt.toISOString());

      const readyAt = ago(300);
      const other = (await tickets().create(branch, {}, null, ago(400))).ticket;
      await tickets().move(branch, { id: other.id }, 'ready', { occurredAt: readyAt });
      const collected = await tickets().move(branch, { id: other.id }, 'collected', { occurredAt: ago(350) });
      expect(collected.collectedAt!.toISOString()).toBe(readyAt.toISOString());
      const third = (await tickets().create(branch, {}, null, ago(200))).ticket;
      const cancelled = await tickets().move(branch, { id: third.id }, 'cancel', { occurredAt: ago(250) });
      expect(cancelled.cancelledAt!.toISOString()).toBe(third.createdAt.toISOString());
    });

    it('counts stamped times in the insights and the wait, not the moment of the sync', async () => {
      const branch = await newBranch();
      const created = ago(1800);
      const { ticket } = await tickets().create(branch, {}, null, created);
      await tickets().move(branch, { id: ticket.id }, 'ready', { occurredAt: ago(1200) });
      const [row] = await sql<{ prep: string }[]>(
        'select extract(epoch from ready_at - created_at) as prep from tickets.tickets where id = ?',
        [ticket.id],
      );
      expect(Math.round(Number(row!.prep))).toBe(600);
      const [bucket] = await sql<{ created: number; readied: number; prep: number }[]>(
        `select sum(created)::int as created, sum(ready)::int as readied, max(prep_p50) as prep
           from tickets.insight_buckets where branch_id = ? and size = 'day'`,
        [branch.branchId],
      );
      expect(bucket).toEqual({ created: 1, readied: 1, prep: 600 });
    });
  });
});
