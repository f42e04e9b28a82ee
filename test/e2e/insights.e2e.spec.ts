import { createTestDatabase, type TestDatabase } from '../support/database';
import { askGraph, bearer, graphData } from '../support/graph';
import { newBranchKey, startPlatform, type Platform } from '../support/platform';
import { venuePeople } from '../support/venue-people';

const INSIGHTS = `query ($id: ID!, $from: DateTimeISO!, $to: DateTimeISO!, $bucket: InsightBucketSize!) {
  branch(id: $id) { id name insights(from: $from, to: $to, bucket: $bucket) {
    totals { start created ready collected cancelled prepP50Seconds prepP90Seconds pickupP50Seconds
             linked rings smsSent feedbackCount feedbackAverage }
    buckets { start created ready collected cancelled prepP50Seconds prepP90Seconds pickupP50Seconds
              linked rings smsSent feedbackCount feedbackAverage }
  } }
}`;
const BRANCH = `query ($id: ID!) { branch(id: $id) { id name venue { id } } }`;

describe('venue insights on the graph: who may read a branch and its numbers', () => {
  let database: TestDatabase;
  let platform: Platform;

  beforeAll(async () => {
    database = await createTestDatabase();
    platform = await startPlatform(database, { PUBLIC_WRITE_RATE_LIMIT: '1000' });
  });

  afterAll(async () => {
    await platform?.stop();
    await database?.drop();
  });

  const graph = (query: string, variables: Record<string, unknown>, headers: Record<string, string>) =>
    askGraph(platform.gatewayUrl, query, variables, headers);
  const data = <T>(query: string, variables: Record<string, unknown>, headers: Record<string, string>) =>
    graphData<T>(platform.gatewayUrl, query, variables, headers);
  const codeOf = async (query: string, variables: Record<string, unknown>, headers: Record<string, string>) =>
    (await graph(query, variables, headers)).errors?.[0]?.extensions?.code;

  const people = venuePeople(
    () => platform.gatewayUrl,
    () => database,
    'insights',
  );
  const { person, venueWithBranch } = people;

  it('answers the branch to its members, keys and board devices, and its numbers to owners and managers only', async () => {
    const { owner, manager, staff, stranger, venueId, branchId } = await people.venueWithPeople();
    const other = await venueWithBranch(await person());
    const at = { ...bearer(owner.token), 'x-branch-id': branchId };
    // Three tickets: one readied and collected, one readied, one cancelled.
    const ids: string[] = [];
    for (const name of ['Huda', 'Omar', 'Sara']) {
      const { createTicket } = await data<{ createTicket: { ticket: { id: string } } }>(
        'mutation ($i: CreateTicketInput!) { createTicket(input: $i) { ticket { id } } }',
        { i: { customerName: name } },
        at,
      );
      ids.push(createTicket.ticket.id);
    }
    for (const [mutation, id] of [
      ['markTicketReady', ids[0]],
      ['markTicketReady', ids[1]],
      ['markTicketCollected', ids[0]],
      ['cancelTicket', ids[2]],
    ] as const) {
      await data(`mutation ($id: ID) { ${mutation}(id: $id) { status } }`, { id }, at);
    }

    const range = {
      id: branchId,
      from: new Date(Date.now() - 86_400_000).toISOString(),
      to: new Date(Date.now() + 3_600_000).toISOString(),
      bucket: 'HOUR',
    };
    for (const reader of [owner, manager]) {
      const { branch } = await data<{
        branch: { insights: { totals: Record<string, unknown>; buckets: unknown[] } };
      }>(INSIGHTS, range, bearer(reader.token));
      expect(branch.insights.totals).toMatchObject({ created: 3, ready: 2, collected: 1, cancelled: 1 });
      expect(branch.insights.totals.prepP50Seconds).toEqual(expect.any(Number));
      expect(branch.insights.buckets.length).toBeGreaterThanOrEqual(25);
    }
    const { venue } = await data<{ venue: { insights: { totals: { created: number } } } }>(
      `query ($id: ID!, $from: DateTimeISO!, $to: DateTimeISO!) {
         venue(id: $id) { insights(from: $from, to: $to, bucket: DAY) { totals { created } } } }`,
      { id: venueId, from: range.from, to: range.to },
      bearer(owner.token),
    );
    expect(venue.insights.totals.created).toBe(3);

    // The branch itself: any member, a key or board device of that branch; no one else.
    await data(
      'mutation ($i: ChangePlanInput!) { changePlan(input: $i) { key } }',
      { i: { venueId, plan: 'growth' } },
      bearer(owner.token),
    );
    const { key } = await newBranchKey(platform.config, Number(branchId));
    const { createBoardDevice } = await data<{ createBoardDevice: { code: string } }>(
      'mutation ($i: CreateBoardDeviceInput!) { createBoardDevice(input: $i) { code } }',
      { i: { branchId, name: 'Tablet' } },
      bearer(owner.token),
    );
    const { pairBoardDevice } = await data<{ pairBoardDevice: { secret: string } }>(
      'mutation ($code: String!) { pairBoardDevice(code: $code) { secret } }',
      { code: createBoardDevice.code },
      {},
    );
    const { createDisplay } = await data<{ createDisplay: { url: string } }>(
      'mutation ($i: CreateDisplayInput!) { createDisplay(input: $i) { url } }',
      { i: { branchId, name: 'Wall', language: 'en' } },
      bearer(owner.token),
    );
    const display = /dsp_[A-Za-z0-9_-]+/.exec(createDisplay.url)![0];
    for (const headers of [
      bearer(owner.token),
      bearer(staff.token),
      bearer(key),
      bearer(pairBoardDevice.secret),
    ]) {
      const { branch } = await data<{ branch: { id: string; venue: { id: string } } }>(
        BRANCH,
        { id: branchId },
        headers,
      );
      expect(branch).toEqual({ id: branchId, name: 'Counter', venue: { id: venueId } });
    }
    expect(await codeOf(BRANCH, { id: branchId }, bearer(stranger.token))).toBe('NOT_FOUND');
    expect(await codeOf(BRANCH, { id: other.branchId }, bearer(key))).toBe('NOT_FOUND');
    expect(await codeOf(BRANCH, { id: other.branchId }, bearer(owner.token))).toBe('NOT_FOUND');
    expect(await codeOf(BRANCH, { id: 'nope' }, bearer(owner.token))).toBe('NOT_FOUND');
    expect(await codeOf(BRANCH, { id: branchId }, bearer(display))).toBe('UNAUTHENTICATED');
    expect(await codeOf(BRANCH, { id: branchId }, {})).toBe('UNAUTHENTICATED');

    // The numbers: staff are FORBIDDEN; a key or board device is not a signed-in owner.
    expect(await codeOf(INSIGHTS, range, bearer(staff.token))).toBe('FORBIDDEN');
    expect(await codeOf(INSIGHTS, range, bearer(key))).toBe('UNAUTHENTICATED');
    expect(await codeOf(INSIGHTS, range, bearer(pairBoardDevice.secret))).toBe('UNAUTHENTICATED');
  });

  it('lets the panel’s 30-day hourly query through the cost limit and names a range too long or backwards', async () => {
    const owner = await person();
    const { branchId } = await venueWithBranch(owner);
    const to = new Date();
    const month = {
      id: branchId,
      from: new Date(to.getTime() - 30 * 86_400_000).toISOString(),
      to: to.toISOString(),
    };
    const { branch } = await data<{ branch: { insights: { buckets: unknown[] } } }>(
      INSIGHTS,
      { ...month, bucket: 'HOUR' },
      bearer(owner.token),
    );
    expect(branch.insights.buckets.length).toBeGreaterThanOrEqual(720);
    const long = await graph(
      INSIGHTS,
      { ...month, from: new Date(to.getTime() - 60 * 86_400_000).toISOString(), bucket: 'HOUR' },
      bearer(owner.token),
    );
    expect(long.errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      errors: { to: [expect.any(String)] },
    });
    const backwards = await graph(INSIGHTS, { ...month, to: month.from, bucket: 'DAY' }, bearer(owner.token));
    expect(backwards.errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      errors: { to: ['to must be after from.'] },
    });
  });

  it('shows the live wait to whoever may read the branch and lets owners and managers set its alert, audit-logged', async () => {
    const { owner, manager, staff, stranger, venueId, branchId } = await people.venueWithPeople();
    const at = { ...bearer(owner.token), 'x-branch-id': branchId };
    const tokens: string[] = [];
    const ids: string[] = [];
    for (let i = 0; i < 8; i += 1) {
      const { createTicket } = await data<{ createTicket: { ticket: { id: string; token: string } } }>(
        'mutation ($i: CreateTicketInput!) { createTicket(input: $i) { ticket { id token } } }',
        { i: { customerName: `Guest ${i}` } },
        at,
      );
      ids.push(createTicket.ticket.id);
      tokens.push(createTicket.ticket.token);
    }
    // The rows say: five became ready 8 to 4 minutes ago, a minute apart, after 4, 6, 8, 10 and 12
    // minutes; three still wait, created 20, 15 and 10 minutes ago.
    await database.query(
      `update tickets.tickets set created_at = now() - make_interval(mins => 12 + n), ready_at = now() - make_interval(mins => 8 - n),
              status = 'ready'
         from (select unnest($1::bigint[]) as id, generate_series(0, 4) as n) t where tickets.id = t.id`,
      [ids.slice(0, 5)],
    );
    await database.query(
      `update tickets.tickets set created_at = now() - make_interval(mins => 20 - 5 * n)
         from (select unnest($1::bigint[]) as id, generate_series(0, 2) as n) t where tickets.id = t.id`,
      [ids.slice(5)],
    );

    const WAIT = `query ($id: ID!) { branch(id: $id) { wait {
      waiting oldestWaitingSince medianWaitSeconds readyLastHour alertMinutes alert } } }`;
    await data(
      'mutation ($i: ChangePlanInput!) { changePlan(input: $i) { key } }',
      { i: { venueId, plan: 'growth' } },
      bearer(owner.token),
    );
    const { key } = await newBranchKey(platform.config, Number(branchId));
    for (const headers of [bearer(owner.token), bearer(staff.token), bearer(manager.token), bearer(key)]) {
      const { branch } = await data<{ branch: { wait: Record<string, unknown> } }>(
        WAIT,
        { id: branchId },
        headers,
      );
      expect(branch.wait).toMatchObject({ waiting: 3, readyLastHour: 5, alertMinutes: 15, alert: true });
      expect(branch.wait.medianWaitSeconds).toBeCloseTo(8 * 60, 0);
      const oldest = Date.parse(branch.wait.oldestWaitingSince as string);
      expect(Math.abs(Date.now() - oldest - 20 * 60_000)).toBeLessThan(60_000);
    }
    expect(await codeOf(WAIT, { id: branchId }, bearer(stranger.token))).toBe('NOT_FOUND');

    const ALERT =
      'mutation ($i: SetVenueWaitAlertInput!) { setVenueWaitAlert(input: $i) { waitAlertMinutes } }';
    expect(await codeOf(ALERT, { i: { venueId, minutes: 30 } }, bearer(staff.token))).toBe('FORBIDDEN');
    expect(await codeOf(ALERT, { i: { venueId, minutes: 30 } }, bearer(stranger.token))).toBe('NOT_FOUND');
    expect(await codeOf(ALERT, { i: { venueId, minutes: 30 } }, bearer(key))).toBe('UNAUTHENTICATED');
    const zero = await graph(ALERT, { i: { venueId, minutes: 0 } }, bearer(manager.token));
    expect(zero.errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      errors: { minutes: ['The minutes field must be between 1 and 240.'] },
    });
    const set = await data<{ setVenueWaitAlert: { waitAlertMinutes: number } }>(
      ALERT,
      { i: { venueId, minutes: 30 } },
      bearer(manager.token),
    );
    expect(set.setVenueWaitAlert.waitAlertMinutes).toBe(30);
    const after = await data<{ branch: { wait: { alert: boolean; alertMinutes: number } } }>(
      WAIT,
      { id: branchId },
      bearer(staff.token),
    );
    expect(after.branch.wait).toEqual({ ...after.branch.wait, alertMinutes: 30, alert: false });
    const { venue } = await data<{
      venue: {
        auditLog: {
          items: { action: string; details: { name: string; value: string }[] }[];
        };
      };
    }>(
      'query ($id: ID!) { venue(id: $id) { auditLog(first: 5) { items { action details { name value } } } } }',
      { id: venueId },
      bearer(owner.token),
    );
    const [changed] = venue.auditLog.items;
    expect(changed?.action).toBe('wait_alert.changed');
    expect(Object.fromEntries(changed!.details.map((d) => [d.name, d.value]))).toMatchObject({
      minutes: '30',
      before: '15',
    });

    // The customer's estimate: from the five ready in the last two hours, while waiting only.
    const ESTIMATE = 'query ($t: String!) { ticketByToken(token: $t) { status createdAt estimatedReadyAt } }';
    const waiting = await data<{ ticketByToken: { createdAt: string; estimatedReadyAt: string | null } }>(
      ESTIMATE,
      { t: tokens[7] },
      {},
    );
    // Created 10 minutes ago with two ahead; median prep 8 minutes, a ticket ready each minute: a
    // turn of 8·1/9 minutes, so two turns from now beat created + 8 minutes.
    const estimate = Date.parse(waiting.ticketByToken.estimatedReadyAt!);
    expect(Math.abs(estimate - (Date.now() + (2 * 8 * 60_000) / 9))).toBeLessThan(5_000);
    const ready = await data<{ ticketByToken: { estimatedReadyAt: string | null } }>(
      ESTIMATE,
      { t: tokens[0] },
      {},
    );
    expect(ready.ticketByToken.estimatedReadyAt).toBeNull();
    await database.query(`update tickets.tickets set ready_at = now() - interval '3 hours' where id = $1`, [
      ids[0],
    ]);
    const fewer = await data<{ ticketByToken: { estimatedReadyAt: string | null } }>(
      ESTIMATE,
      { t: tokens[7] },
      {},
    );
    expect(fewer.ticketByToken.estimatedReadyAt).toBeNull();
  });
});
