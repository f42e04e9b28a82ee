import type { TestDatabase } from './database';
import { bearer, graphData, signUpPerson, type SignedUp } from './graph';

/** A venue with one branch, and a person of each role the graph's venue rules tell apart. */
export interface VenueWithPeople {
  venueId: string;
  branchId: string;
  owner: SignedUp;
  manager: SignedUp;
  staff: SignedUp;
  /** Signed in, of no role at this venue. */
  stranger: SignedUp;
}

/**
 * People and venues made through the graph as the panel makes them, for tests that ask who may
 * read or change what; each test file passes its own email prefix so addresses never collide.
 */
export function venuePeople(gatewayUrl: () => string, database: () => TestDatabase, emailPrefix: string) {
  let people = 0;
  const person = (): Promise<SignedUp> => {
    people += 1;
    return signUpPerson(gatewayUrl(), {
      email: `${emailPrefix}${people}@example.test`,
      name: `Person ${people}`,
    });
  };

  /** A venue of `owner`'s with one branch, Counter. */
  const venueWithBranch = async (
    owner: SignedUp,
    venue: { name: string; language: 'ar' | 'en' } = { name: 'Erbil Falafel', language: 'en' },
  ): Promise<{ venueId: string; branchId: string }> => {
    const { createVenue } = await graphData<{ createVenue: { id: string } }>(
      gatewayUrl(),
      'mutation ($i: CreateVenueInput!) { createVenue(input: $i) { id } }',
      { i: { ...venue, timezone: 'Asia/Baghdad' } },
      bearer(owner.token),
    );
    const { createBranch } = await graphData<{ createBranch: { id: string } }>(
      gatewayUrl(),
      'mutation ($i: CreateBranchInput!) { createBranch(input: $i) { id } }',
      { i: { venueId: createVenue.id, name: 'Counter' } },
      bearer(owner.token),
    );
    return { venueId: createVenue.id, branchId: createBranch.id };
  };

  /** A new venue with an owner, a manager, a staff member and a stranger. */
  const venueWithPeople = async (venue?: {
    name: string;
    language: 'ar' | 'en';
  }): Promise<VenueWithPeople> => {
    const owner = await person();
    const [manager, staff, stranger] = [await person(), await person(), await person()];
    const { venueId, branchId } = await venueWithBranch(owner, venue);
    await database().query(
      `insert into tickets.venue_members (venue_id, user_id, role) values ($1, $2, 'MANAGER'), ($1, $3, 'STAFF')`,
      [venueId, manager.id, staff.id],
    );
    return { venueId, branchId, owner, manager, staff, stranger };
  };

  return { person, venueWithBranch, venueWithPeople };
}
