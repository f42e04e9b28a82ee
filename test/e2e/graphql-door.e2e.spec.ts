import { createHash, randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { internalCredentialHeaders } from '../../common/internal-credential';
import { startGateway, type RunningGateway } from '../../gateway/gateway';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { freePorts } from '../support/processes';
import { sendBothWays, sendRaw as send } from '../support/raw-request';
import {
  type CvAccount,
  newCvAccount,
  newTicketBranch,
  type Platform,
  startPlatform,
  type TicketBranch,
} from '../support/platform';

/** Ids and tokens a mutation mints anew on each gateway. */
const MINTED = /"(id|token|number|publicUrl|qrUrl)":("[^"]*"|\d+)/g;

describe('the gateway front door answers POST /graphql exactly as express does', () => {
  let database: TestDatabase;
  let platform: Platform;
  let plain: RunningGateway;
  let plainUrl: string;
  let branch: TicketBranch;
  let account: CvAccount;
  let ticketId: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    platform = await startPlatform(database);
    const [port] = (await freePorts(1)) as [number];
    plain = await startGateway({
      ...platform.config,
      frontDoor: false,
      ports: { ...platform.config.ports, gateway: port },
    });
    plainUrl = `http://127.0.0.1:${port}/graphql`;
    branch = await newTicketBranch(platform.config);
    account = await newCvAccount(platform.config, { plan: 'pro' });
    const created = await send(platform.gatewayUrl, {
      headers: { 'content-type': 'application/json', authorization: `Bearer ${branch.key}` },
      body: JSON.stringify({
        query: 'mutation ($input: CreateTicketInput!) { createTicket(input: $input) { ticket { id } } }',
        variables: { input: { externalId: 'door-1' } },
      }),
    });
    ticketId = (JSON.parse(created.body) as { data: { createTicket: { ticket: { id: string } } } }).data
      .createTicket.ticket.id;
  });

  afterAll(async () => {
    await plain?.stop();
    await platform?.stop();
    await database?.drop();
  });

  const PLANS = '{ plans { key name product monthlyPriceIqd } }';
  const MISSING = '00000000-0000-4000-8000-000000000000';
  const json = (body: unknown) => JSON.stringify(body);
  const persisted = (query: string) => ({
    persistedQuery: { version: 1, sha256Hash: createHash('sha256').update(query).digest('hex') },
  });

  /** name → the request; each is sent to both gateways with one request id. */
  const corpus = (): Record<
    string,
    { method?: string; path?: string; headers?: Record<string, string>; body?: Buffer | string }
  > => {
    const tickets = { authorization: `Bearer ${branch.key}` };
    const cv = { 'x-api-key': account.key };
    const ticket = 'query ($id: ID!) { ticket(id: $id) { id status externalId } }';
    return {
      'the public plans': { body: json({ query: PLANS }) },
      'a ticket by id with its key': {
        headers: tickets,
        body: json({ query: ticket, variables: { id: ticketId } }),
      },
      'me with a CV key': {
        headers: cv,
        body: json({ query: '{ me { id name email plan { key name } usage { cvs downloadsThisMonth } } }' }),
      },
      'a ticket create': {
        headers: tickets,
        body: json({
          query:
            'mutation ($input: CreateTicketInput!) { createTicket(input: $input) { ticket { id status } } }',
          variables: { input: { customerName: 'Noor' } },
        }),
      },
      'an anonymous mutation': {
        body: json({ query: 'mutation { createTicket(input: {}) { ticket { id } } }' }),
      },
      'an unknown key': {
        headers: { authorization: 'Bearer tk_live_unknown' },
        body: json({ query: PLANS }),
      },
      'the platform credential': {
        headers: internalCredentialHeaders(platform.config.internalSecret),
        body: json({ query: PLANS }),
      },
      'variables of the wrong type': {
        headers: tickets,
        body: json({ query: ticket, variables: { id: [1] } }),
      },
      'a NUL in a variable': {
        headers: tickets,
        body: json({
          query: 'mutation ($input: CreateTicketInput!) { createTicket(input: $input) { ticket { id } } }',
          variables: { input: { customerName: 'a\u0000b' } },
        }),
      },
      'a syntax error': { body: json({ query: '{ plans { key ' }) },
      'an unknown field': { body: json({ query: '{ plans { nope } }' }) },
      'no query': { body: json({ variables: {} }) },
      'an unknown persisted query': {
        body: json({
          extensions: {
            persistedQuery: {
              version: 1,
              sha256Hash: createHash('sha256').update('{ nothing }').digest('hex'),
            },
          },
        }),
      },
      'a persisted query with its document': {
        body: json({
          query: PLANS,
          extensions: {
            persistedQuery: { version: 1, sha256Hash: createHash('sha256').update(PLANS).digest('hex') },
          },
        }),
      },
      'the plans by their hash, once registered': {
        body: json({
          extensions: {
            persistedQuery: { version: 1, sha256Hash: createHash('sha256').update(PLANS).digest('hex') },
          },
        }),
      },
      'a ticket query by its hash, never registered': {
        headers: tickets,
        body: json({ variables: { id: ticketId }, extensions: persisted(ticket) }),
      },
      'a missing ticket, registered with its document': {
        headers: tickets,
        body: json({ query: ticket, variables: { id: MISSING }, extensions: persisted(ticket) }),
      },
      'a missing ticket by its hash': {
        headers: tickets,
        body: json({ variables: { id: MISSING }, extensions: persisted(ticket) }),
      },
      'a ticket by its hash': {
        headers: tickets,
        body: json({ variables: { id: ticketId }, extensions: persisted(ticket) }),
      },
      'a hash with another extension': {
        body: json({
          extensions: {
            persistedQuery: { version: 1, sha256Hash: createHash('sha256').update(PLANS).digest('hex') },
            other: true,
          },
        }),
      },
      'a batch': { body: json([{ query: PLANS }, { query: PLANS }]) },
      'an empty body': { body: '' },
      'a scalar body': { body: '42' },
      'a string body': { body: '"plans"' },
      null: { body: 'null' },
      'not JSON': { body: '{"query": ' },
      'blanks then JSON': { body: ` \n\t${json({ query: PLANS })}` },
      'a byte order mark then JSON': { body: `\ufeff${json({ query: PLANS })}` },
      'bytes that are not UTF-8': { body: Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]) },
      'an operation name the document lacks': { body: json({ query: PLANS, operationName: 'Other' }) },
      'variables that are not an object': { body: json({ query: PLANS, variables: 'x' }) },
      'accept graphql-response+json': {
        headers: { accept: 'application/graphql-response+json' },
        body: json({ query: '{ plans { nope } }' }),
      },
      'accept text/html only': { headers: { accept: 'text/html' }, body: json({ query: PLANS }) },
      'accept anything': { headers: { accept: '*/*' }, body: json({ query: PLANS }) },
      'accept application/json': { headers: { accept: 'application/json' }, body: json({ query: PLANS }) },
      'accept graphql-response+json for a success': {
        headers: { accept: 'application/graphql-response+json' },
        body: json({ query: PLANS }),
      },
      'a ticket that does not exist': {
        headers: tickets,
        body: json({ query: ticket, variables: { id: MISSING } }),
      },
      'a ticket by id that is not one': {
        headers: tickets,
        body: json({ query: ticket, variables: { id: 'nope' } }),
      },
      'a create the subgraph refuses': {
        headers: tickets,
        body: json({
          query:
            'mutation ($input: CreateTicketInput!) { createTicket(input: $input) { ticket { id status } } }',
          variables: { input: { number: -1 } },
        }),
      },
      'a create the subgraph refuses for its length': {
        headers: tickets,
        body: json({
          query:
            'mutation ($input: CreateTicketInput!) { createTicket(input: $input) { ticket { id status } } }',
          variables: { input: { customerName: 'x'.repeat(81) } },
        }),
      },
      'a create without its variables': {
        headers: tickets,
        body: json({
          query:
            'mutation ($input: CreateTicketInput!) { createTicket(input: $input) { ticket { id status } } }',
        }),
      },
      'the second of two operations': {
        body: json({ query: 'query A { plans { key } } query B { plans { name } }', operationName: 'B' }),
      },
      'variables that are null': { body: json({ query: PLANS, variables: null }) },
      'the query plan asked for': {
        headers: { 'apollo-query-plan-experimental': '1' },
        body: json({ query: PLANS }),
      },
      'a type in capitals': { headers: { 'content-type': 'Application/JSON' }, body: json({ query: PLANS }) },
      'a utf-8 charset': {
        headers: { 'content-type': 'application/json; charset=utf-8' },
        body: json({ query: PLANS }),
      },
      // Not admitted by the door: both gateways answer these through express.
      'a latin1 charset': {
        headers: { 'content-type': 'application/json; charset=latin1' },
        body: json({ query: PLANS }),
      },
      'text/plain': { headers: { 'content-type': 'text/plain' }, body: json({ query: PLANS }) },
      'text/plain with the preflight header': {
        headers: { 'content-type': 'text/plain', 'apollo-require-preflight': '1' },
        body: json({ query: PLANS }),
      },
      'a gzipped body': { headers: { 'content-encoding': 'gzip' }, body: gzipSync(json({ query: PLANS })) },
      'a query string': { path: '/graphql?x=1', body: json({ query: PLANS }) },
      'a trailing slash': { path: '/graphql/', body: json({ query: PLANS }) },
      'a body past the limit': { body: Buffer.alloc(8 * 1024 * 1024 + 1, 0x20) },
      'GET with a query': {
        method: 'GET',
        path: `/graphql?query=${encodeURIComponent(PLANS)}`,
        body: undefined,
      },
    };
  };

  // Twice: the second time the door runs every operation it has seen straight through the gateway's
  // executor (gateway/fetch/prepared-operations.ts), and must still answer as express does.
  it('gives every request of the corpus the same status, headers and body on both ways, first and again', async () => {
    const differences: string[] = [];
    const requests = Object.entries(corpus());
    for (const [name, request] of [...requests, ...requests.map(([n, r]) => [`${n}, again`, r] as const)]) {
      const requestId = randomUUID();
      const body = request.body;
      const headers: Record<string, string | number> = {
        'content-type': 'application/json',
        'x-request-id': requestId,
        ...request.headers,
        ...(body === undefined ? {} : { 'content-length': Buffer.byteLength(body) }),
      };
      const options = { method: request.method, path: request.path, headers, body };
      const urls = { door: platform.gatewayUrl, express: plainUrl };
      const { difference } = await sendBothWays(name, urls, options, MINTED);
      if (difference !== undefined) differences.push(difference);
    }
    expect(differences).toEqual([]);
  });

  // The ticket operations of the corpus are planned as one fetch of the client's own selection, which
  // the door answers with the subgraph's answer as it stands; an answer with errors goes to the
  // executor with that fetch in hand. Either way the subgraph is asked once per request.
  it('asks the subgraph once for an operation of one fetch, whether it succeeds or fails', async () => {
    const fetches = async () => {
      const text = await (
        await fetch(`http://127.0.0.1:${platform.ports.gateway.metricsPort}/metrics`)
      ).text();
      return Number(
        /nida_subgraph_request_duration_seconds_count\{subgraph="tickets"\} (\d+)/.exec(text)?.[1] ?? 0,
      );
    };
    const requests = corpus();
    for (const name of [
      'a ticket by id with its key',
      'a ticket that does not exist',
      'a ticket by id that is not one',
      'a create the subgraph refuses for its length',
      'a ticket create',
    ]) {
      const { headers, body } = requests[name]!;
      const before = await fetches();
      const answer = await send(platform.gatewayUrl, {
        headers: {
          'content-type': 'application/json',
          ...headers,
          'content-length': Buffer.byteLength(body!),
        },
        body,
      });
      expect({ name, fetched: (await fetches()) - before }).toEqual({ name, fetched: 1 });
      const answered = JSON.parse(answer.body) as { data?: unknown; errors?: unknown[] };
      expect({ name, refused: answered.errors !== undefined }).toEqual({
        name,
        refused: name !== 'a ticket by id with its key' && name !== 'a ticket create',
      });
    }
  });

  it('counts what it admits, and the operations it runs itself, in the same metric series as express', async () => {
    const metrics = async () =>
      (await fetch(`http://127.0.0.1:${platform.ports.gateway.metricsPort}/metrics`)).text();
    const count = (text: string) =>
      Number(
        /http_server_request_duration_seconds_count\{[^}]*http_route="\/graphql"[^}]*http_response_status_code="200"[^}]*\} (\d+)/.exec(
          text,
        )?.[1] ?? 0,
      );
    // The catalogue has been asked before: the door answers it without Apollo's pipeline, and
    // counts the operation as Apollo's plugin would.
    const operations = (text: string) =>
      Number(
        /nida_graphql_operations_total\{operation_type="query",operation_name="anonymous",result="success"\} (\d+)/.exec(
          text,
        )?.[1] ?? 0,
      );
    const before = await metrics();
    await send(platform.gatewayUrl, {
      headers: { 'content-type': 'application/json' },
      body: json({ query: PLANS }),
    });
    const after = await metrics();
    expect(count(after)).toBe(count(before) + 1);
    expect(operations(after)).toBe(operations(before) + 1);
  });
});
