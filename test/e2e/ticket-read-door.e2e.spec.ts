import { randomUUID } from 'node:crypto';
import { startRestAdapter, type RunningRestAdapter } from '../../rest-adapter/rest-adapter';
import { createTestDatabase, type TestDatabase } from '../support/database';
import {
  newBranchKey,
  newTicketBranch,
  type Platform,
  startPlatform,
  type TicketBranch,
} from '../support/platform';
import { freePorts } from '../support/processes';
import { sendBothWays, sendRaw } from '../support/raw-request';
import { awayFromWindowEdge } from '../support/wait';

interface Request {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

describe('the REST adapter front door answers GET /api/v1/tickets/{id} exactly as express does', () => {
  let database: TestDatabase;
  let platform: Platform;
  let plain: RunningRestAdapter;
  let doorUrl: string;
  let plainUrl: string;
  let branch: TicketBranch;
  let other: TicketBranch;
  let ticketId: number;

  beforeAll(async () => {
    database = await createTestDatabase();
    platform = await startPlatform(database);
    expect(platform.config.restFrontDoor).toBe(true);
    const [port] = (await freePorts(1)) as [number];
    plain = await startRestAdapter({
      ...platform.config,
      restFrontDoor: false,
      ports: { ...platform.config.ports, rest: port },
    });
    doorUrl = platform.restUrl.replace(/\/api\/v1$/, '');
    plainUrl = `http://127.0.0.1:${port}`;
    [branch, other] = [await newTicketBranch(platform.config), await newTicketBranch(platform.config)];
    const created = await fetch(`${platform.restUrl}/tickets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${branch.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ external_id: 'door-1', customer_name: 'Zainab Kareem' }),
    });
    expect(created.status).toBe(201);
    ticketId = ((await created.json()) as { id: number }).id;
  });

  afterAll(async () => {
    await plain?.stop();
    await platform?.stop();
    await database?.drop();
  });

  /** name → the request; each is sent to both adapters with one request id. */
  const corpus = async (): Promise<Record<string, Request>> => {
    const key = { authorization: `Bearer ${branch.key}` };
    const writeOnly = (await newBranchKey(platform.config, branch.branchId, 'tickets:write')).key;
    const path = `/api/v1/tickets/${ticketId}`;
    return {
      'a ticket with its key': { path, headers: key },
      'in Arabic': { path, headers: { ...key, 'accept-language': 'ar' } },
      'with an Idempotency-Key': { path, headers: { ...key, 'idempotency-key': 'k-1' } },
      'a ticket that does not exist': { path: '/api/v1/tickets/987654321', headers: key },
      'an id past any ticket': { path: '/api/v1/tickets/99999999999999999999', headers: key },
      'an id of zero': { path: '/api/v1/tickets/0', headers: key },
      'a leading zero': { path: `/api/v1/tickets/0${ticketId}`, headers: key },
      'no key': { path },
      'an empty Authorization': { path, headers: { authorization: '' } },
      'an unknown key': { path, headers: { authorization: 'Bearer tk_live_000000000000000000000000' } },
      'a Basic Authorization': { path, headers: { authorization: 'Basic dXNlcjpwYXNz' } },
      'a key of another branch': { path, headers: { authorization: `Bearer ${other.key}` } },
      'a key without tickets:read': { path, headers: { authorization: `Bearer ${writeOnly}` } },
      // What the door hands to express, on both sides.
      'a query string': { path: `${path}?x=1`, headers: key },
      'a trailing slash': { path: `${path}/`, headers: key },
      'a percent-encoded digit': { path: `/api/v1/tickets/%3${String(ticketId).slice(0, 1)}`, headers: key },
      'upper case': { path: `/API/V1/TICKETS/${ticketId}`, headers: key },
      HEAD: { method: 'HEAD', path, headers: key },
      'a JSON body': { path, headers: { ...key, 'content-type': 'application/json' }, body: '{"a":1}' },
      'a malformed JSON body': { path, headers: { ...key, 'content-type': 'application/json' }, body: '{' },
      'a list': { path: '/api/v1/tickets', headers: key },
    };
  };

  const sendBoth = async (name: string, request: Request, differences: string[]) => {
    const headers: Record<string, string | number> = {
      'x-request-id': randomUUID(),
      ...request.headers,
      ...(request.body === undefined ? {} : { 'content-length': Buffer.byteLength(request.body) }),
    };
    const options = { method: request.method ?? 'GET', path: request.path, headers, body: request.body };
    const { door, difference } = await sendBothWays(name, { door: doorUrl, express: plainUrl }, options);
    if (difference !== undefined) differences.push(difference);
    return door;
  };

  it('gives every request of the corpus the same status, headers and body on both ways', async () => {
    await awayFromWindowEdge();
    const differences: string[] = [];
    const statuses: Record<string, number> = {};
    for (const [name, request] of Object.entries(await corpus())) {
      statuses[name] = (await sendBoth(name, request, differences)).status;
    }
    expect(differences).toEqual([]);
    // The corpus reaches what it means to: a read, each refusal, and express's own answers.
    expect(statuses).toMatchObject({
      'a ticket with its key': 200,
      'a ticket that does not exist': 404,
      'no key': 401,
      'a key without tickets:read': 403,
      'a malformed JSON body': 400,
    });
  });

  it('answers a key past its budget with the same 429, and counts the door’s reads in that budget', async () => {
    await awayFromWindowEdge();
    const key = (await newBranchKey(platform.config, branch.branchId)).key;
    const request = { path: `/api/v1/tickets/${ticketId}`, headers: { authorization: `Bearer ${key}` } };
    for (let i = 0; i < platform.config.ticketsRateLimit; i++) {
      expect((await sendRaw(doorUrl, { method: 'GET', ...request })).status).toBe(200);
    }
    const differences: string[] = [];
    expect((await sendBoth('past the budget', request, differences)).status).toBe(429);
    expect(differences).toEqual([]);
  }, 60_000);

  it('counts what it answers in the same metric series as express', async () => {
    const series = async (metricsPort: number) => {
      const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      const counts: Record<string, number> = {};
      const pattern =
        /http_server_request_duration_seconds_count\{http_request_method="GET",http_route="\/api\/v1\/tickets\/\{id\}",http_response_status_code="(\d+)"\} (\d+)/g;
      for (const [, status, count] of text.matchAll(pattern)) counts[`GET ${status!}`] = Number(count);
      return counts;
    };
    const before = [
      await series(platform.ports['rest-adapter'].metricsPort),
      await series(plain.metricsPort),
    ];
    const differences: string[] = [];
    const key = { authorization: `Bearer ${(await newBranchKey(platform.config, branch.branchId)).key}` };
    await sendBoth('a read', { path: `/api/v1/tickets/${ticketId}`, headers: key }, differences);
    await sendBoth('unknown', { path: '/api/v1/tickets/987654321', headers: key }, differences);
    expect(differences).toEqual([]);
    const after = [await series(platform.ports['rest-adapter'].metricsPort), await series(plain.metricsPort)];
    const grown = (i: number, name: string) => (after[i]![name] ?? 0) - (before[i]![name] ?? 0);
    expect([grown(0, 'GET 200'), grown(0, 'GET 404')]).toEqual([1, 1]);
    expect([grown(1, 'GET 200'), grown(1, 'GET 404')]).toEqual([1, 1]);
  });
});
