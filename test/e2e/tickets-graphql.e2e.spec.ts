import { createTestDatabase, type TestDatabase } from '../support/database';
import { admin, newTicketBranch, startPlatform, type Platform, type TicketBranch } from '../support/platform';

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
    const readOnly = await admin<{ key: string }>(
      platform.config,
      'key',
      'create',
      '--branch',
      String(branch.branchId),
      '--scopes',
      'tickets:read',
    );
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
});
