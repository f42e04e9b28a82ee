import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../common/paths';
import { CREATE_TICKET, TICKET_BY_ID } from '../../rest-adapter/tickets/tickets.operations';
import type { RunningStack } from '../../tools/stack';
import { admin } from '../bench-stack';
import type { HttpCall } from '../load';

/** One kind of client request, sent the same way to every gateway. */
export interface Workload {
  name: string;
  connections: number[];
  /** Whether two gateways must answer it with the same data (reads), or only without errors. */
  sameData: boolean;
  /** One subgraph answers its operation whole: the floor relays (floor-peer.ts) can serve it. */
  singleFetch: boolean;
  /** The i-th request to `url`: successive ones spread over the workload's credentials or tickets. */
  call(url: string, i: number): HttpCall;
}

/** What the workloads act as: seeded once, on the stack, before any gateway is loaded. */
export interface Seeded {
  ticketKey: string;
  ticketIds: string[];
  cvKeys: string[];
  session: string;
}

/** Distinct credentials and tickets per workload: one for each of the 50 connections. */
const SPREAD = 50;

const PLANS = '{ plans { key name product monthlyPriceIqd } }';
const ME = '{ me { id name email plan { key name } usage { cvs downloadsThisMonth } } }';
const SIGN_UP = 'mutation ($i: SignUpInput!) { signUp(input: $i) { token user { id } } }';

/** The panel's home screen (test/fixtures/panel/home.graphql): viewer, venues, branches, plans, members. */
function panelQuery(): string {
  return readFileSync(join(projectRoot(), 'test', 'fixtures', 'panel', 'home.graphql'), 'utf8');
}

async function graph<T>(
  url: string,
  query: string,
  variables: Record<string, unknown>,
  headers: Record<string, string>,
): Promise<T> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await response.json()) as { data?: T; errors?: unknown[] };
  if (body.errors !== undefined) throw new Error(`${query.slice(0, 50)}: ${JSON.stringify(body.errors)}`);
  return body.data!;
}

async function signUp(url: string, email: string, name: string): Promise<string> {
  const { signUp: answer } = await graph<{ signUp: { token: string } }>(
    url,
    SIGN_UP,
    { i: { email, name, password: 'a long bench passphrase', language: 'en' } },
    {},
  );
  return answer.token;
}

/**
 * A branch with a ticket key and 50 tickets; 50 people with a CV account and key each; one person
 * who owns a venue of two branches, signed in. Through the admin CLI and the platform's gateway,
 * as an operator and the panel would.
 */
export async function seed(stack: RunningStack, env: NodeJS.ProcessEnv): Promise<Seeded> {
  const venue = admin(env, 'venue', 'create', '--name', 'Peers Falafel', '--plan', 'growth');
  const branch = admin(env, 'branch', 'create', '--venue', String(venue.id), '--name', 'Peers counter');
  const { key: ticketKey } = admin(env, 'key', 'create', '--branch', String(branch.id)) as { key: string };
  const ticketIds: string[] = [];
  for (let i = 0; i < SPREAD; i++) {
    const created = await graph<{ createTicket: { ticket: { id: string } } }>(
      stack.gatewayUrl,
      CREATE_TICKET.document,
      {
        input: {
          number: null,
          externalId: `seed-${i}`,
          customerName: `Customer ${i}`,
          customerPhone: null,
          note: null,
        },
      },
      { authorization: `Bearer ${ticketKey}` },
    );
    ticketIds.push(created.createTicket.ticket.id);
  }

  const run = Date.now().toString(36);
  const cvKeys: string[] = [];
  for (let i = 0; i < SPREAD; i++) {
    const token = await signUp(stack.gatewayUrl, `cv-${run}-${i}@bench.test`, `CV holder ${i}`);
    const auth = { authorization: `Bearer ${token}` };
    await graph(stack.gatewayUrl, 'mutation { createCvAccount { id } }', {}, auth);
    const { createAccountApiKey } = await graph<{ createAccountApiKey: { secret: string } }>(
      stack.gatewayUrl,
      'mutation ($i: CreateAccountApiKeyInput!) { createAccountApiKey(input: $i) { secret } }',
      { i: { name: 'bench' } },
      auth,
    );
    cvKeys.push(createAccountApiKey.secret);
  }

  const session = await signUp(stack.gatewayUrl, `owner-${run}@bench.test`, 'Venue owner');
  const auth = { authorization: `Bearer ${session}` };
  const { createVenue } = await graph<{ createVenue: { id: string } }>(
    stack.gatewayUrl,
    'mutation ($i: CreateVenueInput!) { createVenue(input: $i) { id } }',
    { i: { name: 'Peers Kebab', language: 'ar', timezone: 'Asia/Baghdad' } },
    auth,
  );
  for (const name of ['Karrada', 'Mansour']) {
    await graph(
      stack.gatewayUrl,
      'mutation ($i: CreateBranchInput!) { createBranch(input: $i) { id } }',
      { i: { venueId: createVenue.id, name } },
      auth,
    );
  }
  return { ticketKey, ticketIds, cvKeys, session };
}

const nth = <T>(items: readonly T[], i: number): T => items[i % items.length]!;

const post = (
  url: string,
  query: string,
  variables: Record<string, unknown>,
  headers: Record<string, string>,
): HttpCall => ({
  method: 'POST',
  url,
  headers,
  body: JSON.stringify({ query, variables }),
});

/** The workloads in the order each round runs them. */
export function workloads(seeded: Seeded): Workload[] {
  const ticketAuth = { authorization: `Bearer ${seeded.ticketKey}` };
  const panel = panelQuery();
  const oneCvKey = seeded.cvKeys[0]!;
  return [
    {
      name: 'plans (public)',
      connections: [1, 50],
      sameData: true,
      singleFetch: true,
      call: (url) => post(url, PLANS, {}, {}),
    },
    {
      name: 'ticket by id (ticket key)',
      connections: [1, 50],
      sameData: true,
      singleFetch: true,
      call: (url, i) => post(url, TICKET_BY_ID.document, { id: nth(seeded.ticketIds, i) }, ticketAuth),
    },
    {
      name: 'me, cv + billing (50 CV keys)',
      connections: [1, 50],
      sameData: true,
      singleFetch: false,
      call: (url, i) => post(url, ME, {}, { 'x-api-key': nth(seeded.cvKeys, i) }),
    },
    {
      name: 'panel home (session)',
      connections: [1, 50],
      sameData: true,
      singleFetch: false,
      call: (url) => post(url, panel, {}, { authorization: `Bearer ${seeded.session}` }),
    },
    {
      name: 'identical me (1 CV key)',
      connections: [50],
      sameData: true,
      singleFetch: false,
      call: (url) => post(url, ME, {}, { 'x-api-key': oneCvKey }),
    },
    {
      name: 'ticket create (ticket key)',
      connections: [1, 50],
      sameData: false,
      singleFetch: true,
      call: (url) =>
        post(
          url,
          CREATE_TICKET.document,
          {
            input: { number: null, externalId: null, customerName: null, customerPhone: null, note: null },
            idempotencyKey: null,
          },
          ticketAuth,
        ),
    },
  ];
}

/** A reply's data with every timestamp blanked, for comparing gateways' answers. */
export function comparable(body: string): string {
  const parsed = JSON.parse(body) as { data?: unknown };
  return JSON.stringify(parsed.data ?? null).replace(/"\d{4}-\d\d-\d\dT[^"]*"/g, '"<time>"');
}
