import 'reflect-metadata';
import { context, propagation, trace } from '@opentelemetry/api';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { currentTraceparent, inSpan } from '../../../common/trace-context';
import { useSchemaDatabase } from '../../../test/support/database';
import { newTicketRow, newVenueBranch } from '../../../test/support/ticket-rows';
import { TicketOutbox, TicketRepository } from '../tickets';
import { OutboxRepository, type OutboxRow } from './outbox.repository';

describe('OutboxRepository on real Postgres', () => {
  const db = useSchemaDatabase('tickets');

  const tickets = () => new TicketRepository(db.orm.em.fork());

  const newBranch = () => newVenueBranch(db.orm.em.fork());
  const row = newTicketRow;

  it('relays an outbox event once, its snapshot without the phone', async () => {
    const { branchId, venueId } = await newBranch();
    const ticket = await tickets().insert(row(branchId, '1'));
    await new TicketOutbox(db.orm.em.fork()).recordEvent(venueId, 'ticket.created', ticket!);
    await new OutboxRepository(db.orm.em.fork()).transaction(async ({ outbox }) => {
      const rows = (await outbox.claimUnrelayed(100)).filter((r) => Number(r.venue_id) === venueId);
      expect(rows.map((r) => r.event)).toEqual(['ticket.created']);
      expect(rows[0]?.payload.ticket.number).toBe('1');
      expect(JSON.stringify(rows[0]?.payload)).not.toContain('7701234567');
    });
    const again = await new OutboxRepository(db.orm.em.fork()).transaction(({ outbox }) =>
      outbox.claimUnrelayed(100),
    );
    expect(again.filter((r) => Number(r.venue_id) === venueId)).toEqual([]);
  });

  it('claims nothing of a pass that rolled back, and hands out for publication oldest first, released ones again', async () => {
    const { branchId, venueId } = await newBranch();
    const ticket = await tickets().insert(row(branchId, '1'));
    for (const event of ['ticket.created', 'ticket.ready', 'ticket.collected'] as const)
      await new TicketOutbox(db.orm.em.fork()).recordEvent(venueId, event, ticket!);
    const mine = (rows: OutboxRow[]) =>
      rows.filter((r) => Number(r.venue_id) === venueId).map((r) => r.event);
    const pass = <T>(work: (outbox: OutboxRepository) => Promise<T>) =>
      new OutboxRepository(db.orm.em.fork()).transaction(({ outbox }) => work(outbox));

    const failed = pass(async (outbox) => {
      expect(mine(await outbox.claimUnrelayed(100))).toHaveLength(3);
      throw new Error('the pass failed before its commit');
    });
    await expect(failed).rejects.toThrow('the pass failed before its commit');
    const published = await pass(async (outbox) => {
      expect(mine(await outbox.claimUnrelayed(100))).toEqual([
        'ticket.created',
        'ticket.ready',
        'ticket.collected',
      ]);
      // This pass's own rows are relayed now, so they are the ones to publish.
      const claimed = (await outbox.claimUnpublished(100)).filter((r) => Number(r.venue_id) === venueId);
      await outbox.release(claimed.slice(1));
      return claimed.map((r) => r.event);
    });
    expect(published).toEqual(['ticket.created', 'ticket.ready', 'ticket.collected']);
    expect(mine(await pass((outbox) => outbox.claimUnrelayed(100)))).toEqual([]);
    expect(mine(await pass((outbox) => outbox.claimUnpublished(100)))).toEqual([
      'ticket.ready',
      'ticket.collected',
    ]);
    expect(mine(await pass((outbox) => outbox.claimUnpublished(100)))).toEqual([]);
  });

  describe('with tracing on', () => {
    beforeAll(() => new NodeTracerProvider().register());
    afterAll(() => {
      trace.disable();
      context.disable();
      propagation.disable();
    });

    it('keeps the trace of the change that recorded an event, and none for an untraced change', async () => {
      const { branchId, venueId } = await newBranch();
      const ticket = await tickets().insert(row(branchId, '1'));
      const traced = await inSpan('createTicket', {}, async () => {
        await new TicketOutbox(db.orm.em.fork()).recordEvent(venueId, 'ticket.created', ticket!);
        return currentTraceparent();
      });
      await new TicketOutbox(db.orm.em.fork()).recordEvent(venueId, 'ticket.ready', ticket!);
      const rows = await new OutboxRepository(db.orm.em.fork()).transaction(({ outbox }) =>
        outbox.claimUnrelayed(100),
      );
      const mine = rows.filter((r) => Number(r.venue_id) === venueId);
      expect(traced).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
      expect(mine.map((r) => [r.event, r.traceparent])).toEqual([
        ['ticket.created', traced],
        ['ticket.ready', null],
      ]);
    });
  });
});
