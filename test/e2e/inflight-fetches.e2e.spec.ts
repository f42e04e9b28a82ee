import { randomBytes } from 'node:crypto';
import { loadConfig, type Config } from '../../common/config';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { askGraph, bearer, graphData, signUpPerson, type SignedUp } from '../support/graph';
import { newTicketBranch, type TicketBranch } from '../support/platform';
import { sampleSum } from '../support/metrics';
import { startStack, type RunningStack } from '../support/processes';
import { waitUntil } from '../support/wait';
import { jsonLines } from '../support/recording-logger';

/** What a key's branch screen reads: its branch, venue and plan (billing), and its tickets. */
const BRANCH_VIEW = `query BranchView {
  currentBranch { id name venue { id plan { key } } }
  tickets(perPage: 5) { items { id customerName } }
}`;

/** What a signed-in person's first screen reads: who they are (identity), their venues and plans. */
const PERSON_VIEW = `query PersonView {
  viewer { id email name }
  myVenues { id name viewerRole plan { key } }
}`;

/** One fetch to the tickets subgraph per client request that is not shared. */
const BRANCH_NAME = 'query BranchName { currentBranch { id name } }';

const CREATE = `mutation Create($input: CreateTicketInput!) {
  createTicket(input: $input) { ticket { id } }
}`;

const CONCURRENT = 40;

describe('identical subgraph fetches in flight, over the whole stack', () => {
  let database: TestDatabase;
  let stack: RunningStack;
  let config: Config;
  let metricsPorts: { gateway: number; tickets: number };
  const branches: TicketBranch[] = [];
  const people: SignedUp[] = [];

  const random = () => randomBytes(4).toString('hex');

  beforeAll(async () => {
    database = await createTestDatabase();
    const env: NodeJS.ProcessEnv = {
      DATABASE_URL: database.url,
      REDIS_PREFIX: `test:${database.name}:`,
      // The budgets would turn hundreds of requests a minute from one key or person into 429s.
      TICKETS_RATE_LIMIT: '1000000',
      SESSION_RATE_LIMIT: '1000000',
      PUBLIC_RATE_LIMIT: '1000000',
      PUBLIC_WRITE_RATE_LIMIT: '1000',
      // Each process logs the metrics port it took at info.
      LOG_LEVEL: 'info',
    };
    stack = await startStack(env);
    config = loadConfig({ ...process.env, ...env, INTERNAL_SECRET: stack.internalSecret });
    const listening = jsonLines<{ port?: number; metricsPort?: number }>(stack.output()).filter(
      (line) => line.metricsPort !== undefined,
    );
    const metricsPortOf = (port: number) => listening.find((line) => line.port === port)!.metricsPort!;
    metricsPorts = {
      gateway: metricsPortOf(stack.ports.gateway),
      tickets: metricsPortOf(stack.ports.tickets),
    };

    for (const [plan, customer] of [
      ['growth', 'Customer of branch A'],
      ['enterprise', 'Customer of branch B'],
    ] as const) {
      const branch = await newTicketBranch(config, { plan });
      const created = await fetch(`${stack.restUrl}/tickets`, {
        method: 'POST',
        headers: { authorization: `Bearer ${branch.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ customer_name: customer }),
      });
      expect(created.status).toBe(201);
      branches.push(branch);
    }
    for (const name of ['Person P', 'Person Q']) {
      const person = await signUpPerson(stack.gatewayUrl, {
        email: `inflight-${random()}@example.test`,
        name,
      });
      await graphData(
        stack.gatewayUrl,
        'mutation ($i: CreateVenueInput!) { createVenue(input: $i) { id } }',
        { i: { name: `Venue of ${name}` } },
        bearer(person.token),
      );
      people.push(person);
    }
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    await database?.drop();
  });

  const scrape = async (process: 'gateway' | 'tickets') =>
    (await fetch(`http://127.0.0.1:${metricsPorts[process]}/metrics`)).text();
  const shared = async (subgraph: string) =>
    sampleSum(await scrape('gateway'), 'nida_subgraph_fetches_shared_total', `subgraph="${subgraph}"`);
  const sharedInAll = async () => sampleSum(await scrape('gateway'), 'nida_subgraph_fetches_shared_total');
  const ticketsGraphqlRequests = async () =>
    sampleSum(await scrape('tickets'), 'http_server_request_duration_seconds_count', 'http_route="/graphql"');

  it('answers two keys of two branches and two people concurrently, each only ever with its own data', async () => {
    const callers = [
      ...branches.map((branch) => ({ query: BRANCH_VIEW, token: branch.key })),
      ...people.map((person) => ({ query: PERSON_VIEW, token: person.token })),
    ];
    // Each caller's answer asked alone, then checked against what each person and key should see.
    const alone = await Promise.all(
      callers.map(({ query, token }) =>
        graphData<Record<string, unknown>>(stack.gatewayUrl, query, {}, bearer(token)),
      ),
    );
    expect(alone.slice(0, 2)).toEqual(
      [
        ['growth', 'Customer of branch A'],
        ['enterprise', 'Customer of branch B'],
      ].map(([plan, customer], i) => ({
        currentBranch: {
          id: String(branches[i]!.branchId),
          name: expect.any(String) as string,
          venue: { id: String(branches[i]!.venueId), plan: { key: plan } },
        },
        tickets: { items: [{ id: expect.any(String) as string, customerName: customer }] },
      })),
    );
    expect(alone.slice(2)).toEqual(
      people.map((person) => ({
        viewer: { id: person.id, email: person.email, name: person.name },
        myVenues: [
          {
            id: expect.any(String) as string,
            name: `Venue of ${person.name}`,
            viewerRole: 'OWNER',
            plan: { key: 'starter' },
          },
        ],
      })),
    );

    const sharedBefore = await sharedInAll();
    const wrong: unknown[] = [];
    for (let round = 0; round < 15; round += 1) {
      // Interleaved, so each caller's fetches are in flight beside the others'.
      const sent = Array.from({ length: 8 }, () =>
        callers.map((caller, index) => ({ ...caller, index })),
      ).flat();
      const replies = await Promise.all(
        sent.map(({ query, token }) => askGraph(stack.gatewayUrl, query, {}, bearer(token))),
      );
      replies.forEach((reply, i) => {
        const { index } = sent[i]!;
        if (
          reply.status !== 200 ||
          reply.errors !== undefined ||
          JSON.stringify(reply.data) !== JSON.stringify(alone[index])
        ) {
          wrong.push({ round, caller: index, reply });
        }
      });
    }
    expect(wrong).toEqual([]);
    // The load above did share fetches: the isolation held where it is at stake.
    expect(await sharedInAll()).toBeGreaterThan(sharedBefore);
  });

  it('sends the subgraph fewer fetches than identical concurrent requests, the rest joining one in flight', async () => {
    const key = branches[0]!.key;
    await graphData(stack.gatewayUrl, BRANCH_NAME, {}, bearer(key));
    const requestsBefore = await ticketsGraphqlRequests();
    const sharedBefore = await shared('tickets');
    const replies = await Promise.all(
      Array.from({ length: CONCURRENT }, () => askGraph(stack.gatewayUrl, BRANCH_NAME, {}, bearer(key))),
    );
    expect(replies.filter((reply) => reply.errors !== undefined || reply.status !== 200)).toEqual([]);
    expect(new Set(replies.map((reply) => JSON.stringify(reply.data))).size).toBe(1);
    // Every request either reached the subgraph or joined one that did.
    let fetched = 0;
    let joined = 0;
    await waitUntil(
      async () => {
        fetched = (await ticketsGraphqlRequests()) - requestsBefore;
        joined = (await shared('tickets')) - sharedBefore;
        return fetched + joined === CONCURRENT;
      },
      10_000,
      'the subgraph counting every fetch it answered',
    );
    expect(fetched).toBeLessThan(CONCURRENT);
    expect(joined).toBeGreaterThan(0);
  });

  it('sends every one of identical concurrent mutations', async () => {
    const key = branches[1]!.key;
    const sharedBefore = await sharedInAll();
    const input = {
      customerName: 'Same order',
      number: null,
      externalId: null,
      customerPhone: null,
      note: null,
    };
    const replies = await Promise.all(
      Array.from({ length: 10 }, () => askGraph(stack.gatewayUrl, CREATE, { input }, bearer(key))),
    );
    const ids = replies.map(
      (reply) => (reply.data?.createTicket as { ticket: { id: string } } | undefined)?.ticket.id,
    );
    expect(new Set(ids).size).toBe(10);
    expect(ids.every((id) => id !== undefined)).toBe(true);
    expect(await sharedInAll()).toBe(sharedBefore);
  });
});
