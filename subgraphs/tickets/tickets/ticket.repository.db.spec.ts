import 'reflect-metadata';
import { randomBytes, randomUUID } from 'node:crypto';
import { useSchemaDatabase } from '../../../test/support/database';
import { newTicketRow, newVenueBranch } from '../../../test/support/ticket-rows';
import { TicketRepository } from './ticket.repository';

describe('TicketRepository and TicketOutbox on real Postgres', () => {
  const db = useSchemaDatabase('tickets');

  const tickets = () => new TicketRepository(db.orm.em.fork());

  const newBranch = () => newVenueBranch(db.orm.em.fork());
  const row = newTicketRow;

  it('counts numbers per branch and answers null for a branch that does not exist', async () => {
    const { branchId } = await newBranch();
    expect(await tickets().nextNumber(branchId)).toBe('1');
    expect(await tickets().nextNumber(branchId)).toBe('2');
    expect(await tickets().nextNumber(2 ** 40)).toBeNull();
  });

  it('answers null for a number an open ticket of the branch holds, and says which', async () => {
    const { branchId } = await newBranch();
    expect(await tickets().insert(row(branchId, 'A-1'))).not.toBeNull();
    expect(await tickets().insert(row(branchId, 'A-1'))).toBeNull();
    expect(await tickets().openTicketClash(branchId, 'A-1', null)).toEqual({
      numberTaken: true,
      externalIdTaken: false,
    });
  });

  it('numbers a ticket and records its event in one statement, and says null for what it cannot write', async () => {
    const { branchId, venueId } = await newBranch();
    const event = () => ({ venueId, eventId: randomUUID(), traceparent: null });
    const { number: _number, token: _token, ...rest } = row(branchId, 'unused');
    const fields = {
      ...rest,
      get token() {
        return randomBytes(24).toString('base64url');
      },
    };
    const first = await tickets().insertNumbered({ ...fields, externalId: 'order-1' }, event());
    expect(first).toMatchObject({ number: '1', externalId: 'order-1', status: 'waiting' });
    // An open ticket holds the external id: nothing is written and the counter stays.
    expect(await tickets().insertNumbered({ ...fields, externalId: 'order-1' }, event())).toBeNull();
    expect(await tickets().insert(row(branchId, '2'))).not.toBeNull();
    // An open ticket holds the next number: the counter moves past it, nothing else is written.
    expect(await tickets().insertNumbered(fields, event())).toBeNull();
    expect((await tickets().insertNumbered(fields, event()))?.number).toBe('3');
    expect(await tickets().insertNumbered({ ...fields, branchId: 2 ** 40 }, event())).toBeNull();
    const events = await db.database.query(
      `select ticket_id, payload->'ticket'->>'number' as number from tickets.outbox where venue_id = $1 order by id`,
      [venueId],
    );
    expect(events.map((e) => e.number)).toEqual(['1', '3']);
    expect(events[0]).toMatchObject({ ticket_id: String(first!.id) });
  });

  it('writes a ticket and its outbox event together, or neither', async () => {
    const { branchId, venueId } = await newBranch();
    const failed = tickets().transaction(async (tx) => {
      const ticket = await tx.tickets.insert(row(branchId, '7'));
      await tx.outbox.recordEvent(venueId, 'ticket.created', ticket!);
      throw new Error('refused after the writes');
    });
    await expect(failed).rejects.toThrow('refused after the writes');
    const counts = await db.database.query(
      `select (select count(*) from tickets.tickets where branch_id = $1) as tickets,
              (select count(*) from tickets.outbox where venue_id = $2) as events`,
      [branchId, venueId],
    );
    expect(counts).toEqual([{ tickets: '0', events: '0' }]);
  });

  it('holds an Idempotency-Key for one transaction at a time, and remembers only what a transaction committed', async () => {
    const { branchId } = await newBranch();
    await tickets().transaction(async (tx) => {
      expect(await tx.tickets.lockIdempotencyKey(branchId, 'k')).toBe(true);
      // Another request's transaction does not get it while this one lives.
      await tickets().transaction(async (other) => {
        expect(await other.tickets.lockIdempotencyKey(branchId, 'k')).toBe(false);
        expect(await other.tickets.lockIdempotencyKey(branchId, 'other key')).toBe(true);
      });
    });
    await tickets()
      .transaction(async (tx) => {
        expect(await tx.tickets.lockIdempotencyKey(branchId, 'k')).toBe(true);
        const ticket = await tx.tickets.insert(row(branchId, '1'));
        await tx.tickets.rememberIdempotencyKey(
          branchId,
          'k',
          { requestHash: 'hash', ticketId: ticket!.id },
          24,
        );
        throw new Error('the request dies before its commit');
      })
      .catch(() => undefined);
    expect(await tickets().findIdempotencyKey(branchId, 'k')).toBeUndefined();

    const ticket = await tickets().transaction(async (tx) => {
      expect(await tx.tickets.lockIdempotencyKey(branchId, 'k')).toBe(true);
      const inserted = await tx.tickets.insert(row(branchId, '1'));
      await tx.tickets.rememberIdempotencyKey(
        branchId,
        'k',
        { requestHash: 'hash', ticketId: inserted!.id },
        24,
      );
      return inserted!;
    });
    expect(await tickets().findIdempotencyKey(branchId, 'k')).toEqual({
      requestHash: 'hash',
      ticketId: ticket.id,
    });
  });
});
