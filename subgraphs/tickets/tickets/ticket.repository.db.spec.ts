import 'reflect-metadata';
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

  it('holds an Idempotency-Key for the first claim until it is completed or released', async () => {
    const { branchId } = await newBranch();
    const terms = { keepHours: 24, abandonedAfterSeconds: 60 };
    expect(await tickets().claimIdempotencyKey(branchId, 'k', 'hash', terms)).toBe(true);
    expect(await tickets().claimIdempotencyKey(branchId, 'k', 'hash', terms)).toBe(false);
    expect(await tickets().findIdempotencyKey(branchId, 'k')).toEqual({
      requestHash: 'hash',
      ticketId: null,
      completed: false,
    });
    await tickets().releaseIdempotencyKey(branchId, 'k');
    expect(await tickets().findIdempotencyKey(branchId, 'k')).toBeUndefined();

    expect(await tickets().claimIdempotencyKey(branchId, 'k', 'hash', terms)).toBe(true);
    const ticket = await tickets().insert(row(branchId, '1'));
    await tickets().completeIdempotencyKey(branchId, 'k', ticket!.id);
    await tickets().releaseIdempotencyKey(branchId, 'k');
    expect(await tickets().findIdempotencyKey(branchId, 'k')).toEqual({
      requestHash: 'hash',
      ticketId: ticket!.id,
      completed: true,
    });
  });
});
