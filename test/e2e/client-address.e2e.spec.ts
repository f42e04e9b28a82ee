import { request } from 'node:http';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { signUpPerson, type SignedUp } from '../support/graph';
import { startPlatform, type Platform } from '../support/platform';
import { awayFromWindowEdge } from '../support/wait';

// Every peer below is on loopback (Linux routes all of 127.0.0.0/8 to lo), so one machine can be
// several peers; and the old rule trusted any loopback peer's X-Forwarded-For, the hole kept shut here.

/** signUpPerson's password. */
const PASSWORD = 'a long test passphrase';
const SIGN_IN = 'mutation ($i: SignInInput!) { signIn(input: $i) { token } }';

interface GraphBody {
  data?: Record<string, unknown> | null;
  errors?: { message: string; extensions?: { code?: string; retryAfter?: number } }[];
}

interface Reply {
  status: number;
  rateLimit: string;
  body: GraphBody;
}

/** Where a request comes from: the socket's own address, and what its X-Forwarded-For claims. */
interface Origin {
  peer: string;
  forwardedFor?: string;
}

/** One HTTP request from `origin.peer` (global fetch cannot choose its source address). */
function send(url: string, origin: Origin, method = 'GET', json?: unknown): Promise<Reply> {
  const body = json === undefined ? undefined : JSON.stringify(json);
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      {
        method,
        localAddress: origin.peer,
        // A connection of its own each time, so no kept-alive socket of another peer is reused.
        agent: false,
        headers: {
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...(origin.forwardedFor === undefined ? {} : { 'x-forwarded-for': origin.forwardedFor }),
        },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            rateLimit: String(response.headers.ratelimit ?? ''),
            body: JSON.parse(text) as GraphBody,
          }),
        );
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/** A sign-in sent to the gateway over HTTP from `origin`. */
const signIn = (platform: Platform, origin: Origin, variables: Record<string, unknown>) =>
  send(platform.gatewayUrl, origin, 'POST', { query: SIGN_IN, variables });

/** A query without a credential, counted against the client address's public budget. */
const anonymousQuery = (platform: Platform, origin: Origin) =>
  send(platform.gatewayUrl, origin, 'POST', { query: '{ __typename }' });

const publicLeft = (reply: Reply) => Number(/"public";r=(\d+)/.exec(reply.rateLimit)?.[1]);

/** A graphql-ws client whose socket is opened from `origin.peer`, its upgrade carrying the header. */
function socketFrom(platform: Platform, origin: Origin): Client {
  class FromPeer extends WebSocket {
    constructor(url: string, protocols?: string | string[]) {
      super(url, protocols, {
        localAddress: origin.peer,
        headers: origin.forwardedFor === undefined ? {} : { 'x-forwarded-for': origin.forwardedFor },
      });
    }
  }
  return createClient({
    url: platform.gatewayUrl.replace(/^http/, 'ws'),
    webSocketImpl: FromPeer,
    retryAttempts: 0,
  });
}

/** One operation over the socket: its result, or the errors it was refused with. */
const overSocket = (client: Client, query: string, variables: Record<string, unknown>) =>
  new Promise<GraphBody>((resolve) => {
    let outcome: GraphBody = {};
    client.subscribe(
      { query, variables },
      {
        next: (result) => (outcome = result as GraphBody),
        error: (errors) => resolve({ errors: errors as GraphBody['errors'] }),
        complete: () => resolve(outcome),
      },
    );
  });

/** Starts a platform whose identity limits are the only ones a handful of sign-ins can reach. */
async function platformWith(database: TestDatabase, env: NodeJS.ProcessEnv = {}): Promise<Platform> {
  return startPlatform(database, {
    // Sign-ins are credential-less writes too; the gateway's 30 a minute must not answer first.
    PUBLIC_WRITE_RATE_LIMIT: '1000',
    ...env,
  });
}

let people = 0;
/** A person who may sign in, made from 127.0.0.1 (sign-ups are not sign-in failures). */
async function person(platform: Platform): Promise<SignedUp> {
  people += 1;
  return signUpPerson(platform.gatewayUrl, { email: `address${people}@example.test`, name: 'Huda' });
}

let guesses = 0;
/** A failed sign-in's input, for another email each time: only the address's count reaches 10. */
function wrongPassword(): Record<string, unknown> {
  guesses += 1;
  return { i: { email: `guess${guesses}@example.test`, password: 'not the password' } };
}

const rightPassword = (user: SignedUp) => ({ i: { email: user.email, password: PASSWORD } });

describe('the client address when no proxy is trusted (the default): the socket’s peer', () => {
  let database: TestDatabase;
  let platform: Platform;

  beforeAll(async () => {
    database = await createTestDatabase();
    platform = await platformWith(database);
  });

  afterAll(async () => {
    await platform?.stop();
    await database.drop();
  });

  it('runs with no trusted proxy unless TRUSTED_PROXIES names one', () => {
    expect(platform.config.trustedProxies).toEqual([]);
  });

  it('counts failed sign-ins over HTTP against the peer, whatever X-Forwarded-For it sends', async () => {
    const user = await person(platform);
    for (let i = 1; i <= 10; i += 1) {
      const failed = await signIn(
        platform,
        { peer: '127.0.0.11', forwardedFor: `198.51.100.${i}` },
        wrongPassword(),
      );
      expect(failed.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    }
    const limited = await signIn(
      platform,
      { peer: '127.0.0.11', forwardedFor: '198.51.100.99' },
      rightPassword(user),
    );
    expect(limited.status).toBe(429);
    expect(limited.body.errors?.[0]).toMatchObject({
      message: expect.stringMatching(/^Too many failed sign-ins\./) as unknown,
      extensions: { code: 'RATE_LIMITED' },
    });
    // Another peer has its own count.
    const elsewhere = await signIn(platform, { peer: '127.0.0.14' }, rightPassword(user));
    expect(elsewhere.body.errors).toBeUndefined();
  });

  it('counts failed sign-ins over graphql-ws against the socket’s peer, whatever its upgrade’s X-Forwarded-For', async () => {
    const user = await person(platform);
    for (let i = 1; i <= 10; i += 1) {
      const client = socketFrom(platform, { peer: '127.0.0.12', forwardedFor: `198.51.100.${i}` });
      const failed = await overSocket(client, SIGN_IN, wrongPassword());
      expect(failed.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
      await client.dispose();
    }
    const client = socketFrom(platform, { peer: '127.0.0.12', forwardedFor: '198.51.100.99' });
    const limited = await overSocket(client, SIGN_IN, rightPassword(user));
    expect(limited.errors?.[0]?.message).toMatch(/^Too many failed sign-ins\./);
    expect(limited.errors?.[0]?.extensions?.code).toBe('RATE_LIMITED');
    await client.dispose();
  });

  it('counts credential-less requests to the REST adapter and the gateway against the peer as X-Forwarded-For changes', async () => {
    await awayFromWindowEdge();
    const peer = '127.0.0.13';
    const first = await send(`${platform.restUrl}/plans`, { peer, forwardedFor: '198.51.100.1' });
    expect(first.status).toBe(200);
    const left = publicLeft(first);
    expect(left).toBeGreaterThan(0);
    const restAgain = await send(`${platform.restUrl}/plans`, { peer, forwardedFor: '198.51.100.2' });
    expect(publicLeft(restAgain)).toBe(left - 1);
    const graph = await anonymousQuery(platform, { peer, forwardedFor: '198.51.100.3' });
    expect(graph.status).toBe(200);
    expect(publicLeft(graph)).toBe(left - 2);
  });
});

describe('the client address behind a trusted proxy (TRUSTED_PROXIES=127.0.0.2)', () => {
  const PROXY = '127.0.0.2';
  const PUBLIC_QUOTA = 50;
  let database: TestDatabase;
  let platform: Platform;

  beforeAll(async () => {
    database = await createTestDatabase();
    platform = await platformWith(database, {
      TRUSTED_PROXIES: PROXY,
      PUBLIC_RATE_LIMIT: String(PUBLIC_QUOTA),
    });
  });

  afterAll(async () => {
    await platform?.stop();
    await database.drop();
  });

  it('counts failed sign-ins over HTTP per address the proxy forwards, and ignores the header from 127.0.0.1', async () => {
    const user = await person(platform);
    const behindProxy = { peer: PROXY, forwardedFor: '203.0.113.10' };
    for (let i = 1; i <= 10; i += 1) {
      const failed = await signIn(platform, behindProxy, wrongPassword());
      expect(failed.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    }
    const limited = await signIn(platform, behindProxy, rightPassword(user));
    expect(limited.status).toBe(429);
    expect(limited.body.errors?.[0]?.extensions?.code).toBe('RATE_LIMITED');
    // The count was the forwarded client's, not the proxy's: another client behind it signs in.
    const neighbour = await signIn(
      platform,
      { peer: PROXY, forwardedFor: '203.0.113.11' },
      rightPassword(user),
    );
    expect(neighbour.body.errors).toBeUndefined();
    // 127.0.0.1 naming the held-back address is counted as itself, so the block does not reach it.
    const untrusted = await signIn(
      platform,
      { peer: '127.0.0.1', forwardedFor: '203.0.113.10' },
      rightPassword(user),
    );
    expect(untrusted.body.errors).toBeUndefined();
  });

  it('counts failed sign-ins over graphql-ws per address the proxy forwards, and ignores the header from 127.0.0.1', async () => {
    const user = await person(platform);
    const behindProxy = socketFrom(platform, { peer: PROXY, forwardedFor: '203.0.113.30' });
    for (let i = 1; i <= 10; i += 1) {
      const failed = await overSocket(behindProxy, SIGN_IN, wrongPassword());
      expect(failed.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    }
    const limited = await overSocket(behindProxy, SIGN_IN, rightPassword(user));
    expect(limited.errors?.[0]?.extensions?.code).toBe('RATE_LIMITED');
    await behindProxy.dispose();
    const neighbour = socketFrom(platform, { peer: PROXY, forwardedFor: '203.0.113.31' });
    expect((await overSocket(neighbour, SIGN_IN, rightPassword(user))).errors).toBeUndefined();
    await neighbour.dispose();
    const untrusted = socketFrom(platform, { peer: '127.0.0.1', forwardedFor: '203.0.113.30' });
    expect((await overSocket(untrusted, SIGN_IN, rightPassword(user))).errors).toBeUndefined();
    await untrusted.dispose();
  });

  it('counts credential-less requests per forwarded address on both doors, and against 127.0.0.1 itself when it sends the header', async () => {
    await awayFromWindowEdge();
    const forwarded = { peer: PROXY, forwardedFor: '203.0.113.20' };
    const rest = await send(`${platform.restUrl}/plans`, forwarded);
    expect(rest.status).toBe(200);
    expect(publicLeft(rest)).toBe(PUBLIC_QUOTA - 1);
    const graph = await anonymousQuery(platform, forwarded);
    expect(publicLeft(graph)).toBe(PUBLIC_QUOTA - 2);
    const other = await send(`${platform.restUrl}/plans`, { peer: PROXY, forwardedFor: '203.0.113.21' });
    expect(publicLeft(other)).toBe(PUBLIC_QUOTA - 1);

    // The same header from a peer that is not the proxy changes nothing: the peer is counted.
    const untrusted = await send(`${platform.restUrl}/plans`, {
      peer: '127.0.0.1',
      forwardedFor: '203.0.113.20',
    });
    const left = publicLeft(untrusted);
    const again = await anonymousQuery(platform, { peer: '127.0.0.1', forwardedFor: '203.0.113.22' });
    expect(publicLeft(again)).toBe(left - 1);
    expect(publicLeft(await send(`${platform.restUrl}/plans`, forwarded))).toBe(PUBLIC_QUOTA - 3);
  });
});
