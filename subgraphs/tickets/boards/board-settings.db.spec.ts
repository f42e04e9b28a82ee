import 'reflect-metadata';
import { type ValidationError } from '../../../common/errors';
import { useSchemaDatabase } from '../../../test/support/database';
import { rejection } from '../../../test/support/rejection';
import { MembershipRepository, VenueRoles, VenueService } from '../venues';
import { BoardRepository } from './board.repository';
import { BoardService } from './board.service';

describe('a board device’s offline settings (number prefix, calls when offline), on real Postgres', () => {
  const db = useSchemaDatabase('tickets');
  let nextUser = 21_000;

  /** A venue with two branches, and its owner's BoardService as a request would make it. */
  async function venue(): Promise<{
    venueId: number;
    first: number;
    second: number;
    boards: () => BoardService;
  }> {
    const ownerId = (nextUser += 1);
    const venues = new VenueService(db.orm.em.fork());
    const { id: venueId } = await venues.create({ name: 'Kahwa Najaf' });
    await new MembershipRepository(db.orm.em.fork()).add(venueId, ownerId, 'OWNER');
    const first = (await venues.createBranch(venueId, 'Hall')).id;
    const second = (await venues.createBranch(venueId, 'Garden')).id;
    const boards = () => {
      const em = db.orm.em.fork();
      return new BoardService(new BoardRepository(em), new VenueRoles(em, ownerId, '127.0.0.1'), {
        publicBaseUrl: 'https://q.example.test',
        announce: () => Promise.resolve(),
        clientAddress: '127.0.0.1',
      });
    };
    return { venueId, first, second, boards };
  }

  const prefixError = (error: unknown) => (error as ValidationError).fieldErrors;

  it('creates a device with no prefix and no offline calls by default, or with the settings given', async () => {
    const { first, boards } = await venue();
    const plain = (await boards().createBoardDevice({ branchId: String(first), name: 'Plain' })).device;
    expect([plain.numberPrefix, plain.callsWhenOffline]).toEqual([null, false]);
    const set = (
      await boards().createBoardDevice({
        branchId: String(first),
        name: 'Kitchen',
        numberPrefix: 'K',
        callsWhenOffline: true,
      })
    ).device;
    expect([set.numberPrefix, set.callsWhenOffline]).toEqual(['K', true]);
  });

  it('refuses a prefix that is not 1 to 3 capital Latin letters on numberPrefix', async () => {
    const { first, boards } = await venue();
    for (const numberPrefix of ['a', 'ABCD', 'A1', 'ب', ' A', 'Ä']) {
      const refused = await rejection(
        boards().createBoardDevice({ branchId: String(first), name: 'T', numberPrefix }),
      );
      expect(prefixError(refused)).toEqual({
        numberPrefix: [
          'The number prefix must be 1 to 3 capital Latin letters (A to Z), or empty to clear it.',
        ],
      });
    }
  });

  it('keeps a prefix to one device of a branch not revoked, on create and update, and audits each change', async () => {
    const { venueId, first, second, boards } = await venue();
    const a = (await boards().createBoardDevice({ branchId: String(first), name: 'A', numberPrefix: 'AB' }))
      .device;
    const b = (await boards().createBoardDevice({ branchId: String(first), name: 'B' })).device;
    const taken = {
      numberPrefix: ['The number prefix AB is already used by another board device of this branch.'],
    };
    expect(
      prefixError(
        await rejection(
          boards().createBoardDevice({ branchId: String(first), name: 'C', numberPrefix: 'AB' }),
        ),
      ),
    ).toEqual(taken);
    expect(
      prefixError(await rejection(boards().updateBoardDevice({ id: String(b.id), numberPrefix: 'AB' }))),
    ).toEqual(taken);
    // Another branch may use it; the device itself may keep it.
    await boards().createBoardDevice({ branchId: String(second), name: 'D', numberPrefix: 'AB' });
    expect(
      (await boards().updateBoardDevice({ id: String(a.id), numberPrefix: 'AB', name: 'A2' })).name,
    ).toBe('A2');
    // Cleared with the empty string, or freed by revoking: then another may take it.
    const cleared = await boards().updateBoardDevice({
      id: String(a.id),
      numberPrefix: '',
      callsWhenOffline: true,
    });
    expect([cleared.numberPrefix, cleared.callsWhenOffline, cleared.name]).toEqual([null, true, 'A2']);
    expect((await boards().updateBoardDevice({ id: String(b.id), numberPrefix: 'AB' })).numberPrefix).toBe(
      'AB',
    );
    await boards().revokeBoardDevice(String(b.id));
    expect((await boards().updateBoardDevice({ id: String(a.id), numberPrefix: 'AB' })).numberPrefix).toBe(
      'AB',
    );
    const [audited] = await db.orm.em
      .fork()
      .execute<{ n: string }[]>(
        `select count(*) as n from tickets.audit_events where venue_id = ? and action = 'board_device.updated'`,
        [venueId],
      );
    expect(Number(audited!.n)).toBe(4);
  });

  it('holds a prefix to one device in Postgres too, whatever races past the check', async () => {
    const { first, boards } = await venue();
    const made = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        boards().createBoardDevice({ branchId: String(first), name: `T${i}` }),
      ),
    );
    const outcomes = await Promise.allSettled(
      made.map(({ device }) => boards().updateBoardDevice({ id: String(device.id), numberPrefix: 'Z' })),
    );
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    for (const outcome of outcomes) {
      if (outcome.status === 'rejected') expect(prefixError(outcome.reason)).toHaveProperty('numberPrefix');
    }
  });
});
