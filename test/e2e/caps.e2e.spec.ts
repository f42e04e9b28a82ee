import { createHash } from 'node:crypto';
import { VENUE_CAPS, VENUES_PER_PERSON } from '../../subgraphs/tickets/venues';
import { SESSIONS_PER_PERSON } from '../../subgraphs/identity/identity.service';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { askGraph, bearer, graphData, type GraphReply } from '../support/graph';
import { startPlatform, type Platform } from '../support/platform';
import { venuePeople } from '../support/venue-people';

const CREATE_BRANCH = 'mutation ($i: CreateBranchInput!) { createBranch(input: $i) { id } }';
const BRANCHES_CAP = `This venue has ${VENUE_CAPS.branches} branches, the most a venue may have.`;

const hashOf = (token: string) => createHash('sha256').update(token).digest();

describe('what a caller may make of a venue and of sessions stays within its cap, over the gateway', () => {
  let database: TestDatabase;
  let platform: Platform;

  beforeAll(async () => {
    database = await createTestDatabase();
    platform = await startPlatform(database, { PUBLIC_WRITE_RATE_LIMIT: '1000', SESSION_RATE_LIMIT: '1000' });
  });

  afterAll(async () => {
    await platform?.stop();
    await database.drop();
  });

  const { person, venueWithBranch } = venuePeople(
    () => platform.gatewayUrl,
    () => database,
    'caps-',
  );
  const graph = (query: string, variables: Record<string, unknown>, headers: Record<string, string>) =>
    askGraph(platform.gatewayUrl, query, variables, headers);

  /** Branches a venue already has, as earlier requests left them. */
  const branchesUpTo = async (venueId: string, total: number) => {
    await database.query(
      `insert into tickets.branches (venue_id, name)
       select $1, 'Earlier ' || i from generate_series(1, $2::int - (select count(*) from tickets.branches where venue_id = $1)::int) as i`,
      [venueId, total],
    );
  };
  const branchCount = async (venueId: string) =>
    Number(
      (await database.query('select count(*) as n from tickets.branches where venue_id = $1', [venueId]))[0]!
        .n,
    );
  const auditedBranches = async (venueId: string) =>
    Number(
      (
        await database.query(
          `select count(*) as n from tickets.audit_events where venue_id = $1 and action = 'branch.created'`,
          [venueId],
        )
      )[0]!.n,
    );

  it(`refuses the branch past ${VENUE_CAPS.branches} as BAD_USER_INPUT on venueId, among aliased creates of one operation`, async () => {
    const owner = await person();
    const { venueId } = await venueWithBranch(owner);
    await branchesUpTo(venueId, VENUE_CAPS.branches - 2);
    const before = await auditedBranches(venueId);

    const aliased = await graph(
      `mutation ($v: ID!) { ${[1, 2, 3, 4].map((i) => `b${i}: createBranch(input: { venueId: $v, name: "New ${i}" }) { id }`).join(' ')} }`,
      { v: venueId },
      { ...bearer(owner.token), 'x-message-ids': '1' },
    );
    // A mutation's fields run one after another: the first two take the last places, the third is
    // refused, and its refusal (the field is non-null) ends the operation before the fourth.
    expect(aliased.data).toBeNull();
    expect(aliased.errors).toEqual([
      {
        message: BRANCHES_CAP,
        path: ['b3'],
        extensions: {
          code: 'BAD_USER_INPUT',
          serviceName: 'tickets',
          errors: { venueId: [BRANCHES_CAP] },
          // The sentence's id and the cap, for a panel that says it in Arabic.
          messages: {
            message: [{ id: 'venue.branches_cap', params: { max: VENUE_CAPS.branches } }],
            errors: { venueId: [{ id: 'venue.branches_cap', params: { max: VENUE_CAPS.branches } }] },
          },
        },
      },
    ]);
    expect(await branchCount(venueId)).toBe(VENUE_CAPS.branches);
    expect(await auditedBranches(venueId)).toBe(before + 2);
  });

  it('lets 12 parallel creates of one venue take only the places left, on every request', async () => {
    const owner = await person();
    const { venueId } = await venueWithBranch(owner);
    await branchesUpTo(venueId, VENUE_CAPS.branches - 3);
    const before = await auditedBranches(venueId);
    const replies = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        graph(CREATE_BRANCH, { i: { venueId, name: `Race ${i}` } }, bearer(owner.token)),
      ),
    );
    expect(replies.filter((reply) => reply.errors === undefined)).toHaveLength(3);
    for (const reply of replies.filter((r) => r.errors !== undefined)) {
      expect(reply.errors?.[0]).toMatchObject({
        message: BRANCHES_CAP,
        extensions: { code: 'BAD_USER_INPUT' },
      });
    }
    expect(await branchCount(venueId)).toBe(VENUE_CAPS.branches);
    expect(await auditedBranches(venueId)).toBe(before + 3);
  });

  it(`refuses the invitation past ${VENUE_CAPS.members} members and pending invitations, keeping and auditing nothing of it`, async () => {
    const owner = await person();
    const { venueId } = await venueWithBranch(owner);
    await database.query(
      `insert into tickets.venue_members (venue_id, user_id, role)
       select $1, 500000 + i, 'STAFF' from generate_series(1, $2::int) as i`,
      [venueId, VENUE_CAPS.members - 3],
    );
    const invite = (email: string) =>
      graph(
        'mutation ($i: InviteMemberInput!) { inviteMember(input: $i) }',
        { i: { venueId, email, role: 'STAFF' } },
        bearer(owner.token),
      );
    const replies: GraphReply[] = [];
    for (const email of ['one@example.test', 'two@example.test', 'three@example.test'])
      replies.push(await invite(email));
    expect(replies.map((reply) => reply.data)).toEqual([
      { inviteMember: true },
      { inviteMember: true },
      null,
    ]);
    expect(replies[2]?.errors?.[0]).toMatchObject({
      message: `This venue has ${VENUE_CAPS.members} members and pending invitations, the most a venue may have: remove a member, or wait for an invitation to expire.`,
      extensions: { code: 'BAD_USER_INPUT', errors: { venueId: [expect.any(String)] } },
    });
    const stored = await database.query(
      `select email from tickets.venue_invitations where venue_id = $1 order by id`,
      [venueId],
    );
    expect(stored.map((row) => row.email)).toEqual(['one@example.test', 'two@example.test']);
    const audited = await database.query(
      `select target from tickets.audit_events where venue_id = $1 and action = 'member.invited' order by id`,
      [venueId],
    );
    expect(audited.map((row) => row.target)).toEqual(['email:one@example.test', 'email:two@example.test']);
  });

  it(`lets a person belong to ${VENUES_PER_PERSON} venues, made in parallel or joined, and refuses the next with CONFLICT`, async () => {
    const founder = await person();
    const create = (i: number) =>
      graph(
        'mutation ($i: CreateVenueInput!) { createVenue(input: $i) { id } }',
        { i: { name: `Grill ${i}`, language: 'en', timezone: 'Asia/Baghdad' } },
        bearer(founder.token),
      );
    const replies = await Promise.all(Array.from({ length: VENUES_PER_PERSON + 3 }, (_, i) => create(i)));
    const made = replies.filter((reply) => reply.data !== null);
    expect(made).toHaveLength(VENUES_PER_PERSON);
    const refusal = `You belong to ${VENUES_PER_PERSON} venues, the most one person may: leave one to create or join another.`;
    for (const reply of replies.filter((r) => r.data === null)) {
      expect(reply.errors?.map((error) => [error.extensions?.code, error.message])).toEqual([
        ['CONFLICT', refusal],
      ]);
    }
    const myVenues = await graph('{ myVenues { id } }', {}, bearer(founder.token));
    expect((myVenues.data?.myVenues as unknown[]).length).toBe(VENUES_PER_PERSON);

    // An invitation to an eleventh is refused on acceptance, and joins nothing.
    const other = await person();
    const { venueId } = await venueWithBranch(other);
    const token = `inv_${createHash('sha256').update(founder.email).digest('hex')}`;
    await database.query(
      `insert into tickets.venue_invitations (venue_id, email, role, token_hash, invited_by_user_id, expires_at)
       values ($1, $2, 'STAFF', $3, $4, now() + interval '1 day')`,
      [venueId, founder.email, hashOf(token), other.id],
    );
    const accepted = await graph(
      'mutation ($t: String!) { acceptInvitation(token: $t) { id } }',
      { t: token },
      bearer(founder.token),
    );
    expect(accepted.errors?.map((error) => [error.extensions?.code, error.message])).toEqual([
      ['CONFLICT', refusal],
    ]);
    const joined = await database.query(
      'select count(*) as n from tickets.venue_members where venue_id = $1 and user_id = $2',
      [venueId, founder.id],
    );
    expect(Number(joined[0]!.n)).toBe(0);
  });

  describe(`a person’s sessions, at most ${SESSIONS_PER_PERSON}`, () => {
    const SIGN_IN = 'mutation ($i: SignInInput!) { signIn(input: $i) { token } }';
    const signIn = async (email: string, device: string) =>
      (
        await graphData<{ signIn: { token: string } }>(
          platform.gatewayUrl,
          SIGN_IN,
          { i: { email, password: 'a long test passphrase', device } },
          {},
        )
      ).signIn.token;
    const viewer = async (token: string) =>
      (await graph('{ viewer { id sessions { device } } }', {}, bearer(token))).data?.viewer as {
        id: string;
        sessions: { device: string }[];
      } | null;

    it('ends the least recently used one at a sign-in past them, at once on every door, and says so in the person’s log', async () => {
      const someone = await person();
      const tokens = [someone.token];
      for (let i = 1; i < SESSIONS_PER_PERSON; i += 1)
        tokens.push(await signIn(someone.email, `Device ${i}`));
      // The first session is the newest in use; the fifth was used least recently, half a minute
      // ago (so reading it now does not move its last sighting); the rest in between.
      await database.query(
        `update identity.sessions set last_seen_at = now() - make_interval(secs => 20 + id % 7)
          where user_id = $1`,
        [someone.id],
      );
      await database.query(`update identity.sessions set last_seen_at = now() where token_hash = $1`, [
        hashOf(tokens[0]!),
      ]);
      const leastRecent = tokens[4]!;
      await database.query(
        `update identity.sessions set last_seen_at = now() - interval '30 seconds' where token_hash = $1`,
        [hashOf(leastRecent)],
      );
      // The gateway now holds the least recent session's look-up for a few seconds.
      expect((await viewer(leastRecent))?.id).toBe(someone.id);

      const newest = await signIn(someone.email, 'A new phone');
      expect(await viewer(leastRecent)).toBeNull();
      const sessions = (await viewer(newest))!.sessions;
      expect(sessions).toHaveLength(SESSIONS_PER_PERSON);
      expect(sessions.map((session) => session.device)).not.toContain('Device 4');
      expect((await viewer(tokens[0]!))?.id).toBe(someone.id);

      const log = await graphData<{
        viewer: {
          auditLog: {
            items: { action: string; target: string; details: { name: string; value: string }[] }[];
          };
        };
      }>(
        platform.gatewayUrl,
        '{ viewer { auditLog(first: 1) { items { action target details { name value } } } } }',
        {},
        bearer(newest),
      );
      expect(log.viewer.auditLog.items[0]).toMatchObject({
        action: 'session.replaced',
        target: expect.stringMatching(/^session:\d+$/) as unknown,
        details: [{ name: 'device', value: 'Device 4' }],
      });
    });

    it('keeps exactly the cap after parallel sign-ins past it', async () => {
      const someone = await person();
      await Promise.all(
        Array.from({ length: SESSIONS_PER_PERSON + 8 }, (_, i) => signIn(someone.email, `Tablet ${i}`)),
      );
      const [live] = await database.query(
        `select count(*)::int as n from identity.sessions where user_id = $1 and revoked_at is null`,
        [someone.id],
      );
      expect(live?.n).toBe(SESSIONS_PER_PERSON);
    });
  });
});
