import 'reflect-metadata';
import { ConflictError, NotFoundError, RateLimitedError, ValidationError } from '../../../common/errors';
import { statementsOf, useSchemaDatabase } from '../../../test/support/database';
import { rejection } from '../../../test/support/rejection';
import type { Principal } from '../access';
import type { Ticket } from './ticket.entity';
import { TicketRepository } from './ticket.repository';
import { IDEMPOTENCY_WAIT_MS, TicketService } from './ticket.service';
import { VenueService } from '../venues';

describe('TicketService on real Postgres', () => {
  const db = useSchemaDatabase('tickets');

  const tickets = () => new TicketService(db.orm.em.fork());
  const sql = <T extends object[]>(query: string, params: unknown[] = []) =>
    db.orm.em.fork().execute<T>(query, params);

  async function newBranch(timezone = 'Asia/Baghdad'): Promise<Principal> {
    const venues = new VenueService(db.orm.em.fork());
    const venue = await venues.create({ name: 'Kebab Erbil', timezone });
    const branch = await venues.createBranch(venue.id, 'Main counter');
    return { keyId: 0, branchId: branch.id, venueId: venue.id, scopes: ['tickets:read', 'tickets:write'] };
  }

  describe('creating', () => {
    it('creates a waiting ticket with a 32-character URL-safe token and the branch’s next number', async () => {
      const branch = await newBranch();
      const { ticket } = await tickets().create(branch, {
        customerName: '  Ali  ',
        customerPhone: '0770 123 4567',
      });
      expect(ticket.status).toBe('waiting');
      expect(ticket.number).toBe('1');
      expect(ticket.token).toMatch(/^[A-Za-z0-9_-]{32}$/);
      expect(ticket.customerName).toBe('Ali');
      expect(ticket.customerPhone).toBe('+9647701234567');
      expect((await tickets().create(branch, {})).ticket.number).toBe('2');
    });

    it('gives 50 parallel creates 50 distinct numbers', async () => {
      const branch = await newBranch();
      const created = await Promise.all(Array.from({ length: 50 }, () => tickets().create(branch, {})));
      const numbers = new Set(created.map(({ ticket }) => ticket.number));
      expect(numbers.size).toBe(50);
      expect([...numbers].map(Number).sort((a, b) => a - b)).toEqual(
        Array.from({ length: 50 }, (_, i) => i + 1),
      );
    });

    it('starts the counter again at 1 on a new day in the venue’s timezone, skipping numbers still open', async () => {
      const branch = await newBranch('Asia/Baghdad');
      const first = (await tickets().create(branch, {})).ticket;
      await tickets().create(branch, {}); // number 2 stays open overnight
      await tickets().move(branch, { id: first.id }, 'collected');
      await sql(`update tickets.branches set number_day = number_day - 1 where id = ?`, [branch.branchId]);
      expect((await tickets().create(branch, {})).ticket.number).toBe('1');
      expect((await tickets().create(branch, {})).ticket.number).toBe('3');
      const [day] = await sql<{ same: boolean }[]>(
        `select number_day = (now() at time zone 'Asia/Baghdad')::date as same from tickets.branches where id = ?`,
        [branch.branchId],
      );
      expect(day?.same).toBe(true);
    });

    it('skips past any run of numbers still open overnight, however long, with one look', async () => {
      // A POS that marks tickets ready but never collected leaves every number of the day open.
      const branch = await newBranch();
      for (let i = 0; i < 120; i++) await tickets().create(branch, {});
      await tickets().create(branch, { number: '122' });
      await tickets().create(branch, { number: 'A-7' });
      await sql(`update tickets.branches set number_day = number_day - 1 where id = ?`, [branch.branchId]);
      expect((await tickets().create(branch, {})).ticket.number).toBe('121');
      expect((await tickets().create(branch, {})).ticket.number).toBe('123');
      const [counter] = await sql<{ number_counter: number }[]>(
        `select number_counter from tickets.branches where id = ?`,
        [branch.branchId],
      );
      expect(counter?.number_counter).toBe(123);
    });

    it('skips an automatic number held by an open ticket whose number was given by hand', async () => {
      const branch = await newBranch();
      await tickets().create(branch, { number: '1' });
      expect((await tickets().create(branch, {})).ticket.number).toBe('2');
    });

    it('refuses a number held by an open ticket of the branch with 422 on number, and allows it once closed', async () => {
      const branch = await newBranch();
      const { ticket } = await tickets().create(branch, { number: 'A-7' });
      const error = await rejection(tickets().create(branch, { number: 'A-7' }));
      expect(error).toBeInstanceOf(ValidationError);
      expect(Object.keys((error as ValidationError).fieldErrors)).toEqual(['number']);
      await tickets().move(branch, { id: ticket.id }, 'collected');
      expect((await tickets().create(branch, { number: 'A-7' })).ticket.number).toBe('A-7');
      const other = await newBranch();
      expect((await tickets().create(other, { number: 'A-7' })).ticket.number).toBe('A-7');
    });

    it('keeps external_id unique among the branch’s open tickets (422 on externalId)', async () => {
      const branch = await newBranch();
      const { ticket } = await tickets().create(branch, { externalId: 'order-1' });
      const error = await rejection(tickets().create(branch, { externalId: 'order-1' }));
      expect((error as ValidationError).fieldErrors).toEqual({
        externalId: ['The external id has already been taken.'],
      });
      // The refusal took no number: the next create has the one after the first ticket's.
      expect((await tickets().create(branch, {})).ticket.number).toBe('2');
      await tickets().move(branch, { id: ticket.id }, 'cancel');
      const again = await tickets().create(branch, { externalId: 'order-1' });
      expect((await tickets().get(branch, { externalId: 'order-1' })).id).toBe(again.ticket.id);
    });

    it('names every invalid field at once, and writes nothing', async () => {
      const branch = await newBranch();
      const error = await rejection(
        tickets().create(branch, { number: 'x'.repeat(21), note: 'n'.repeat(256), customerPhone: '12345' }),
      );
      expect((error as ValidationError).fieldErrors).toEqual({
        number: ['The number field must not be greater than 20 characters.'],
        note: ['The note field must not be greater than 255 characters.'],
        customerPhone: ['The customer phone field must be a valid Iraqi mobile number.'],
      });
      const [count] = await sql<{ n: string }[]>(
        'select count(*) as n from tickets.tickets where branch_id = ?',
        [branch.branchId],
      );
      expect(count?.n).toBe('0');
    });

    it('writes a ticket.created outbox event in the same transaction, without the phone', async () => {
      const branch = await newBranch();
      const { ticket } = await tickets().create(branch, { customerPhone: '07701234567' });
      const events = await sql<
        { event: string; event_id: string; payload: { ticket: Record<string, unknown> } }[]
      >('select event, event_id, payload from tickets.outbox where ticket_id = ?', [ticket.id]);
      expect(events.map((e) => e.event)).toEqual(['ticket.created']);
      expect(events[0]?.event_id).toMatch(/^[0-9a-f-]{36}$/);
      expect(events[0]?.payload.ticket.number).toBe(ticket.number);
      expect(JSON.stringify(events[0]?.payload)).not.toContain('7701234567');
    });

    it('writes the common create and its event in one statement, the event the entity’s own JSON', async () => {
      const branch = await newBranch();
      const em = db.orm.em.fork();
      const created: Ticket[] = [];
      for (let i = 0; i < 20; i++) {
        const input = { customerName: `Guest ${i}`, note: 'no onions', externalId: `order-${i}` };
        const statements = await statementsOf(em, async () => {
          created.push((await new TicketService(em.fork()).create(branch, input)).ticket);
        });
        expect(statements).toHaveLength(1);
      }
      // With a key: its lock, its look-up, the same one statement and the key's record.
      const keyed = await statementsOf(em, async () => {
        created.push((await new TicketService(em.fork()).create(branch, { note: 'keyed' }, 'k-1')).ticket);
      });
      expect(keyed.filter((q) => !/^(BEGIN|COMMIT)/.test(q))).toHaveLength(4);
      // What recordEvent writes from the entity, which the transaction's creates still use.
      const rows = await sql<{ ticket_id: string; payload: { ticket: Record<string, unknown> } }[]>(
        'select ticket_id, payload from tickets.outbox where venue_id = ? order by id',
        [branch.venueId],
      );
      expect(rows).toHaveLength(21);
      rows.forEach((row, i) => {
        const { customerPhone: _phone, ...snapshot } = created[i]!;
        expect(row.payload.ticket).toEqual(JSON.parse(JSON.stringify(snapshot)));
      });
    });
  });

  describe('idempotency', () => {
    it('returns the first ticket for the same key and body, and creates nothing more', async () => {
      const branch = await newBranch();
      const first = await tickets().create(branch, { externalId: 'o-9', note: 'no onions' }, 'key-1');
      const again = await tickets().create(branch, { note: 'no onions', externalId: 'o-9' }, 'key-1');
      expect(first.replayed).toBe(false);
      expect(again).toMatchObject({
        replayed: true,
        ticket: { id: first.ticket.id, number: first.ticket.number },
      });
    });

    it('refuses the same key with a different body with 422', async () => {
      const branch = await newBranch();
      await tickets().create(branch, { note: 'a' }, 'key-2');
      const error = await rejection(tickets().create(branch, { note: 'b' }, 'key-2'));
      expect((error as ValidationError).fieldErrors).toHaveProperty('idempotencyKey');
    });

    it('refuses a key longer than 255 characters with 422', async () => {
      const branch = await newBranch();
      expect(await rejection(tickets().create(branch, {}, 'k'.repeat(256)))).toBeInstanceOf(ValidationError);
    });

    it('answers 409 while the first request with the key is still running', async () => {
      const branch = await newBranch();
      // The first request's transaction holds the key, as a create in flight does.
      await new TicketRepository(db.orm.em.fork()).transaction(async (first) => {
        expect(await first.tickets.lockIdempotencyKey(branch.branchId, 'busy')).toBe(true);
        const error = await rejection(tickets().create(branch, {}, 'busy'));
        expect(error).toBeInstanceOf(ConflictError);
      });
      expect((await tickets().create(branch, {}, 'busy')).replayed).toBe(false);
    });

    it('has a repeat wait for the first request with its key, then replay what it committed', async () => {
      const branch = await newBranch();
      const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
      let first: Promise<{ replayed: boolean; ticket: { id: number } }> | undefined;
      let repeat: Promise<{ replayed: boolean; ticket: { id: number } }> | undefined;
      let repeatSent = 0;
      // The branch's row held elsewhere keeps the first create (which numbers its ticket there) from
      // committing while it holds the key: a repeat arrives meanwhile, as a balancer's retry does.
      await db.orm.em.fork().transactional(async (em) => {
        await em.execute('select id from tickets.branches where id = ? for update', [branch.branchId]);
        first = tickets().create(branch, {}, 'retried');
        await pause(200);
        repeatSent = Date.now();
        repeat = tickets().create(branch, {}, 'retried');
        await pause(300);
      });
      const [a, b] = await Promise.all([first!, repeat!]);
      expect([a.replayed, b.replayed]).toEqual([false, true]);
      expect(b.ticket.id).toBe(a.ticket.id);
      expect(Date.now() - repeatSent).toBeLessThan(IDEMPOTENCY_WAIT_MS);
    });

    it('takes over at once a key whose first request died before its commit', async () => {
      const branch = await newBranch();
      // What a version that claimed keys in a row of their own left behind a killed request.
      await sql(
        `insert into tickets.idempotency_keys (branch_id, key, request_hash, expires_at)
         values (?, 'orphaned', 'whatever', now() + interval '1 day')`,
        [branch.branchId],
      );
      const { replayed, ticket } = await tickets().create(branch, {}, 'orphaned');
      expect(replayed).toBe(false);
      expect((await tickets().create(branch, {}, 'orphaned')).ticket.id).toBe(ticket.id);
    });

    it('creates exactly one ticket from 20 parallel requests with one key', async () => {
      const branch = await newBranch();
      const results = await Promise.allSettled(
        Array.from({ length: 20 }, () => tickets().create(branch, { externalId: 'same' }, 'parallel')),
      );
      const created = results.filter((r) => r.status === 'fulfilled');
      const ids = new Set(
        created.map((r) => (r as PromiseFulfilledResult<{ ticket: { id: number } }>).value.ticket.id),
      );
      expect(ids.size).toBe(1);
      for (const result of results) {
        if (result.status === 'rejected') expect(result.reason).toBeInstanceOf(ConflictError);
      }
      const [count] = await sql<{ n: string }[]>(
        'select count(*) as n from tickets.tickets where branch_id = ?',
        [branch.branchId],
      );
      expect(count?.n).toBe('1');
    });

    it('forgets a key whose request was refused, so the corrected request can use it', async () => {
      const branch = await newBranch();
      await tickets().create(branch, { number: 'taken' });
      await rejection(tickets().create(branch, { number: 'taken' }, 'retry-me'));
      await tickets()
        .move(branch, { externalId: 'nope' }, 'cancel')
        .catch(() => undefined);
      const [open] = await sql<{ id: number }[]>(
        'select id from tickets.tickets where branch_id = ? and number = ?',
        [branch.branchId, 'taken'],
      );
      await tickets().move(branch, { id: Number(open?.id) }, 'collected');
      expect((await tickets().create(branch, { number: 'taken' }, 'retry-me')).replayed).toBe(false);
    });
  });

  describe('moves', () => {
    it('marks ready from waiting, stamping ready_at and counting the alert', async () => {
      const branch = await newBranch();
      const { ticket } = await tickets().create(branch, {});
      const ready = await tickets().move(branch, { id: ticket.id }, 'ready');
      expect(ready.status).toBe('ready');
      expect(ready.readyAt).toBeInstanceOf(Date);
      expect(ready.ringCount).toBe(1);
      expect(ready.updatedAt.getTime()).toBeGreaterThanOrEqual(ticket.updatedAt.getTime());
    });

    it.each([
      ['ready', 'ready', 'A ready ticket cannot be marked ready.'],
      ['collected', 'ready', 'A collected ticket cannot be marked ready.'],
      ['collected', 'cancel', 'A collected ticket cannot be cancelled.'],
      ['cancelled', 'collected', 'A cancelled ticket cannot be marked collected.'],
    ] as const)('refuses from %s the move %s with 422', async (from, move, message) => {
      const branch = await newBranch();
      const { ticket } = await tickets().create(branch, {});
      if (from === 'ready') await tickets().move(branch, { id: ticket.id }, 'ready');
      if (from === 'collected') await tickets().move(branch, { id: ticket.id }, 'collected');
      if (from === 'cancelled') await tickets().move(branch, { id: ticket.id }, 'cancel');
      const error = await rejection(tickets().move(branch, { id: ticket.id }, move));
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).message).toBe(message);
    });

    it('lets only one of two concurrent moves of one ticket succeed', async () => {
      const branch = await newBranch();
      for (let round = 0; round < 10; round++) {
        const { ticket } = await tickets().create(branch, {});
        const results = await Promise.allSettled([
          tickets().move(branch, { id: ticket.id }, 'collected'),
          tickets().move(branch, { id: ticket.id }, 'cancel'),
        ]);
        expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      }
    });

    it('addresses by external id and hides another branch’s ticket as not found', async () => {
      const branch = await newBranch();
      const other = await newBranch();
      const { ticket } = await tickets().create(branch, { externalId: 'pos-55' });
      expect((await tickets().move(branch, { externalId: 'pos-55' }, 'ready')).id).toBe(ticket.id);
      const read = await tickets().get(branch, { id: ticket.id });
      expect(read).toMatchObject({ id: ticket.id, branchId: ticket.branchId, status: 'ready', ringCount: 1 });
      expect(read.readyAt).toBeInstanceOf(Date);
      expect(await rejection(tickets().get(other, { id: ticket.id }))).toBeInstanceOf(NotFoundError);
      expect(await rejection(tickets().move(other, { externalId: 'pos-55' }, 'cancel'))).toBeInstanceOf(
        NotFoundError,
      );
      expect(await rejection(tickets().get(branch, { id: 999_999_999 }))).toBeInstanceOf(NotFoundError);
    });

    it('records each move in the outbox', async () => {
      const branch = await newBranch();
      const { ticket } = await tickets().create(branch, {});
      await tickets().move(branch, { id: ticket.id }, 'ready');
      await tickets().move(branch, { id: ticket.id }, 'collected');
      const events = await sql<{ event: string }[]>(
        'select event from tickets.outbox where ticket_id = ? order by id',
        [ticket.id],
      );
      expect(events.map((e) => e.event)).toEqual(['ticket.created', 'ticket.ready', 'ticket.collected']);
    });
  });

  describe('ringing', () => {
    it('rings only a ready ticket', async () => {
      const branch = await newBranch();
      const { ticket } = await tickets().create(branch, {});
      const error = await rejection(tickets().ring(branch, { id: ticket.id }));
      expect(error).toBeInstanceOf(ValidationError);
    });

    it('refuses a second ring within 30 seconds of the last alert with 429 and the seconds left', async () => {
      const branch = await newBranch();
      const { ticket } = await tickets().create(branch, {});
      await tickets().move(branch, { id: ticket.id }, 'ready');
      const soon = await rejection(tickets().ring(branch, { id: ticket.id }));
      expect(soon).toBeInstanceOf(RateLimitedError);
      expect((soon as RateLimitedError).retryAfterSeconds).toBeGreaterThan(25);
      expect((soon as RateLimitedError).retryAfterSeconds).toBeLessThanOrEqual(30);

      await sql(`update tickets.tickets set last_alert_at = now() - interval '31 seconds' where id = ?`, [
        ticket.id,
      ]);
      const rung = await tickets().ring(branch, { id: ticket.id });
      expect(rung.ringCount).toBe(2);
      await sql(`update tickets.tickets set last_alert_at = now() - interval '20 seconds' where id = ?`, [
        ticket.id,
      ]);
      const later = await rejection(tickets().ring(branch, { id: ticket.id }));
      expect((later as RateLimitedError).retryAfterSeconds).toBeGreaterThanOrEqual(9);
      expect((later as RateLimitedError).retryAfterSeconds).toBeLessThanOrEqual(10);
    });

    it('lets only one of many concurrent rings through', async () => {
      const branch = await newBranch();
      const { ticket } = await tickets().create(branch, {});
      await tickets().move(branch, { id: ticket.id }, 'ready');
      await sql(`update tickets.tickets set last_alert_at = now() - interval '1 minute' where id = ?`, [
        ticket.id,
      ]);
      const results = await Promise.allSettled(
        Array.from({ length: 10 }, () => tickets().ring(branch, { id: ticket.id })),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    });
  });

  describe('listing', () => {
    it('lists newest first with filters on status, external id, search and created_at', async () => {
      const branch = await newBranch();
      const a = (await tickets().create(branch, { customerName: 'Zainab', externalId: 'e-1' })).ticket;
      const b = (await tickets().create(branch, { note: 'Extra 100% spicy' })).ticket;
      const c = (await tickets().create(branch, { number: 'VIP-1' })).ticket;
      await tickets().move(branch, { id: b.id }, 'ready');
      await sql(`update tickets.tickets set created_at = now() - interval '2 days' where id = ?`, [a.id]);

      const all = await tickets().list(branch, {}, 1, 15);
      expect(all.items.map((t) => t.id)).toEqual([c.id, b.id, a.id]);
      expect(all.total).toBe(3);
      expect((await tickets().list(branch, { status: 'ready' }, 1, 15)).items.map((t) => t.id)).toEqual([
        b.id,
      ]);
      expect((await tickets().list(branch, { externalId: 'e-1' }, 1, 15)).items.map((t) => t.id)).toEqual([
        a.id,
      ]);
      expect((await tickets().list(branch, { search: 'zAIN' }, 1, 15)).items.map((t) => t.id)).toEqual([
        a.id,
      ]);
      expect((await tickets().list(branch, { search: '100%' }, 1, 15)).items.map((t) => t.id)).toEqual([
        b.id,
      ]);
      expect((await tickets().list(branch, { search: 'vip' }, 1, 15)).items.map((t) => t.id)).toEqual([c.id]);
      const since = new Date(Date.now() - 24 * 3600_000);
      expect((await tickets().list(branch, { from: since }, 1, 15)).total).toBe(2);
      expect((await tickets().list(branch, { to: since }, 1, 15)).items.map((t) => t.id)).toEqual([a.id]);
      const page2 = await tickets().list(branch, {}, 2, 2);
      expect(page2.items.map((t) => t.id)).toEqual([a.id]);
      expect(page2.total).toBe(3);
    });

    it('never lists another branch’s tickets', async () => {
      const branch = await newBranch();
      const other = await newBranch();
      await tickets().create(other, {});
      expect((await tickets().list(branch, {}, 1, 15)).total).toBe(0);
    });
  });

  it('shows a ticket by token with branch and venue names, and nothing for an unknown token', async () => {
    const branch = await newBranch();
    const { ticket } = await tickets().create(branch, {});
    const view = await tickets().byToken(ticket.token);
    expect(view).toMatchObject({ branchName: 'Main counter', venueName: 'Kebab Erbil', venueLanguage: 'ar' });
    expect(await tickets().byToken('x'.repeat(32))).toBeNull();
    expect(await tickets().byToken('../etc')).toBeNull();
  });
});
