import 'reflect-metadata';
import { ValidationError } from '../../../common/errors';
import { useSchemaDatabase } from '../../../test/support/database';
import { MembershipRepository, VENUE_CAPS, VenueRoles, VenueService } from '../venues';
import { BoardRepository, DISPLAY_TICKETS_MAX } from './board.repository';
import { BoardService } from './board.service';

describe('a venue’s caps on board devices and displays, on real Postgres', () => {
  const db = useSchemaDatabase('tickets');
  let nextUser = 11_000;

  const count = async (sql: string, params: unknown[]): Promise<number> => {
    const [row] = await db.orm.em.fork().execute<{ n: string }[]>(sql, params);
    return Number(row?.n ?? 0);
  };

  /** A venue with two branches, and its owner's BoardService as a request would make it. */
  async function venue(): Promise<{
    venueId: number;
    first: number;
    second: number;
    boards: () => BoardService;
  }> {
    const ownerId = (nextUser += 1);
    const venues = new VenueService(db.orm.em.fork());
    const { id: venueId } = await venues.create({ name: 'Shawarma Kut' });
    await new MembershipRepository(db.orm.em.fork()).add(venueId, ownerId, 'OWNER');
    const first = (await venues.createBranch(venueId, 'Hall')).id;
    const second = (await venues.createBranch(venueId, 'Terrace')).id;
    const boards = () => {
      const em = db.orm.em.fork();
      return new BoardService(new BoardRepository(em), new VenueRoles(em, ownerId, '127.0.0.1'), {
        publicBaseUrl: 'https://q.example.test',
        announce: () => Promise.reject(new Error('creating announces nothing')),
        clientAddress: '127.0.0.1',
      });
    };
    return { venueId, first, second, boards };
  }

  /** Board devices written as earlier requests left them: paired, or in another state. */
  const devices = (branchId: number, n: number, state: 'paired' | 'revoked' | 'expired code') =>
    db.database.query(
      `with made as (
         insert into tickets.api_keys (branch_id, name, scopes, prefix, key_hash, kind, paired_at, revoked_at)
         select $1, 'Tablet ' || i, '{tickets:read,tickets:write}', 'bd_' || i, sha256((random()::text || i)::bytea), 'board',
                case when $3 = 'expired code' then null else now() end,
                case when $3 = 'revoked' then now() end
           from generate_series(1, $2::int) as i
         returning id)
       insert into tickets.board_pairings (api_key_id, code_hash, expires_at, used_at)
       select id, sha256((random()::text || id)::bytea), now() - interval '1 minute', case when $3 = 'expired code' then null else now() end
         from made`,
      [branchId, n, state],
    );

  it(`refuses the board device past ${VENUE_CAPS.boardDevices} on branchId, counting every branch’s devices in use`, async () => {
    const { venueId, first, second, boards } = await venue();
    await devices(first, VENUE_CAPS.boardDevices - 1, 'paired');
    // Neither a revoked device nor one whose code ran out unpaired holds a place.
    await devices(second, 3, 'revoked');
    await devices(second, 2, 'expired code');
    const waiting = await boards().createBoardDevice({ branchId: String(second), name: 'Last tablet' });
    expect(waiting.device.pairedAt).toBeNull();
    const created = await count(
      `select count(*) as n from tickets.audit_events where venue_id = ? and action = 'board_device.created'`,
      [venueId],
    );

    const refused = await boards()
      .createBoardDevice({ branchId: String(first), name: 'One too many' })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ValidationError);
    expect((refused as ValidationError).fieldErrors).toEqual({
      branchId: [
        `This venue has ${VENUE_CAPS.boardDevices} board devices, the most a venue may have: revoke one it no longer uses first.`,
      ],
    });
    expect(await count(`select count(*) as n from tickets.api_keys where name = 'One too many'`, [])).toBe(0);
    expect(
      await count(
        `select count(*) as n from tickets.audit_events where venue_id = ? and action = 'board_device.created'`,
        [venueId],
      ),
    ).toBe(created);
    // The list holds what the cap counts, so it never outgrows the size it declares.
    const listed = await boards().boardDevicesOf(venueId);
    expect(listed).toHaveLength(VENUE_CAPS.boardDevices);
    expect(listed.at(-1)?.id).toBe(waiting.device.id);

    // A waiting code that runs out frees its place.
    await db.database.query(`update tickets.board_pairings set expires_at = now() where api_key_id = $1`, [
      waiting.device.id,
    ]);
    await expect(
      boards().createBoardDevice({ branchId: String(first), name: 'In its place' }),
    ).resolves.toMatchObject({ device: { name: 'In its place' } });
  });

  it('lets 12 parallel device creates take only the places left', async () => {
    const { first, boards } = await venue();
    await devices(first, VENUE_CAPS.boardDevices - 2, 'paired');
    const results = await Promise.allSettled(
      Array.from({ length: 12 }, (_, i) =>
        boards().createBoardDevice({ branchId: String(first), name: `Race ${i}` }),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(2);
    for (const result of results) {
      if (result.status === 'rejected') expect(result.reason).toBeInstanceOf(ValidationError);
    }
  });

  it(`refuses the display past ${VENUE_CAPS.displays} on branchId, not counting revoked ones, in parallel too`, async () => {
    const { venueId, first, second, boards } = await venue();
    const displays = (branchId: number, n: number, revoked: boolean) =>
      db.database.query(
        `insert into tickets.displays (branch_id, name, language, token_hash, revoked_at)
         select $1, 'Screen ' || i, 'ar', sha256((random()::text || i)::bytea), case when $3 then now() end
           from generate_series(1, $2::int) as i`,
        [branchId, n, revoked],
      );
    await displays(first, VENUE_CAPS.displays - 3, false);
    await displays(second, 4, true);
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) =>
        boards().createDisplay({ branchId: String(second), name: `Race ${i}` }),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
    const refused = results.find((r) => r.status === 'rejected');
    expect((refused as PromiseRejectedResult).reason).toBeInstanceOf(ValidationError);
    expect(((refused as PromiseRejectedResult).reason as ValidationError).fieldErrors).toEqual({
      branchId: [
        `This venue has ${VENUE_CAPS.displays} displays, the most a venue may have: revoke one it no longer uses first.`,
      ],
    });
    expect(
      await count(
        `select count(*) as n from tickets.audit_events where venue_id = ? and action = 'display.created'`,
        [venueId],
      ),
    ).toBe(3);
    const listed = await boards().displaysOf(venueId);
    expect(listed).toHaveLength(VENUE_CAPS.displays);
    expect(listed.every((display) => display.revokedAt === null)).toBe(true);
  });

  it(`gives a display at most ${DISPLAY_TICKETS_MAX} numbers, every ready one kept, oldest first`, async () => {
    const { first } = await venue();
    const tickets = (n: number, status: 'waiting' | 'ready') =>
      db.database.query(
        `insert into tickets.tickets (branch_id, number, token, status, created_at, ready_at)
         select $1, $3 || i, md5(random()::text || i), $2, now(), case when $2 = 'ready' then now() end
           from generate_series(1, $4::int) as i`,
        [first, status, status === 'ready' ? 'R' : 'W', n],
      );
    await tickets(DISPLAY_TICKETS_MAX + 50, 'waiting');
    await tickets(5, 'ready');
    const shown = await new BoardRepository(db.orm.em.fork()).displayTickets(first, 10);
    expect(shown).toHaveLength(DISPLAY_TICKETS_MAX);
    expect(shown.filter((ticket) => ticket.status === 'ready')).toHaveLength(5);
    expect(shown.map((ticket) => ticket.id)).toEqual(
      [...shown.map((ticket) => ticket.id)].sort((a, b) => a - b),
    );
    expect(shown[0]!.number).toBe('W1');
  });
});
