import 'reflect-metadata';
import { ForbiddenError, NotFoundError } from '../../../common/errors';
import { statementsOf, useSchemaDatabase } from '../../../test/support/database';
import { MembershipRepository } from './membership.repository';
import { Venue } from './venue.entity';
import { VenueRoles } from './venue-roles';
import { VenueService } from './venue.service';

describe('a person’s venues and roles on real Postgres', () => {
  const db = useSchemaDatabase('tickets');
  let nextUser = 7_000;

  async function newVenue(name: string): Promise<number> {
    return (await new VenueService(db.orm.em.fork()).create({ name, smsEnabled: true })).id;
  }

  it('reads every venue of a person with their role there in one statement, oldest venue first', async () => {
    const userId = (nextUser += 1);
    const first = await newVenue('Kebab Erbil');
    const second = await newVenue('Tea Basra');
    await newVenue('Not theirs');
    const members = new MembershipRepository(db.orm.em.fork());
    await members.add(second, userId, 'STAFF');
    await members.add(first, userId, 'OWNER');

    const em = db.orm.em.fork();
    let venues: Awaited<ReturnType<MembershipRepository['venuesOfUser']>> = [];
    const statements = await statementsOf(em, async () => {
      venues = await new MembershipRepository(em).venuesOfUser(userId);
    });
    expect(statements).toHaveLength(1);
    expect(venues.map(({ venue, role }) => [venue.id, venue.name, role])).toEqual([
      [first, 'Kebab Erbil', 'OWNER'],
      [second, 'Tea Basra', 'STAFF'],
    ]);
    // The same entities, with every column, as a look-up by id maps them.
    for (const { venue } of venues) {
      const found = await db.orm.em.fork().findOneOrFail(Venue, venue.id);
      expect(venue).toBeInstanceOf(Venue);
      expect({ ...venue }).toEqual({ ...found });
    }
    expect(await new MembershipRepository(db.orm.em.fork()).venuesOfUser((nextUser += 1))).toEqual([]);
  });

  it('answers the fields of one venue asking at once with one read, and a later question afresh', async () => {
    const userId = (nextUser += 1);
    const venueId = await newVenue('Grill Mosul');
    await new MembershipRepository(db.orm.em.fork()).add(venueId, userId, 'MANAGER');
    const em = db.orm.em.fork();
    const roles = new VenueRoles(em, userId, '127.0.0.1');

    let answers: unknown[] = [];
    const statements = await statementsOf(em, async () => {
      answers = await Promise.all([
        roles.roleAt(venueId),
        roles.require(venueId, 'read'),
        roles.require(venueId, 'manage'),
        roles.require(venueId, 'own').catch((error: unknown) => error),
      ]);
    });
    expect(statements).toHaveLength(1);
    expect(answers.slice(0, 3)).toEqual(['MANAGER', 'MANAGER', 'MANAGER']);
    expect(answers[3]).toBeInstanceOf(ForbiddenError);

    // A change made since is what the next question sees.
    await new MembershipRepository(em).add(venueId, userId, 'STAFF');
    await expect(roles.require(venueId, 'manage')).rejects.toBeInstanceOf(ForbiddenError);
    await em.execute('delete from tickets.venue_members where venue_id = ? and user_id = ?', [
      venueId,
      userId,
    ]);
    await expect(roles.require(venueId, 'read')).rejects.toBeInstanceOf(NotFoundError);
    expect(await roles.roleAt(venueId)).toBeNull();
  });
});
