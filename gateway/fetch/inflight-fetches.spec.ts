import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { GraphQLDataSourceProcessOptions } from '@apollo/gateway';
import type { Fetcher } from '@apollo/utils.fetcher';
import { recordingLogger } from '../../test/support/recording-logger';
import { waitUntil } from '../../test/support/wait';
import { INTERNAL_CREDENTIAL_HEADER } from '../../common/internal-credential';
import { REQUEST_ID_HEADER } from '../../common/request-context';
import { ACCESS_RECHECK_HEADER } from '../../contracts/tickets/access-change';
import { FORWARDED_HEADERS, GATEWAY_SET_HEADERS, type GatewayContext } from '../context';
import { HeaderForwardingDataSource, isQueryOnly, mayShareFetch } from './header-forwarding.data-source';
import { fetchKey, InflightFetches } from './inflight-fetches';
import { subgraphFetcher } from './subgraph-fetcher';
import { closeServer, loopbackUrl } from '../../test/support/loopback';

/** A subgraph stand-in that holds every request until told to answer, so joining is not a race. */
class HeldSubgraph {
  private server?: Server;
  readonly seen: { url: string; headers: IncomingMessage['headers']; body: string }[] = [];
  private readonly held: { res: ServerResponse; body: string; url: string }[] = [];
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        this.seen.push({ url: req.url ?? '', headers: req.headers, body });
        this.held.push({ res, body, url: req.url ?? '' });
      });
    });
    const server = this.server;
    this.url = await loopbackUrl(server);
  }

  /**
   * Answers held requests, the oldest `count`: a 502 on `/broken`, nothing on `/silent`, else the
   * body echoed, declared public for a second on `/public` (and on `/public-broken`, a 502) and
   * private for a minute on `/private`.
   */
  release(count = this.held.length): void {
    for (const { res, body, url } of this.held.splice(0, count)) {
      if (url === '/silent') continue;
      if (url === '/broken' || url === '/public-broken') {
        const declared = url === '/public-broken' ? { 'cache-control': 'max-age=1, public' } : {};
        res.writeHead(502, { 'content-type': 'text/plain', ...declared }).end('upstream down');
        continue;
      }
      const cacheControl = { '/public': 'max-age=1, public', '/private': 'max-age=60, private' }[url];
      res.writeHead(200, {
        'content-type': 'application/json',
        ...(cacheControl === undefined ? {} : { 'cache-control': cacheControl }),
      });
      res.end(JSON.stringify({ data: { echo: JSON.parse(body) as unknown, answer: this.seen.length } }));
    }
  }

  async stop(): Promise<void> {
    if (this.server !== undefined) await closeServer(this.server);
  }
}

interface DebugLine {
  level: number;
  msg: string;
  subgraph?: string;
  requestId?: string;
  leaderRequestId?: string;
}

describe('identical subgraph fetches in flight', () => {
  const subgraph = new HeldSubgraph();
  const base = subgraphFetcher(400);
  const { logger, lines } = recordingLogger<DebugLine>();
  logger.level = 'debug';
  const joins: string[] = [];
  let hearing = true;
  const inflight = new InflightFetches({
    logger,
    joined: (name) => joins.push(name),
    hearsAccess: () => hearing,
  });
  const fetcher: Fetcher = inflight.fetcher('tickets', base);

  beforeAll(() => subgraph.start());
  beforeEach(() => {
    joins.length = 0;
    lines.length = 0;
    hearing = true;
  });
  afterAll(async () => {
    base.close();
    await subgraph.stop();
  });

  const post = (
    headers: Record<string, string>,
    body = '{"query":"{ currentBranch { id } }"}',
    path = '/graphql',
  ) =>
    fetcher(`${subgraph.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    });

  /** Starts the fetches, waits until the subgraph holds `sent` requests, then lets it answer. */
  async function answered<T>(fetches: Promise<T>[], sent: number): Promise<PromiseSettledResult<T>[]> {
    const before = subgraph.seen.length;
    await waitUntil(() => subgraph.seen.length - before >= sent, 5_000, `${sent} requests at the subgraph`);
    subgraph.release();
    return Promise.allSettled(fetches);
  }

  it('sends one of ten identical fetches and gives each caller its own response over the one answer', async () => {
    const before = subgraph.seen.length;
    const fetches = await answered(
      inflight.sharing(() =>
        Array.from({ length: 10 }, (_, i) =>
          post({ authorization: 'Bearer key-a', 'x-request-id': `r-${i}` }),
        ),
      ),
      1,
    );
    expect(subgraph.seen.length - before).toBe(1);
    expect(subgraph.seen.at(-1)!.headers['x-request-id']).toBe('r-0');
    expect(joins).toEqual(Array.from({ length: 9 }, () => 'tickets'));
    const responses = fetches.map((settled) => (settled.status === 'fulfilled' ? settled.value : undefined));
    expect(new Set(responses).size).toBe(10);
    const bodies = await Promise.all(responses.map((response) => response!.json() as Promise<unknown>));
    expect(new Set(bodies).size).toBe(10);
    for (const body of bodies) expect(body).toEqual(bodies[0]);
    // One caller changing its answer changes nobody else's.
    (bodies[1] as { data: { echo: unknown } }).data.echo = 'changed';
    expect((bodies[2] as { data: { echo: unknown } }).data.echo).toEqual({
      query: '{ currentBranch { id } }',
    });
    expect(inflight.size).toBe(0);
  });

  it("logs at debug each joiner's request id with the leader's", async () => {
    await answered(
      inflight.sharing(() => [
        post({ authorization: 'Bearer key-a', 'x-request-id': 'leader-1' }),
        post({ authorization: 'Bearer key-a', 'x-request-id': 'follower-1' }),
      ]),
      1,
    );
    expect(lines).toEqual([
      expect.objectContaining({
        level: 20,
        subgraph: 'tickets',
        requestId: 'follower-1',
        leaderRequestId: 'leader-1',
      }),
    ]);
  });

  it('never joins fetches that differ in any header the subgraph reads, the body or the URL', async () => {
    const same = { authorization: 'Bearer key-a', 'x-request-id': 'r' };
    const sent = [...FORWARDED_HEADERS, ...GATEWAY_SET_HEADERS, INTERNAL_CREDENTIAL_HEADER].filter(
      (name) => name !== REQUEST_ID_HEADER,
    );
    const variants: { headers: Record<string, string>; body?: string; path?: string }[] = [
      { headers: same },
      ...sent.map((name) => ({ headers: { ...same, [name]: `value of ${name}` } })),
      { headers: same, body: '{"query":"{ currentBranch { name } }"}' },
      { headers: same, body: '{"query":"{ currentBranch { id } }","variables":{"a":1}}' },
      { headers: same, path: '/graphql?other' },
    ];
    const before = subgraph.seen.length;
    await answered(
      inflight.sharing(() => variants.map(({ headers, body, path }) => post(headers, body, path))),
      variants.length,
    );
    expect(subgraph.seen.length - before).toBe(variants.length);
    expect(joins).toEqual([]);
  });

  it('joins fetches that differ only in their correlation headers', () => {
    const url = 'http://127.0.0.1:1/graphql';
    const init = (extra: Record<string, string>) => ({
      method: 'POST',
      body: '{}',
      headers: { authorization: 'Bearer k', ...extra },
    });
    expect(fetchKey(url, init({ 'x-request-id': 'a', traceparent: '00-1-2-01', tracestate: 'x=1' }))).toBe(
      fetchKey(url, init({ 'x-request-id': 'b' })),
    );
    expect(fetchKey(url, init({ 'X-Branch-Id': '1' }))).toBe(fetchKey(url, init({ 'x-branch-id': '1' })));
    expect(fetchKey(url, init({ 'x-branch-id': '1' }))).not.toBe(fetchKey(url, init({ 'x-branch-id': '2' })));
    expect(fetchKey(url, init({ 'x-unknown-to-us': '1' }))).not.toBe(fetchKey(url, init({})));
  });

  it('sends every fetch made outside `sharing`', async () => {
    const before = subgraph.seen.length;
    await answered([post({ authorization: 'Bearer key-a' }), post({ authorization: 'Bearer key-a' })], 2);
    expect(subgraph.seen.length - before).toBe(2);
    expect(joins).toEqual([]);
  });

  it('keeps nothing once the answer is in: the next identical fetch is sent again', async () => {
    const before = subgraph.seen.length;
    const first = await answered(
      inflight.sharing(() => [post({ authorization: 'Bearer key-a' })]),
      1,
    );
    const second = await answered(
      inflight.sharing(() => [post({ authorization: 'Bearer key-a' })]),
      1,
    );
    expect(subgraph.seen.length - before).toBe(2);
    const answers = await Promise.all(
      [...first, ...second].map((settled) => {
        if (settled.status === 'rejected') throw settled.reason;
        return settled.value.json() as Promise<{ data: { answer: number } }>;
      }),
    );
    expect(answers[0]!.data.answer).not.toBe(answers[1]!.data.answer);
  });

  describe('an answer its subgraph declared public', () => {
    const answerOf = async (fetch: Promise<Awaited<ReturnType<Fetcher>>>) =>
      ((await (await fetch).json()) as { data: { answer: number } }).data.answer;

    it('answers identical fetches after it while its max-age lasts, then a fetch is sent again', async () => {
      const key = { authorization: 'Bearer key-a', [REQUEST_ID_HEADER]: 'r-1' };
      const before = subgraph.seen.length;
      const [first] = await answered(
        inflight.sharing(() => [post(key, undefined, '/public')]),
        1,
      );
      const held = (first as PromiseFulfilledResult<Awaited<ReturnType<Fetcher>>>).value;
      const answer = ((await held.json()) as { data: { answer: number } }).data.answer;
      const later = { ...key, [REQUEST_ID_HEADER]: 'r-2' };
      expect(await answerOf(inflight.sharing(() => post(later, undefined, '/public')))).toBe(answer);
      expect(await answerOf(inflight.sharing(() => post(later, undefined, '/public')))).toBe(answer);
      expect(subgraph.seen.length - before).toBe(1);
      expect(joins).toEqual(['tickets', 'tickets']);
      // Another credential is another request to the subgraph, public or not.
      const other = inflight.sharing(() => post({ authorization: 'Bearer key-b' }, undefined, '/public'));
      await answered([other], 1);
      expect(subgraph.seen.length - before).toBe(2);
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      const again = inflight.sharing(() => post(later, undefined, '/public'));
      await answered([again], 1);
      expect(await answerOf(again)).not.toBe(answer);
      expect(subgraph.seen.length - before).toBe(3);
    });

    it('is dropped by an access announcement', async () => {
      const key = { authorization: 'Bearer key-c' };
      const before = subgraph.seen.length;
      await answered(
        inflight.sharing(() => [post(key, undefined, '/public')]),
        1,
      );
      inflight.accessChanged();
      await answered(
        inflight.sharing(() => [post(key, undefined, '/public')]),
        1,
      );
      expect(subgraph.seen.length - before).toBe(2);
    });

    it('is never held when private, undeclared or a failure', async () => {
      for (const path of ['/private', '/graphql', '/public-broken']) {
        const before = subgraph.seen.length;
        await answered(
          inflight.sharing(() => [post({ authorization: 'Bearer key-d' }, undefined, path)]),
          1,
        );
        await answered(
          inflight.sharing(() => [post({ authorization: 'Bearer key-d' }, undefined, path)]),
          1,
        );
        expect(subgraph.seen.length - before).toBe(2);
      }
      expect(joins).toEqual([]);
    });
  });

  it('sends anew a fetch made after an access announcement, and joins later ones to that one', async () => {
    const before = subgraph.seen.length;
    const key = { authorization: 'Bearer key-a' };
    const first = inflight.sharing(() => post(key));
    await waitUntil(() => subgraph.seen.length - before === 1, 5_000, 'the first fetch');
    inflight.accessChanged();
    const second = inflight.sharing(() => post(key));
    await waitUntil(() => subgraph.seen.length - before === 2, 5_000, 'the second fetch');
    subgraph.release(1);
    await first;
    // The first one's answer leaves the second in the table: a third joins it.
    const third = inflight.sharing(() => post(key));
    subgraph.release();
    const [two, three] = await Promise.all([second, third]);
    expect(subgraph.seen.length - before).toBe(2);
    expect(joins).toEqual(['tickets']);
    expect(await three.json()).toEqual(await two.json());
  });

  it("sends anew a fetch made after its subgraph's data changed, and still joins other subgraphs' fetches", async () => {
    const billing = inflight.fetcher('billing', base);
    const before = subgraph.seen.length;
    const key = { authorization: 'Bearer key-a' };
    const postTo = (to: Fetcher) =>
      to(`${subgraph.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...key },
        body: '{"query":"{ plan { key } }"}',
      });
    const ticketsFirst = inflight.sharing(() => post(key));
    const billingFirst = inflight.sharing(() => postTo(billing));
    await waitUntil(() => subgraph.seen.length - before === 2, 5_000, 'the first fetches');
    // A live event of a ticket: a read sent before it may not answer one asked after it.
    inflight.dataChanged('tickets');
    const ticketsSecond = inflight.sharing(() => post(key));
    const billingSecond = inflight.sharing(() => postTo(billing));
    await waitUntil(() => subgraph.seen.length - before === 3, 5_000, 'the tickets fetch sent again');
    subgraph.release();
    const answers = await Promise.all([ticketsFirst, ticketsSecond, billingFirst, billingSecond]);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    // Two tickets fetches and one billing fetch reached the subgraph; the second billing one joined.
    expect(subgraph.seen.length - before).toBe(3);
    expect(joins).toEqual(['billing']);
  });

  it('clears every keyed join made from it on an access announcement, as it does its fetches', async () => {
    const lookUps = inflight.keyed<string>();
    let started = 0;
    let finish: (value: string) => void = () => undefined;
    const start = () => {
      started++;
      return new Promise<string>((resolve) => (finish = resolve));
    };
    const first = lookUps.join('token', start, () => undefined);
    expect(lookUps.join('token', start, () => undefined).value).toBe(first.value);
    inflight.accessChanged();
    const after = lookUps.join('token', start, () => undefined);
    expect(after.value).not.toBe(first.value);
    expect(started).toBe(2);
    finish('done');
    await after.value;
    expect(lookUps.size).toBe(0);
  });

  it('shares nothing while access announcements may be missed', async () => {
    hearing = false;
    const before = subgraph.seen.length;
    await answered(
      inflight.sharing(() => [
        post({ authorization: 'Bearer key-a' }),
        post({ authorization: 'Bearer key-a' }),
      ]),
      2,
    );
    expect(subgraph.seen.length - before).toBe(2);
    expect(joins).toEqual([]);
  });

  it('hands a 5xx answer to every joiner as its own response', async () => {
    const fetches = await answered(
      inflight.sharing(() => Array.from({ length: 3 }, () => post({}, '{}', '/broken'))),
      1,
    );
    expect(joins).toHaveLength(2);
    for (const settled of fetches) {
      expect(settled.status).toBe('fulfilled');
      const response = (settled as PromiseFulfilledResult<Awaited<ReturnType<Fetcher>>>).value;
      expect(response.status).toBe(502);
      expect(await response.text()).toBe('upstream down');
    }
  });

  it('rejects every joiner when the fetch times out, each with an error object of its own', async () => {
    const fetches = await answered(
      inflight.sharing(() => Array.from({ length: 3 }, () => post({}, '{}', '/silent'))),
      1,
    );
    const errors = fetches.map((settled) =>
      settled.status === 'rejected' ? (settled.reason as Error) : null,
    );
    expect(errors.every((error) => error?.message.includes('no answer within 400 ms'))).toBe(true);
    expect(new Set(errors).size).toBe(3);
    expect(errors[1]).toBeInstanceOf(errors[0]!.constructor);
    expect(inflight.size).toBe(0);
  });
});

describe('which fetches may share', () => {
  const incoming = (
    operation: 'query' | 'mutation' | 'subscription',
    query: string,
    headers: GatewayContext['headers'] = {},
  ) =>
    ({
      kind: 'incoming operation',
      request: { query },
      incomingRequestContext: { operation: { operation }, context: { headers } },
      context: { headers },
    }) as unknown as GraphQLDataSourceProcessOptions<GatewayContext>;

  it("shares a client query's query fetches only", () => {
    expect(mayShareFetch(incoming('query', 'query Q__tickets__0 { currentBranch { id } }'))).toBe(true);
    expect(mayShareFetch(incoming('query', '{ currentBranch { id } }'))).toBe(true);
  });

  it('never shares a fetch of a mutation, even an entity read after the write', () => {
    expect(mayShareFetch(incoming('mutation', 'mutation M__tickets__0 { ready(id: "1") { id } }'))).toBe(
      false,
    );
    expect(
      mayShareFetch(
        incoming(
          'mutation',
          'query M__billing__1($r: [_Any!]!) { _entities(representations: $r) { __typename } }',
        ),
      ),
    ).toBe(false);
  });

  it('never shares a fetch whose own document is a mutation or a subscription', () => {
    expect(mayShareFetch(incoming('query', 'mutation M { ready(id: "1") { id } }'))).toBe(false);
    expect(isQueryOnly('query A { a } mutation B { b }')).toBe(false);
    expect(isQueryOnly('subscription S { s }')).toBe(false);
    expect(isQueryOnly('query {')).toBe(false);
  });

  it('never shares a recheck of a credential, which must read after the announcement behind it', () => {
    const recheck = incoming('query', '{ ticketAccess(scope: READ) }', { [ACCESS_RECHECK_HEADER]: '1' });
    expect(mayShareFetch(recheck)).toBe(false);
  });

  it('never shares health checks and schema loads', () => {
    const check = {
      kind: 'health check',
      request: { query: '{ __typename }' },
      context: {},
    } as unknown as GraphQLDataSourceProcessOptions<GatewayContext>;
    expect(mayShareFetch(check)).toBe(false);
  });
});

describe('HeaderForwardingDataSource with in-flight sharing', () => {
  const subgraph = new HeldSubgraph();
  const base = subgraphFetcher(2_000);
  const joins: string[] = [];
  const inflight = new InflightFetches({
    logger: recordingLogger().logger,
    joined: (name) => joins.push(name),
    hearsAccess: () => true,
  });
  let source: HeaderForwardingDataSource;

  beforeAll(async () => {
    await subgraph.start();
    source = new HeaderForwardingDataSource(
      { url: `${subgraph.url}/graphql`, fetcher: base },
      'internal-secret-of-this-test-0000000000',
      'tickets',
      inflight,
    );
  });
  beforeEach(() => (joins.length = 0));
  afterAll(async () => {
    base.close();
    await subgraph.stop();
  });

  const process = (
    operation: 'query' | 'mutation',
    query: string,
    authorization: string,
    requestId: string,
    extra: GatewayContext['headers'] = {},
  ) => {
    const context = { headers: { authorization, 'x-request-id': requestId, ...extra } };
    return source.process({
      kind: 'incoming operation',
      request: { query, variables: {} },
      incomingRequestContext: { operation: { operation }, context },
      context,
    } as unknown as GraphQLDataSourceProcessOptions<GatewayContext>);
  };

  it("joins a client query's identical fetches and answers each with its own data", async () => {
    const before = subgraph.seen.length;
    const all = Promise.all(
      Array.from({ length: 5 }, (_, i) => process('query', '{ currentBranch { id } }', 'Bearer a', `q-${i}`)),
    );
    // The joins can be made before the one fetch reaches the subgraph: it is released once there.
    await waitUntil(
      () => joins.length === 4 && subgraph.seen.length - before === 1,
      5_000,
      'four joins, one fetch',
    );
    subgraph.release();
    const responses = await all;
    expect(subgraph.seen.length - before).toBe(1);
    expect(subgraph.seen.at(-1)!.headers['x-internal-credential']).toBe(
      'internal-secret-of-this-test-0000000000',
    );
    expect(new Set(responses.map((response) => response.data)).size).toBe(5);
  });

  it('sends each recheck of a credential', async () => {
    const before = subgraph.seen.length;
    const recheck = { [ACCESS_RECHECK_HEADER]: '1' };
    const all = Promise.all([
      process('query', '{ ticketAccess(scope: READ) }', 'Bearer a', 'c-1', recheck),
      process('query', '{ ticketAccess(scope: READ) }', 'Bearer a', 'c-2', recheck),
    ]);
    await waitUntil(() => subgraph.seen.length - before === 2, 5_000, 'two requests');
    subgraph.release();
    await all;
    expect(joins).toEqual([]);
    expect(subgraph.seen.slice(before).map((seen) => seen.headers[ACCESS_RECHECK_HEADER])).toEqual([
      '1',
      '1',
    ]);
  });

  it("sends each fetch of a mutation, and each caller's own credential", async () => {
    const before = subgraph.seen.length;
    const all = Promise.all([
      process('mutation', 'mutation { ready(id: "1") { id } }', 'Bearer a', 'm-1'),
      process('mutation', 'mutation { ready(id: "1") { id } }', 'Bearer a', 'm-2'),
      process('query', '{ currentBranch { id } }', 'Bearer a', 'q-1'),
      process('query', '{ currentBranch { id } }', 'Bearer b', 'q-2'),
    ]);
    await waitUntil(() => subgraph.seen.length - before === 4, 5_000, 'four requests');
    subgraph.release();
    await all;
    expect(joins).toEqual([]);
    expect(
      subgraph.seen
        .slice(before)
        .map((seen) => seen.headers.authorization)
        .sort(),
    ).toEqual(['Bearer a', 'Bearer a', 'Bearer a', 'Bearer b']);
  });
});
