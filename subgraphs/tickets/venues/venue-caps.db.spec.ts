import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { ValidationError } from '../../../common/errors';
import { useSchemaDatabase } from '../../../test/support/database';
import { claimVenueRoom, VENUE_CAPS } from './venue-caps';
import { InvitationRepository, MembershipRepository } from './membership.repository';
import { VenueService } from './venue.service';

describe('a venue’s caps on branches and people, on real Postgres', () => {
  const db = useSchemaDatabase('tickets');
  let nextUser = 9_000;

  const count = async (sql: string, params: unknown[]): Promise<number> => {
    const [row] = await db.orm.em.fork().execute<{ n: string }[]>(sql, params);
    return Number(row?.n ?? 0);
  };

  async function venueWithOwner(): Promise<{ venueId: number; ownerId: number }> {
    const ownerId = (nextUser += 1);
    const venue = await new VenueService(db.orm.em.fork()).create({ name: 'Falafel Najaf' });
    await new MembershipRepository(db.orm.em.fork()).add(venue.id, ownerId, 'OWNER');
    return { venueId: venue.id, ownerId };
  }

  it(`refuses the branch past ${VENUE_CAPS.branches} on venueId, naming the cap, and writes nothing`, async () => {
    const { venueId } = await venueWithOwner();
    await db.database.query(
      `insert into tickets.branches (venue_id, name) select $1, 'Counter ' || i from generate_series(1, $2::int) as i`,
      [venueId, VENUE_CAPS.branches - 1],
    );
    const last = await new VenueService(db.orm.em.fork()).createBranch(venueId, 'The last one');
    expect(last.venueId).toBe(venueId);

    const refused = await new VenueService(db.orm.em.fork())
      .createBranch(venueId, 'One too many')
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ValidationError);
    expect((refused as ValidationError).fieldErrors).toEqual({
      venueId: [`This venue has ${VENUE_CAPS.branches} branches, the most a venue may have.`],
    });
    expect((refused as ValidationError).extensions.code).toBe('BAD_USER_INPUT');
    expect(await count('select count(*) as n from tickets.branches where venue_id = ?', [venueId])).toBe(
      VENUE_CAPS.branches,
    );
  });

  it('lets 20 parallel creates of one venue past its cap only as far as the cap, on separate connections', async () => {
    const { venueId } = await venueWithOwner();
    const room = 3;
    await db.database.query(
      `insert into tickets.branches (venue_id, name) select $1, 'Counter ' || i from generate_series(1, $2::int) as i`,
      [venueId, VENUE_CAPS.branches - room],
    );
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        new VenueService(db.orm.em.fork()).createBranch(venueId, `Race ${i}`),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(room);
    for (const result of results) {
      if (result.status === 'rejected') expect(result.reason).toBeInstanceOf(ValidationError);
    }
    expect(await count('select count(*) as n from tickets.branches where venue_id = ?', [venueId])).toBe(
      VENUE_CAPS.branches,
    );
  });

  it(`counts members and open invitations together against ${VENUE_CAPS.members}, not used or expired ones`, async () => {
    const { venueId } = await venueWithOwner();
    await db.database.query(
      `insert into tickets.venue_members (venue_id, user_id, role)
       select $1, 100000 + i, 'STAFF' from generate_series(1, $2::int) as i`,
      [venueId, VENUE_CAPS.members - 2],
    );
    const invite = (email: string) =>
      new InvitationRepository(db.orm.em.fork()).create({
        venueId,
        email,
        role: 'STAFF',
        tokenHash: randomBytes(32),
        invitedBy: 1,
        days: 7,
      });
    await invite('open@example.test');
    await invite('late@example.test');
    await invite('used@example.test');
    await db.database.query(
      `update tickets.venue_invitations set expires_at = now() - interval '1 second' where email = 'late@example.test'`,
    );
    await db.database.query(
      `update tickets.venue_invitations set accepted_at = now() where email = 'used@example.test'`,
    );
    // The owner, the members and the one open invitation.
    expect(await new InvitationRepository(db.orm.em.fork()).placesHeld(venueId)).toBe(VENUE_CAPS.members);
    const claim = () =>
      db.orm.em
        .fork()
        .transactional((em) =>
          claimVenueRoom(em, venueId, 'members', 'venueId', () =>
            new InvitationRepository(em).placesHeld(venueId),
          ),
        );
    const refused = await claim().catch((error: unknown) => error);
    expect((refused as ValidationError).fieldErrors).toEqual({
      venueId: [
        `This venue has ${VENUE_CAPS.members} members and pending invitations, the most a venue may have: remove a member, or wait for an invitation to expire.`,
      ],
    });
    await db.database.query(
      `update tickets.venue_invitations set expires_at = now() where email = 'open@example.test'`,
    );
    await expect(claim()).resolves.toBeUndefined();
  });
});
