import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { SubgraphName } from '../../common/config';
import { internalCredentialHeaders } from '../../common/internal-credential';
import { startSubgraph, type RunningSubgraph } from '../../common/subgraph';
import { SUBGRAPHS } from '../../subgraphs';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { freePorts } from '../support/processes';
import { sendBothWays, sendRaw as send } from '../support/raw-request';
import { newCvAccount, newTicketBranch, startPlatform, type Platform } from '../support/platform';

/** Ids and tokens a mutation mints anew on each subgraph. */
const MINTED = /"(id|token|number|publicUrl|qrUrl)":("[^"]*"|\d+)/g;

type Request = { method?: string; path?: string; headers?: Record<string, string>; body?: Buffer | string };

/**
 * Every subgraph serves the gateway's `POST /graphql` ahead of express (common/graphql-door.ts);
 * here each answer of the door is set beside the answer of the same subgraph started with
 * SUBGRAPH_FRONT_DOOR=false, over the same database, for requests the gateway sends and for those
 * only a stranger would.
 */
describe('a subgraph’s front door answers POST /graphql exactly as express does', () => {
  let database: TestDatabase;
  let platform: Platform;
  const plain: Partial<Record<SubgraphName, RunningSubgraph>> = {};
  let ticketKey: string;
  let cvKey: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    platform = await startPlatform(database);
    for (const name of ['tickets', 'cv'] as const) {
      const [port] = (await freePorts(1)) as [number];
      plain[name] = await startSubgraph(
        SUBGRAPHS.find((subgraph) => subgraph.name === name)!,
        {
          ...platform.config,
          subgraphFrontDoor: false,
          ports: { ...platform.config.ports, [name]: port },
        },
      );
    }
    ticketKey = (await newTicketBranch(platform.config)).key;
    cvKey = (await newCvAccount(platform.config, { plan: 'pro' })).key;
  });

  afterAll(async () => {
    for (const subgraph of Object.values(plain)) await subgraph.stop();
    await platform?.stop();
    await database?.drop();
  });

  const json = (body: unknown) => JSON.stringify(body);
  const platformCredential = () => internalCredentialHeaders(platform.config.internalSecret);

  function ticketsCorpus(): Record<string, Request> {
    const asGateway = { ...platformCredential(), authorization: `Bearer ${ticketKey}` };
    const create =
      'mutation ($input: CreateTicketInput!) { createTicket(input: $input) { ticket { id number status } } }';
    return {
      'a ticket create': {
        headers: asGateway,
        body: json({ query: create, variables: { input: { customerName: 'Noor' } } }),
      },
      'the tickets of the key': { headers: asGateway, body: json({ query: '{ tickets { total } }' }) },
      'a create the subgraph refuses': {
        headers: asGateway,
        body: json({ query: create, variables: { input: { number: -1 } } }),
      },
      'the subgraph’s schema': {
        headers: platformCredential(),
        body: json({ query: '{ _service { sdl } }' }),
      },
      'no key': { headers: platformCredential(), body: json({ query: '{ tickets { total } }' }) },
      'a syntax error': { headers: asGateway, body: json({ query: '{ tickets { ' }) },
      'a batch': {
        headers: asGateway,
        body: json([{ query: '{ __typename }' }, { query: '{ __typename }' }]),
      },
      'an empty body': { headers: asGateway, body: '' },
      'not JSON': { headers: asGateway, body: '{"query": ' },
      'a scalar body': { headers: asGateway, body: '42' },
      'a byte order mark then JSON': {
        headers: asGateway,
        body: `\ufeff${json({ query: '{ __typename }' })}`,
      },
      'accept graphql-response+json': {
        headers: { ...asGateway, accept: 'application/graphql-response+json' },
        body: json({ query: '{ nope }' }),
      },
      // Turned away by the door: both answer these through express.
      'no platform credential': { body: json({ query: '{ __typename }' }) },
      'a wrong platform credential': {
        headers: internalCredentialHeaders('not-the-platform-secret-at-all'),
        body: json({ query: '{ __typename }' }),
      },
      'a stranger’s body past the limit': { body: Buffer.alloc(1024 * 1024 + 1, 0x20) },
      'a body past the limit': { headers: asGateway, body: Buffer.alloc(1024 * 1024 + 1, 0x20) },
      'a latin1 charset': {
        headers: { ...asGateway, 'content-type': 'application/json; charset=latin1' },
        body: json({ query: '{ __typename }' }),
      },
      'text/plain': {
        headers: { ...asGateway, 'content-type': 'text/plain' },
        body: json({ query: '{ __typename }' }),
      },
      'a gzipped body': {
        headers: { ...asGateway, 'content-encoding': 'gzip' },
        body: gzipSync(json({ query: '{ __typename }' })),
      },
      'a query string': { headers: asGateway, path: '/graphql?x=1', body: json({ query: '{ __typename }' }) },
      'GET with a query': {
        method: 'GET',
        headers: asGateway,
        path: `/graphql?query=${encodeURIComponent('{ __typename }')}`,
      },
    };
  }

  function cvCorpus(): Record<string, Request> {
    const asGateway = { ...platformCredential(), 'x-api-key': cvKey };
    return {
      'me with its key': {
        headers: asGateway,
        body: json({ query: '{ me { id name email cvCount } }' }),
      },
      'an unknown key': {
        headers: { ...platformCredential(), 'x-api-key': 'cv_unknown' },
        body: json({ query: '{ me { id } }' }),
      },
      // The cv subgraph takes photos, so its limit is 8 MB rather than 1 MB.
      'a body past 1 MB within 8 MB': {
        headers: asGateway,
        body: `${json({ query: '{ me { id } }' })}${' '.repeat(2 * 1024 * 1024)}`,
      },
      'a body past the limit': { headers: asGateway, body: Buffer.alloc(8 * 1024 * 1024 + 1, 0x20) },
      'no platform credential': { body: json({ query: '{ me { id } }' }) },
    };
  }

  async function differences(name: SubgraphName, corpus: Record<string, Request>): Promise<string[]> {
    const found: string[] = [];
    const doorUrl = `http://127.0.0.1:${platform.ports[name].port}/graphql`;
    const plainUrl = `http://127.0.0.1:${plain[name]!.port}/graphql`;
    for (const [label, request] of Object.entries(corpus)) {
      const body = request.body;
      const headers: Record<string, string | number> = {
        'content-type': 'application/json',
        'x-request-id': randomUUID(),
        ...request.headers,
        ...(body === undefined ? {} : { 'content-length': Buffer.byteLength(body) }),
      };
      const options = { method: request.method, path: request.path, headers, body };
      const { difference } = await sendBothWays(label, { door: doorUrl, express: plainUrl }, options, MINTED);
      if (difference !== undefined) found.push(difference);
    }
    return found;
  }

  it('gives every request the tickets subgraph is sent the same status, headers and body both ways', async () => {
    expect(await differences('tickets', ticketsCorpus())).toEqual([]);
  });

  it('keeps the cv subgraph’s own body limit and answers its requests the same both ways', async () => {
    expect(await differences('cv', cvCorpus())).toEqual([]);
  });

  it('counts what it answers in the same metric series as express', async () => {
    const count = async (port: number) => {
      const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      return Number(
        /http_server_request_duration_seconds_count\{[^}]*http_route="\/graphql"[^}]*http_response_status_code="200"[^}]*\} (\d+)/.exec(
          text,
        )?.[1] ?? 0,
      );
    };
    const request = {
      headers: {
        'content-type': 'application/json',
        ...platformCredential(),
        'content-length': Buffer.byteLength('{"query":"{ __typename }"}'),
      },
      body: '{"query":"{ __typename }"}',
    };
    for (const [url, metricsPort] of [
      [`http://127.0.0.1:${platform.ports.tickets.port}/graphql`, platform.ports.tickets.metricsPort],
      [`http://127.0.0.1:${plain.tickets!.port}/graphql`, plain.tickets!.metricsPort],
    ] as const) {
      const before = await count(metricsPort);
      expect((await send(url, request)).status).toBe(200);
      expect((await count(metricsPort)) - before).toBe(1);
    }
  });
});
