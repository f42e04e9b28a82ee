import { INTERNAL_CREDENTIAL_HEADER } from '../../common/internal-credential';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { newCvAccount, newTicketBranch, startPlatform, type Platform } from '../support/platform';

interface GraphAnswer {
  data?: Record<string, unknown> | null;
  errors?: { message: string; extensions?: { code?: string } }[];
}

const entities = (typename: 'Account' | 'Venue') => `query ($representations: [_Any!]!) {
  _entities(representations: $representations) { ... on ${typename} { id name } }
}`;

describe('subgraphs answer only the platform', () => {
  let database: TestDatabase;
  let platform: Platform;
  let rows: () => Promise<string>;

  beforeAll(async () => {
    database = await createTestDatabase();
    platform = await startPlatform(database);
    // Every table a refused request could have written to, summed up to compare before and after.
    rows = async () =>
      JSON.stringify(
        await database.query(
          `select (select count(*) from tickets.tickets) as tickets, (select count(*) from cv.cvs) as cvs,
                  (select count(*) from billing.usage_months) as usage,
                  (select count(*) from identity.users) as users`,
        ),
      );
  });

  afterAll(async () => {
    await platform?.stop();
    await database.drop();
  });

  const subgraphUrl = (name: 'tickets' | 'cv' | 'billing' | 'identity') => platform.config.subgraphUrls[name];

  async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as GraphAnswer };
  }

  const platformHeaders = () => ({ [INTERNAL_CREDENTIAL_HEADER]: platform.config.internalSecret });

  it.each(['tickets', 'cv', 'billing', 'identity'] as const)(
    'the %s subgraph refuses _service, _entities and mutations without the credential, running nothing',
    async (name) => {
      const before = await rows();
      const wrong: Record<string, string>[] = [{}, { [INTERNAL_CREDENTIAL_HEADER]: 'x'.repeat(43) }];
      for (const headers of wrong) {
        for (const body of [
          { query: '{ _service { sdl } }' },
          {
            query: entities('Account'),
            variables: { representations: [{ __typename: 'Account', id: '1' }] },
          },
          {
            query: 'mutation { meterCvDownload(accountId: "1") { allowed } }',
          },
          { query: 'mutation { createTicket(input: {}) { ticket { id } } }' },
          {
            query: `mutation { signUp(input: { email: "stranger@example.test", password: "a long test passphrase",
              name: "Stranger", language: "en" }) { token } }`,
          },
        ]) {
          const answer = await post(subgraphUrl(name), body, headers);
          expect(answer.status).toBe(401);
          expect(answer.body.data).toBeUndefined();
          expect(answer.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
        }
      }
      const landing = await fetch(subgraphUrl(name), { headers: { accept: 'text/html' } });
      expect(landing.status).toBe(401);
      expect(await rows()).toBe(before);
    },
  );

  it('answers the platform itself: the gateway, and a caller holding the credential', async () => {
    const answer = await post(subgraphUrl('billing'), { query: '{ _service { sdl } }' }, platformHeaders());
    expect(answer.status).toBe(200);
    expect(JSON.stringify(answer.body.data)).toContain('type Plan');
    const viaGateway = await post(platform.gatewayUrl, { query: '{ plans(product: CV) { key } }' });
    expect(viaGateway.body.errors).toBeUndefined();
  });

  it('refuses an Account entity fetch with a typed error, never INTERNAL_SERVER_ERROR', async () => {
    const owner = await newCvAccount(platform.config, { name: 'Huda Salim' });
    const other = await newCvAccount(platform.config);
    const fetchAccount = (headers: Record<string, string>) =>
      post(
        subgraphUrl('cv'),
        {
          query: entities('Account'),
          variables: { representations: [{ __typename: 'Account', id: String(owner.id) }] },
        },
        { ...platformHeaders(), ...headers },
      );
    const codeOf = (answer: GraphAnswer) => answer.errors?.[0]?.extensions?.code;

    expect(codeOf((await fetchAccount({})).body)).toBe('UNAUTHENTICATED');
    expect(codeOf((await fetchAccount({ 'x-api-key': other.key })).body)).toBe('FORBIDDEN');
    expect((await fetchAccount({ 'x-api-key': owner.key })).body.data).toEqual({
      _entities: [{ id: String(owner.id), name: 'Huda Salim' }],
    });
  });

  it('refuses a Venue entity fetch with a typed error, and shows a key its own venue', async () => {
    const mine = await newTicketBranch(platform.config);
    const theirs = await newTicketBranch(platform.config);
    const fetchVenue = (headers: Record<string, string>) =>
      post(
        subgraphUrl('tickets'),
        {
          query: entities('Venue'),
          variables: { representations: [{ __typename: 'Venue', id: String(mine.venueId) }] },
        },
        { ...platformHeaders(), ...headers },
      );
    const codeOf = (answer: GraphAnswer) => answer.errors?.[0]?.extensions?.code;

    expect(codeOf((await fetchVenue({})).body)).toBe('UNAUTHENTICATED');
    expect(codeOf((await fetchVenue({ authorization: `Bearer ${theirs.key}` })).body)).toBe('FORBIDDEN');
    expect((await fetchVenue({ authorization: `Bearer ${mine.key}` })).body.data).toEqual({
      _entities: [{ id: String(mine.venueId), name: 'Samarra Grill' }],
    });
  });
});
