import { createTestDatabase, type TestDatabase } from '../support/database';
import { askGraph, bearer, signUpPerson, type GraphReply, type SignedUp } from '../support/graph';
import { admin, startPlatform, type Platform } from '../support/platform';
import { LocalSmtpServer } from '../support/smtp-server';

describe('venues run by their people, over the graph', () => {
  let database: TestDatabase;
  let platform: Platform;
  let smtp: LocalSmtpServer;

  beforeAll(async () => {
    database = await createTestDatabase();
    smtp = await LocalSmtpServer.start();
    platform = await startPlatform(database, {
      PUBLIC_WRITE_RATE_LIMIT: '1000',
      MAIL_DRIVER: 'smtp',
      SMTP_URL: smtp.url,
    });
  });

  afterAll(async () => {
    await platform?.stop();
    await smtp?.stop();
    await database.drop();
  });

  const graph = (
    query: string,
    variables: Record<string, unknown> = {},
    token?: string,
    headers: Record<string, string> = {},
  ): Promise<GraphReply> => askGraph(platform.gatewayUrl, query, variables, { ...bearer(token), ...headers });

  async function data<T>(query: string, variables: Record<string, unknown>, token?: string): Promise<T> {
    const reply = await graph(query, variables, token);
    expect(reply.errors).toBeUndefined();
    return reply.data as T;
  }

  let people = 0;
  function person(chosen?: string): Promise<SignedUp> {
    people += 1;
    const email = chosen ?? `venue-person${people}@example.test`;
    return signUpPerson(platform.gatewayUrl, { email, name: `Person ${people}` });
  }

  async function rest(path: string, key: string, init: RequestInit = {}) {
    const response = await fetch(`${platform.restUrl}${path}`, {
      ...init,
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        accept: 'application/json',
      },
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  it('onboards a venue end to end: sign up, venue, growth plan, branch, key, a REST ticket, revoke, 401', async () => {
    const owner = await person();
    const { createVenue } = await data<{ createVenue: { id: string; viewerRole: string } }>(
      `mutation ($i: CreateVenueInput!) { createVenue(input: $i) { id name viewerRole } }`,
      { i: { name: 'Samarra Grill', language: 'ar', timezone: 'Asia/Baghdad' } },
      owner.token,
    );
    expect(createVenue.viewerRole).toBe('OWNER');
    const venueId = createVenue.id;
    const VENUE = `query ($id: ID!) { venue(id: $id) {
      name viewerRole smsEnabled plan { key }
      branches { id name }
      members { role user { id email name } }
      apiKeys { id name prefix scopes revokedAt lastUsedAt branch { id } createdBy { email } }
    } }`;
    const first = await data<{ venue: Record<string, unknown> }>(VENUE, { id: venueId }, owner.token);
    expect(first.venue).toMatchObject({
      name: 'Samarra Grill',
      plan: { key: 'starter' },
      branches: [],
      members: [{ role: 'OWNER', user: { id: owner.id, email: owner.email } }],
      apiKeys: [],
    });
    expect(await data(`{ myVenues { id } }`, {}, owner.token)).toEqual({ myVenues: [{ id: venueId }] });

    const changed = await data<{ changePlan: { key: string } }>(
      `mutation ($i: ChangePlanInput!) { changePlan(input: $i) { key } }`,
      { i: { venueId, plan: 'growth' } },
      owner.token,
    );
    expect(changed.changePlan.key).toBe('growth');
    const { createBranch } = await data<{ createBranch: { id: string } }>(
      `mutation ($i: CreateBranchInput!) { createBranch(input: $i) { id name } }`,
      { i: { venueId, name: 'Karrada' } },
      owner.token,
    );
    const { issueApiKey } = await data<{ issueApiKey: { secret: string; apiKey: { id: string } } }>(
      `mutation ($i: IssueApiKeyInput!) { issueApiKey(input: $i) { secret apiKey { id name scopes prefix createdBy { email } } } }`,
      { i: { branchId: createBranch.id, name: 'POS 1' } },
      owner.token,
    );
    expect(issueApiKey.secret).toMatch(/^tk_/);
    expect(issueApiKey.apiKey).toMatchObject({
      name: 'POS 1',
      scopes: ['tickets:read', 'tickets:write'],
      prefix: issueApiKey.secret.slice(0, 11),
      createdBy: { email: owner.email },
    });

    const created = await rest('/tickets', issueApiKey.secret, {
      method: 'POST',
      body: JSON.stringify({ customer_name: 'Huda', external_id: 'ORDER-1' }),
    });
    expect(created.status).toBe(201);

    const revoked = await data<{ revokeApiKey: { revokedAt: string | null } }>(
      `mutation ($id: ID!) { revokeApiKey(id: $id) { revokedAt } }`,
      { id: issueApiKey.apiKey.id },
      owner.token,
    );
    expect(revoked.revokeApiKey.revokedAt).not.toBeNull();
    expect((await rest('/tickets', issueApiKey.secret)).status).toBe(401);

    const later = await data<{ venue: { plan: { key: string }; apiKeys: { lastUsedAt: string | null }[] } }>(
      VENUE,
      { id: venueId },
      owner.token,
    );
    expect(later.venue.plan.key).toBe('growth');
    expect(later.venue.apiKeys[0]!.lastUsedAt).not.toBeNull();
    const AUDIT = `query ($id: ID!, $after: String) { venue(id: $id) { auditLog(first: 4, after: $after) {
      items { action target actor { type user { email } } details { name value } clientAddress }
      endCursor
    } } }`;
    type AuditPage = {
      venue: {
        auditLog: {
          items: {
            action: string;
            actor: { type: string; user: { email: string } | null };
            details: { name: string; value: string | null }[];
            clientAddress: string | null;
          }[];
          endCursor: string | null;
        };
      };
    };
    const firstPage = await data<AuditPage>(AUDIT, { id: venueId, after: null }, owner.token);
    const secondPage = await data<AuditPage>(
      AUDIT,
      { id: venueId, after: firstPage.venue.auditLog.endCursor },
      owner.token,
    );
    const events = [...firstPage.venue.auditLog.items, ...secondPage.venue.auditLog.items];
    expect(events.map((e) => e.action)).toEqual([
      'api_key.revoked',
      'api_key.issued',
      'branch.created',
      'plan.changed',
      'venue.created',
    ]);
    expect(secondPage.venue.auditLog.endCursor).toBeNull();
    expect(events.every((e) => e.actor.type === 'user' && e.actor.user?.email === owner.email)).toBe(true);
    expect(events.every((e) => e.clientAddress !== null)).toBe(true);
    expect(events.find((e) => e.action === 'plan.changed')!.details).toEqual([
      { name: 'plan', value: 'growth' },
    ]);
    expect(JSON.stringify(events)).not.toContain(issueApiKey.secret);

    const history = await database.query(
      `select from_plan_key, to_plan_key, changed_by_user_id from billing.subscription_changes
        where subject_type = 'venue' and subject_id = $1 order by id`,
      [Number(venueId)],
    );
    expect(history).toEqual([
      { from_plan_key: null, to_plan_key: 'starter', changed_by_user_id: null },
      { from_plan_key: 'starter', to_plan_key: 'growth', changed_by_user_id: owner.id },
    ]);
  });

  it('keeps each role to its part: staff read, managers manage, only owners change the plan', async () => {
    const owner = await person();
    const manager = await person();
    const staff = await person();
    const stranger = await person();
    const { createVenue } = await data<{ createVenue: { id: string } }>(
      `mutation ($i: CreateVenueInput!) { createVenue(input: $i) { id } }`,
      { i: { name: 'Roles Cafe' } },
      owner.token,
    );
    const venueId = createVenue.id;
    // Invitations come with the next change; the roles are set as an accepted invitation would.
    for (const [who, role] of [
      [manager, 'MANAGER'],
      [staff, 'STAFF'],
    ] as const) {
      await database.query(
        `insert into tickets.venue_members (venue_id, user_id, role) values ($1, $2, $3)`,
        [Number(venueId), Number(who.id), role],
      );
    }
    const { createBranch } = await data<{ createBranch: { id: string } }>(
      `mutation ($i: CreateBranchInput!) { createBranch(input: $i) { id } }`,
      { i: { venueId, name: 'Main' } },
      manager.token,
    );

    const code = async (query: string, variables: Record<string, unknown>, token: string) =>
      (await graph(query, variables, token)).errors?.[0]?.extensions?.code ?? 'OK';
    const ISSUE = `mutation ($i: IssueApiKeyInput!) { issueApiKey(input: $i) { secret } }`;
    const KEYS = `query ($id: ID!) { venue(id: $id) { apiKeys { id } } }`;
    const BRANCHES = `query ($id: ID!) { venue(id: $id) { viewerRole branches { name } } }`;
    const PLAN = `mutation ($i: ChangePlanInput!) { changePlan(input: $i) { key } }`;
    const SMS = `mutation ($i: SetVenueSmsInput!) { setVenueSms(input: $i) { smsEnabled } }`;

    expect(await code(BRANCHES, { id: venueId }, staff.token)).toBe('OK');
    expect(await code(ISSUE, { i: { branchId: createBranch.id, name: 'k' } }, staff.token)).toBe('FORBIDDEN');
    expect(await code(KEYS, { id: venueId }, staff.token)).toBe('FORBIDDEN');
    expect(await code(SMS, { i: { venueId, enabled: true } }, staff.token)).toBe('FORBIDDEN');

    expect(await code(ISSUE, { i: { branchId: createBranch.id, name: 'k' } }, manager.token)).toBe('OK');
    expect(await code(KEYS, { id: venueId }, manager.token)).toBe('OK');
    expect(await code(SMS, { i: { venueId, enabled: true } }, manager.token)).toBe('OK');
    expect(await code(PLAN, { i: { venueId, plan: 'growth' } }, manager.token)).toBe('FORBIDDEN');
    expect(await code(PLAN, { i: { venueId, plan: 'growth' } }, owner.token)).toBe('OK');

    for (const query of [BRANCHES, KEYS]) {
      expect(await code(query, { id: venueId }, stranger.token)).toBe('NOT_FOUND');
    }
    expect(await code(ISSUE, { i: { branchId: createBranch.id, name: 'k' } }, stranger.token)).toBe(
      'NOT_FOUND',
    );
    expect(await code(PLAN, { i: { venueId, plan: 'growth' } }, stranger.token)).toBe('NOT_FOUND');
    expect(await code(`{ myVenues { id } }`, {}, stranger.token)).toBe('OK');
    expect((await graph(`{ myVenues { id } }`)).errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    const staffRole = await data<{ venue: { viewerRole: string } }>(BRANCHES, { id: venueId }, staff.token);
    expect(staffRole.venue.viewerRole).toBe('STAFF');
  });

  it('invites people by mail; only the invited address joins, once; a venue keeps an owner', async () => {
    const owner = await person();
    const other = await person();
    const { createVenue } = await data<{ createVenue: { id: string } }>(
      `mutation ($i: CreateVenueInput!) { createVenue(input: $i) { id } }`,
      { i: { name: 'Invite Kitchen', language: 'en' } },
      owner.token,
    );
    const venueId = createVenue.id;
    const INVITE = `mutation ($i: InviteMemberInput!) { inviteMember(input: $i) }`;
    const ACCEPT = `mutation ($t: String!) { acceptInvitation(token: $t) { id viewerRole } }`;
    const invitee = 'new.manager@example.test';
    expect(await data(INVITE, { i: { venueId, email: invitee, role: 'MANAGER' } }, owner.token)).toEqual({
      inviteMember: true,
    });
    await smtp.waitFor((mails) => mails.some((m) => m.to.includes(invitee)));
    const mail = smtp.received.find((m) => m.to.includes(invitee))!;
    expect(mail.subject).toContain('Invite Kitchen');
    expect(mail.text).toContain('manager');
    const token = /#token=(inv_[A-Za-z0-9_-]+)/.exec(mail.text)![1]!;

    const wrongPerson = await graph(ACCEPT, { t: token }, other.token);
    expect(wrongPerson.errors?.[0]?.extensions?.errors).toEqual({
      token: ['This invitation was sent to another email address.'],
    });
    const manager = await person(invitee.toUpperCase());
    // The refusal above left that invitation as it was; a second one works the same.
    await data(INVITE, { i: { venueId, email: invitee, role: 'MANAGER' } }, owner.token);
    await smtp.waitFor(
      (mails) => mails.filter((m) => m.to.includes(invitee) && m.text.includes('inv_')).length === 2,
    );
    const second = /#token=(inv_[A-Za-z0-9_-]+)/.exec(
      smtp.received.filter((m) => m.to.includes(invitee) && m.text.includes('inv_'))[1]!.text,
    )![1]!;
    expect(await data(ACCEPT, { t: second }, manager.token)).toEqual({
      acceptInvitation: { id: venueId, viewerRole: 'MANAGER' },
    });
    const again = await graph(ACCEPT, { t: second }, manager.token);
    expect(again.errors?.[0]?.extensions?.errors).toEqual({
      token: ['This link is invalid, already used or expired.'],
    });
    expect(
      (await graph(INVITE, { i: { venueId, email: 'x@example.test', role: 'STAFF' } }, manager.token))
        .errors?.[0]?.extensions?.code,
    ).toBe('FORBIDDEN');
    expect(
      (await graph(INVITE, { i: { venueId, email: 'not-an-email', role: 'STAFF' } }, owner.token)).errors?.[0]
        ?.extensions?.errors,
    ).toEqual({
      email: ['The email field must be a valid email address.'],
    });

    await data(INVITE, { i: { venueId, email: other.email, role: 'STAFF' } }, owner.token);
    await smtp.waitFor((mails) => mails.some((m) => m.to.includes(other.email) && m.text.includes('inv_')));
    const late = /#token=(inv_[A-Za-z0-9_-]+)/.exec(
      smtp.received.find((m) => m.to.includes(other.email) && m.text.includes('inv_'))!.text,
    )![1]!;
    await database.query(
      `update tickets.venue_invitations set expires_at = now() - interval '1 second' where email = $1`,
      [other.email],
    );
    expect((await graph(ACCEPT, { t: late }, other.token)).errors?.[0]?.extensions?.errors).toEqual({
      token: ['This link is invalid, already used or expired.'],
    });

    const ROLE = `mutation ($i: ChangeMemberRoleInput!) { changeMemberRole(input: $i) { role user { id } } }`;
    const REMOVE = `mutation ($i: RemoveMemberInput!) { removeMember(input: $i) }`;
    const lastOwner = await graph(ROLE, { i: { venueId, userId: owner.id, role: 'STAFF' } }, owner.token);
    expect(lastOwner.errors?.[0]?.extensions?.errors).toEqual({
      role: ['A venue keeps at least one owner.'],
    });
    const leaving = await graph(REMOVE, { i: { venueId, userId: owner.id } }, owner.token);
    expect(leaving.errors?.[0]?.extensions?.errors).toEqual({
      userId: ['A venue keeps at least one owner.'],
    });
    expect(await data(ROLE, { i: { venueId, userId: manager.id, role: 'OWNER' } }, owner.token)).toEqual({
      changeMemberRole: { role: 'OWNER', user: { id: manager.id } },
    });
    expect(await data(REMOVE, { i: { venueId, userId: owner.id } }, owner.token)).toEqual({
      removeMember: true,
    });
    expect(
      (await graph(`query ($id: ID!) { venue(id: $id) { id } }`, { id: venueId }, owner.token)).errors?.[0]
        ?.extensions?.code,
    ).toBe('NOT_FOUND');
  });

  it('lets every member work tickets at a branch they name, with the keys’ operations and rules', async () => {
    const owner = await person();
    const staff = await person();
    const stranger = await person();
    const { createVenue } = await data<{ createVenue: { id: string } }>(
      `mutation ($i: CreateVenueInput!) { createVenue(input: $i) { id } }`,
      { i: { name: 'Counter Cafe' } },
      owner.token,
    );
    const { createBranch } = await data<{ createBranch: { id: string } }>(
      `mutation ($i: CreateBranchInput!) { createBranch(input: $i) { id } }`,
      { i: { venueId: createVenue.id, name: 'Front' } },
      owner.token,
    );
    await database.query(
      `insert into tickets.venue_members (venue_id, user_id, role) values ($1, $2, 'STAFF')`,
      [Number(createVenue.id), Number(staff.id)],
    );
    const at = { 'x-branch-id': createBranch.id };
    const CREATE = `mutation ($i: CreateTicketInput!) { createTicket(input: $i) { ticket { id number status source } } }`;
    // The venue is on the starter plan, without API access: the panel does not need it.
    const created = await graph(CREATE, { i: { customerName: 'Layla' } }, staff.token, at);
    expect(created.errors).toBeUndefined();
    const ticket = (
      created.data!.createTicket as { ticket: { id: string; number: string; status: string; source: number } }
    ).ticket;
    expect(ticket).toMatchObject({ status: 'WAITING', source: 2 });
    const ready = await graph(
      `mutation ($id: ID!) { markTicketReady(id: $id) { status } }`,
      { id: ticket.id },
      staff.token,
      at,
    );
    expect(ready.data).toEqual({ markTicketReady: { status: 'READY' } });
    const again = await graph(
      `mutation ($id: ID!) { markTicketReady(id: $id) { status } }`,
      { id: ticket.id },
      staff.token,
      at,
    );
    expect(again.errors?.[0]?.extensions?.errors).toEqual({
      status: ['A ready ticket cannot be marked ready.'],
    });
    const listed = await graph(`{ tickets { total } }`, {}, staff.token, at);
    expect(listed.data).toEqual({ tickets: { total: 1 } });

    expect((await graph(`{ tickets { total } }`, {}, stranger.token, at)).errors?.[0]?.extensions?.code).toBe(
      'FORBIDDEN',
    );
    const unnamed = await graph(`{ tickets { total } }`, {}, staff.token);
    expect(unnamed.errors?.[0]).toMatchObject({
      message: 'Name the branch you work at in the X-Branch-Id header.',
      extensions: { code: 'UNAUTHENTICATED' },
    });
  });

  it('keeps the operator’s changes in the venue’s audit log too, as the operator’s', async () => {
    const owner = await person();
    const { createVenue } = await data<{ createVenue: { id: string } }>(
      `mutation ($i: CreateVenueInput!) { createVenue(input: $i) { id } }`,
      { i: { name: 'Operated' } },
      owner.token,
    );
    await admin(platform.config, 'venue', 'set-plan', '--id', createVenue.id, '--plan', 'enterprise');
    const log = await data<{
      venue: {
        auditLog: {
          items: { action: string; actor: { type: string; user: unknown }; clientAddress: string | null }[];
        };
      };
    }>(
      `query ($id: ID!) { venue(id: $id) { auditLog { items { action actor { type user { id } } clientAddress } } } }`,
      { id: createVenue.id },
      owner.token,
    );
    expect(log.venue.auditLog.items[0]).toEqual({
      action: 'plan.changed',
      actor: { type: 'operator', user: null },
      clientAddress: null,
    });
  });

  it('refuses a bad plan, a bad name and a key with an unknown scope, naming the field', async () => {
    const owner = await person();
    const badName = await graph(
      `mutation ($i: CreateVenueInput!) { createVenue(input: $i) { id } }`,
      { i: { name: ' ' } },
      owner.token,
    );
    expect(badName.errors?.[0]?.extensions?.errors).toEqual({
      name: ['The name field must be between 1 and 120 characters.'],
    });
    const { createVenue } = await data<{ createVenue: { id: string } }>(
      `mutation ($i: CreateVenueInput!) { createVenue(input: $i) { id } }`,
      { i: { name: 'Checks' } },
      owner.token,
    );
    const plan = await graph(
      `mutation ($i: ChangePlanInput!) { changePlan(input: $i) { key } }`,
      {
        i: { venueId: createVenue.id, plan: 'cv_pro' },
      },
      owner.token,
    );
    expect(plan.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(Object.keys(plan.errors?.[0]?.extensions?.errors ?? {})).toEqual(['plan']);
    const { createBranch } = await data<{ createBranch: { id: string } }>(
      `mutation ($i: CreateBranchInput!) { createBranch(input: $i) { id } }`,
      { i: { venueId: createVenue.id, name: 'B' } },
      owner.token,
    );
    const scope = await graph(
      `mutation ($i: IssueApiKeyInput!) { issueApiKey(input: $i) { secret } }`,
      {
        i: { branchId: createBranch.id, name: 'k', scopes: ['tickets:admin'] },
      },
      owner.token,
    );
    expect(scope.errors?.[0]?.extensions?.errors).toEqual({
      scopes: [
        'The scopes must be a comma-separated list of tickets:read, tickets:write (unknown: tickets:admin).',
      ],
    });
  });
});
