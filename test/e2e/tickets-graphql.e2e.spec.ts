import { createTestDatabase, type TestDatabase } from '../support/database';
import {
  newBranchKey,
  newTicketBranch,
  type Platform,
  startPlatform,
  type TicketBranch,
} from '../support/platform';

interface GraphReply<T> {
  data?: T | null;
  errors?: {
    message: string;
    extensions?: { code?: string; errors?: Record<string, string[]>; retryAfter?: number };
  }[];
}

describe('tickets as one graph, through the gateway', () => {
  let database: TestDatabase;
  let platform: Platform;
  let branch: TicketBranch;

  beforeAll(async () => {
    database = await createTestDatabase();
    platform = await startPlatform(database);
    branch = await newTicketBranch(platform.config);
  });

  afterAll(async () => {
    await platform?.stop();
    await database.drop();
  });

  async function graphql<T>(
    query: string,
    variables: Record<string, unknown> = {},
    {
      key = branch.key,
      language,
      ticketToken,
    }: { key?: string | null; language?: string; ticketToken?: string } = {},
  ): Promise<GraphReply<T>> {
    const response = await fetch(platform.gatewayUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(key ? { authorization: `Bearer ${key}` } : {}),
        ...(language ? { 'accept-language': language } : {}),
        ...(ticketToken ? { 'x-ticket-token': ticketToken } : {}),
      },
      body: JSON.stringify({ query, variables }),
    });
    return (await response.json()) as GraphReply<T>;
  }

  const CREATE = `mutation ($input: CreateTicketInput!, $key: String) {
    createTicket(input: $input, idempotencyKey: $key) { replayed ticket { id number status token externalId publicUrl qrUrl } }
  }`;

  type Created = {
    createTicket: {
      replayed: boolean;
      ticket: { id: string; number: string; status: string; token: string };
    };
  };

  it('creates and reads a ticket with camelCase fields and the status enum', async () => {
    const created = await graphql<Created>(CREATE, { input: { externalId: 'g-1', customerName: 'Noor' } });
    expect(created.errors).toBeUndefined();
    const ticket = created.data!.createTicket.ticket;
    expect(ticket.status).toBe('WAITING');
    const read = await graphql<{ ticket: Record<string, unknown> }>(
      `
        query ($id: ID!) {
          ticket(id: $id) {
            id
            number
            externalId
            customerName
            statusText
            sourceText
            ringCount
            smsOptIn
            createdAt
          }
        }
      `,
      { id: ticket.id },
    );
    expect(read.data?.ticket).toMatchObject({
      id: ticket.id,
      externalId: 'g-1',
      customerName: 'Noor',
      statusText: 'Waiting',
    });
    const byExternal = await graphql<{ ticketByExternalId: { id: string } }>(`
      {
        ticketByExternalId(externalId: "g-1") {
          id
        }
      }
    `);
    expect(byExternal.data?.ticketByExternalId.id).toBe(ticket.id);
  });

  it('resolves Venue.plan from billing through federation', async () => {
    const created = await graphql<Created>(CREATE, { input: {} });
    const read = await graphql<{
      ticket: {
        branch: {
          name: string;
          venue: { name: string; plan: { key: string; tickets: { apiAccess: boolean } } };
        };
      };
    }>(
      `
        query ($id: ID!) {
          ticket(id: $id) {
            branch {
              name
              venue {
                name
                smsEnabled
                plan {
                  key
                  name
                  tickets {
                    apiAccess
                    sms
                  }
                }
              }
            }
          }
        }
      `,
      { id: created.data!.createTicket.ticket.id },
    );
    expect(read.errors).toBeUndefined();
    expect(read.data?.ticket.branch).toMatchObject({
      name: 'Counter 1',
      venue: { name: 'Samarra Grill', plan: { key: 'growth', tickets: { apiAccess: true } } },
    });
  });

  it('moves by id or by externalId, refusing a disallowed move with BAD_USER_INPUT', async () => {
    const created = await graphql<Created>(CREATE, { input: { externalId: 'g-move' } });
    const id = created.data!.createTicket.ticket.id;
    const ready = await graphql<{ markTicketReady: { status: string; ringCount: number } }>(`
      mutation {
        markTicketReady(externalId: "g-move") {
          status
          ringCount
        }
      }
    `);
    expect(ready.data?.markTicketReady).toEqual({ status: 'READY', ringCount: 1 });
    const ring = await graphql(
      `
        mutation ($id: ID) {
          ringTicket(id: $id) {
            ringCount
          }
        }
      `,
      { id },
    );
    expect(ring.errors?.[0]?.extensions).toMatchObject({ code: 'RATE_LIMITED' });
    expect(ring.errors?.[0]?.extensions?.retryAfter).toBeGreaterThan(0);
    const collected = await graphql<{ markTicketCollected: { status: string } }>(
      `
        mutation ($id: ID) {
          markTicketCollected(id: $id) {
            status
          }
        }
      `,
      { id },
    );
    expect(collected.data?.markTicketCollected.status).toBe('COLLECTED');
    const cancel = await graphql(
      `
        mutation ($id: ID) {
          cancelTicket(id: $id) {
            status
          }
        }
      `,
      { id },
    );
    expect(cancel.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    const neither = await graphql(`
      mutation {
        cancelTicket {
          status
        }
      }
    `);
    expect(neither.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });

  it('pages tickets with a filter', async () => {
    const page = await graphql<{
      tickets: { total: number; lastPage: number; items: { externalId: string }[] };
    }>(`
      {
        tickets(filter: { externalId: "g-1" }, perPage: 5) {
          total
          lastPage
          items {
            externalId
          }
        }
      }
    `);
    expect(page.data?.tickets).toEqual({ total: 1, lastPage: 1, items: [{ externalId: 'g-1' }] });
    const bad = await graphql(`
      {
        tickets(perPage: 500) {
          total
        }
      }
    `);
    expect(bad.errors?.[0]?.extensions?.errors).toHaveProperty('perPage');
  });

  it('replays createTicket for the same idempotency key', async () => {
    const first = await graphql<Created>(CREATE, { input: { note: 'x' }, key: 'gql-1' });
    const again = await graphql<Created>(CREATE, { input: { note: 'x' }, key: 'gql-1' });
    expect(again.data?.createTicket.replayed).toBe(true);
    expect(again.data?.createTicket.ticket.id).toBe(first.data?.createTicket.ticket.id);
  });

  it('authenticates with the same Bearer key and enforces scopes in the subgraph', async () => {
    expect(
      (
        await graphql(
          `
            {
              tickets {
                total
              }
            }
          `,
          {},
          { key: null },
        )
      ).errors?.[0]?.extensions?.code,
    ).toBe('UNAUTHENTICATED');
    const readOnly = await newBranchKey(platform.config, branch.branchId, 'tickets:read');
    const denied = await graphql(CREATE, { input: {} }, { key: readOnly.key });
    expect(denied.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const starter = await newTicketBranch(platform.config, { plan: 'starter' });
    const unpaid = await graphql(
      `
        {
          tickets {
            total
          }
        }
      `,
      {},
      { key: starter.key },
    );
    expect(unpaid.errors?.[0]?.extensions?.code).toBe('PAYMENT_REQUIRED');
  });

  it('names the key’s branch in currentBranch', async () => {
    const reply = await graphql<{ currentBranch: { id: string; name: string; venue: { name: string } } }>(
      '{ currentBranch { id name venue { name } } }',
    );
    expect(reply).toEqual({
      data: {
        currentBranch: { id: String(branch.branchId), name: 'Counter 1', venue: { name: 'Samarra Grill' } },
      },
    });
    const anonymous = await graphql('{ currentBranch { id } }', {}, { key: null });
    expect(anonymous.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });

  it('reads a ticket by id with its own token in X-Ticket-Token, never what the business wrote', async () => {
    const created = await graphql<Created>(CREATE, { input: { customerName: 'Huda', note: 'extra bread' } });
    const { id, token } = created.data!.createTicket.ticket;
    const byToken = await graphql<{
      ticket: { number: string; customerName: string | null; note: string | null };
    }>(
      'query ($id: ID!) { ticket(id: $id) { number customerName note } }',
      { id },
      { key: null, ticketToken: token },
    );
    expect(byToken.data?.ticket).toEqual({
      number: created.data!.createTicket.ticket.number,
      customerName: null,
      note: null,
    });
    expect(byToken.errors?.map((e) => e.extensions?.code)).toEqual(['FORBIDDEN', 'FORBIDDEN']);
    // The token names one ticket: another id with it is not found, and a key wins over a token.
    const other = await graphql<Created>(CREATE, { input: {} });
    const wrong = await graphql(
      'query ($id: ID!) { ticket(id: $id) { number } }',
      { id: other.data!.createTicket.ticket.id },
      {
        key: null,
        ticketToken: token,
      },
    );
    expect(wrong.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    const withKey = await graphql<{ ticket: { note: string } }>(
      'query ($id: ID!) { ticket(id: $id) { note } }',
      { id },
      { ticketToken: token },
    );
    expect(withKey).toEqual({ data: { ticket: { note: 'extra bread' } } });
  });

  it('shows a customer only what their page needs, by token and without a key', async () => {
    const created = await graphql<Created>(CREATE, {
      input: { customerPhone: '07701234567', note: 'allergic to nuts' },
    });
    const token = created.data!.createTicket.ticket.token;
    const view = await graphql<{ ticketByToken: Record<string, unknown> }>(
      `
        query ($token: String!) {
          ticketByToken(token: $token) {
            number
            status
            statusText
            venueName
            branchName
            language
          }
        }
      `,
      { token },
      { key: null, language: 'ar' },
    );
    expect(view.data?.ticketByToken).toEqual({
      number: created.data!.createTicket.ticket.number,
      status: 'WAITING',
      statusText: 'قيد الانتظار',
      venueName: 'Samarra Grill',
      branchName: 'Counter 1',
      language: 'ar',
    });
    const leak = await graphql(
      `
        query ($token: String!) {
          ticketByToken(token: $token) {
            note
          }
        }
      `,
      { token },
      { key: null },
    );
    expect(leak.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
    const unknown = await graphql<{ ticketByToken: null }>(
      `{ ticketByToken(token: "${'A'.repeat(32)}") { number } }`,
      {},
      { key: null },
    );
    expect(unknown.data?.ticketByToken).toBeNull();
  });

  describe('the ticket page’s own writes, by token and without a key', () => {
    const PAGE = 'alertsEnabled smsOptIn smsAvailable linkedAt feedback { rating comment }';
    const asCustomer = <T>(query: string, variables: Record<string, unknown>) =>
      graphql<T>(query, variables, { key: null });
    const move = (id: string, mutation: string) =>
      graphql(`mutation ($id: ID) { ${mutation}(id: $id) { status } }`, { id });

    it('links once: linkedAt is set by the first open and kept by every later one', async () => {
      const created = await graphql<Created>(CREATE, { input: {} });
      const { id, token } = created.data!.createTicket.ticket;
      const link = () =>
        asCustomer<{ linkTicket: { linkedAt: string | null } }>(
          `mutation ($t: String!) { linkTicket(token: $t) { ${PAGE} } }`,
          { t: token },
        );
      const [first, second] = [await link(), await link()];
      expect(first.data?.linkTicket.linkedAt).toEqual(expect.stringMatching(/^\d{4}-/));
      expect(second.data?.linkTicket.linkedAt).toBe(first.data?.linkTicket.linkedAt);
      const rows = await database.query(
        `select count(*)::int as n from tickets.outbox where ticket_id = $1 and event = 'ticket.linked'`,
        [id],
      );
      expect(rows[0]!.n).toBe(1);
      const seen = await graphql<{ ticket: { phoneLinked: boolean } }>(
        'query ($id: ID!) { ticket(id: $id) { phoneLinked } }',
        {
          id,
        },
      );
      expect(seen.data?.ticket.phoneLinked).toBe(true);
      const unknown = await asCustomer('mutation { linkTicket(token: "nope") { number } }', {});
      expect(unknown.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    });

    it('enables alerts and takes an SMS opt-in only while waiting, at a venue that texts', async () => {
      const texting = await newTicketBranch(platform.config, { sms: 'on' });
      const created = await graphql<Created>(CREATE, { input: {} }, { key: texting.key });
      const { id, token } = created.data!.createTicket.ticket;
      const alerts = await asCustomer<{
        enableTicketAlerts: { alertsEnabled: boolean; smsAvailable: boolean };
      }>(`mutation ($t: String!) { enableTicketAlerts(token: $t) { ${PAGE} } }`, { t: token });
      expect(alerts.data?.enableTicketAlerts).toMatchObject({ alertsEnabled: true, smsAvailable: true });
      const optIn = (t: string, phone: string) =>
        asCustomer<{ optInTicketSms: { smsOptIn: boolean } }>(
          `mutation ($t: String!, $p: String!) { optInTicketSms(token: $t, phone: $p) { ${PAGE} } }`,
          { t, p: phone },
        );
      const bad = await optIn(token, '0123');
      expect(bad.errors?.[0]?.extensions).toMatchObject({
        code: 'BAD_USER_INPUT',
        errors: { phone: ['The phone field must be a valid Iraqi mobile number.'] },
      });
      expect((await optIn(token, '0771 234 5678')).data?.optInTicketSms.smsOptIn).toBe(true);
      const [stored] = await database.query('select customer_phone from tickets.tickets where id = $1', [id]);
      expect(stored!.customer_phone).toBe('+9647712345678');
      await graphql(
        'mutation ($id: ID) { markTicketReady(id: $id) { status } }',
        { id },
        { key: texting.key },
      );
      const late = await optIn(token, '07712345678');
      expect(late.errors?.[0]?.extensions?.errors).toEqual({
        phone: ['The order is already ready; there is nothing left to text.'],
      });

      const quiet = await graphql<Created>(CREATE, { input: {} });
      const refused = await optIn(quiet.data!.createTicket.ticket.token, '07712345678');
      expect(refused.errors?.[0]?.extensions?.errors).toEqual({
        phone: ['This venue does not send text messages.'],
      });
    });

    it('refuses Web Push subscriptions while no VAPID keys are configured', async () => {
      const created = await graphql<Created>(CREATE, { input: {} });
      const token = created.data!.createTicket.ticket.token;
      const page = await asCustomer<{ ticketByToken: { pushKey: string | null } }>(
        'query ($t: String!) { ticketByToken(token: $t) { pushKey } }',
        { t: token },
      );
      expect(page.data?.ticketByToken.pushKey).toBeNull();
      const refused = await asCustomer(
        'mutation ($t: String!) { subscribeTicketPush(token: $t, endpoint: "https://push.example/x", p256dh: "x", auth: "y") { pushKey } }',
        { t: token },
      );
      expect(refused.errors?.[0]?.extensions?.errors).toEqual({
        endpoint: ['This service does not send push notifications.'],
      });
    });

    it('takes one rating per collected ticket, with its limits', async () => {
      const created = await graphql<Created>(CREATE, { input: {} });
      const { id, token } = created.data!.createTicket.ticket;
      const rate = (rating: number, comment: string | null) =>
        asCustomer<{ submitTicketFeedback: { rating: number; comment: string | null; createdAt: string } }>(
          'mutation ($t: String!, $r: Int!, $c: String) { submitTicketFeedback(token: $t, rating: $r, comment: $c) { rating comment createdAt } }',
          { t: token, r: rating, c: comment },
        );
      const early = await rate(5, null);
      expect(early.errors?.[0]?.extensions?.errors).toEqual({
        status: ['Feedback opens once the order is collected; it is waiting.'],
      });
      await move(id, 'markTicketCollected');
      const invalid = await rate(6, 'x'.repeat(501));
      expect(invalid.errors?.[0]?.extensions?.errors).toEqual({
        rating: ['The rating must be 1, 2, 3, 4 or 5.'],
        comment: ['The comment must not be greater than 500 characters.'],
      });
      const given = await rate(4, '  Hot and quick  ');
      expect(given.data?.submitTicketFeedback).toMatchObject({ rating: 4, comment: 'Hot and quick' });
      const again = await rate(1, null);
      expect(again.errors?.[0]?.extensions?.code).toBe('CONFLICT');
      const page = await asCustomer<{ ticketByToken: { feedback: { rating: number; comment: string } } }>(
        `query ($t: String!) { ticketByToken(token: $t) { ${PAGE} } }`,
        { t: token },
      );
      expect(page.data?.ticketByToken.feedback).toEqual({ rating: 4, comment: 'Hot and quick' });
    });
  });
});
