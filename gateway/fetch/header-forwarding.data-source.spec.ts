import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { RemoteGraphQLDataSource, type GraphQLDataSourceProcessOptions } from '@apollo/gateway';
import { INTERNAL_CREDENTIAL_HEADER } from '../../common/internal-credential';
import { cacheHintOf, type SubgraphCacheHint } from './cache-hint';
import { FORWARDED_HEADERS, GATEWAY_SET_HEADERS, type GatewayContext } from '../context';
import { HeaderForwardingDataSource } from './header-forwarding.data-source';
import { subgraphFetcher } from './subgraph-fetcher';
import { closeServer, loopbackUrl } from '../../test/support/loopback';

const SECRET = 'internal-secret-of-this-test-0000000000';

/**
 * The data source as it was built on Apollo's own `process` (headers set in `willSendRequest`):
 * what the platform's data source must still do, fetch for fetch.
 */
class OnApolloProcess extends RemoteGraphQLDataSource<GatewayContext> {
  override willSendRequest({ request, context }: GraphQLDataSourceProcessOptions<GatewayContext>): void {
    if (request.http === undefined) return;
    request.http.headers.set(INTERNAL_CREDENTIAL_HEADER, SECRET);
    const headers = 'headers' in context ? (context as GatewayContext).headers : undefined;
    if (headers === undefined) return;
    for (const name of [...FORWARDED_HEADERS, ...GATEWAY_SET_HEADERS]) {
      const value = headers[name];
      if (value !== undefined) request.http.headers.set(name, value);
    }
  }
}

/** Answers by path, as a subgraph, a broken subgraph or something else on its port would. */
const ANSWERS: Record<string, { status: number; headers: Record<string, string>; body: string }> = {
  '/public': {
    status: 200,
    headers: { 'content-type': 'application/json', 'cache-control': 'max-age=60, public' },
    body: '{"data":{"plans":[{"id":"p1"}]}}',
  },
  '/private': {
    status: 200,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'private, max-age="5"' },
    body: '{"data":{"me":{"id":"u1"}}}',
  },
  '/uncached': { status: 200, headers: { 'content-type': 'application/json' }, body: '{"data":{"a":1}}' },
  '/errors': {
    status: 200,
    headers: { 'content-type': 'application/graphql-response+json', 'cache-control': 'no-store' },
    body: '{"data":null,"errors":[{"message":"Ticket not found","extensions":{"code":"NOT_FOUND"}}]}',
  },
  '/unauthenticated': {
    status: 401,
    headers: { 'content-type': 'application/json' },
    body: '{"errors":[{"message":"no credential"}]}',
  },
  '/forbidden': { status: 403, headers: { 'content-type': 'text/plain' }, body: 'forbidden' },
  '/down': { status: 503, headers: { 'content-type': 'text/html' }, body: '<h1>down</h1>' },
  '/text': { status: 200, headers: { 'content-type': 'text/plain' }, body: 'not json' },
  '/array': { status: 200, headers: { 'content-type': 'application/json' }, body: '[1,2]' },
  '/garbled': { status: 200, headers: { 'content-type': 'application/json' }, body: '{"data":' },
  '/garbled-error': { status: 502, headers: { 'content-type': 'application/json' }, body: '<html>' },
  '/untyped': { status: 200, headers: {}, body: '{"data":{"a":2}}' },
};

interface Seen {
  body: string;
  headers: IncomingHttpHeaders;
}

/** What a data source did with one answer: what the subgraph was sent, and what came of it. */
interface Outcome {
  sent: Seen;
  result?: unknown;
  error?: { name: string; message: string; extensions?: unknown };
  hints: SubgraphCacheHint[];
}

describe('HeaderForwardingDataSource beside the same data source on Apollo’s process', () => {
  let server: Server;
  let url: string;
  let seen: Seen[] = [];
  const fetcher = subgraphFetcher(2_000);

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        seen.push({ body, headers: req.headers });
        const answer = ANSWERS[req.url ?? ''] ?? ANSWERS['/uncached']!;
        res.writeHead(answer.status, answer.headers).end(answer.body);
      });
    });
    url = await loopbackUrl(server);
  });

  afterAll(async () => {
    fetcher.close();
    await closeServer(server);
  });

  async function outcome(
    source: RemoteGraphQLDataSource<GatewayContext>,
    kind: 'incoming operation' | 'health check',
    context: Partial<GatewayContext>,
  ): Promise<Outcome> {
    seen = [];
    const hints: SubgraphCacheHint[] = [];
    const request = {
      query: 'query Q($id: ID!) { ticket(id: $id) { id status } }',
      variables: { id: 't-1', note: 'قائمة "x"' },
      operationName: 'Q',
    };
    const options = (kind === 'incoming operation'
      ? {
          kind,
          request,
          context,
          incomingRequestContext: {
            context,
            overallCachePolicy: { restrict: (hint: SubgraphCacheHint) => hints.push(hint) },
          },
        }
      : { kind, request, context }) as unknown as GraphQLDataSourceProcessOptions<GatewayContext>;
    const done: Omit<Outcome, 'sent'> = { hints };
    try {
      const { http, ...result } = await source.process(options);
      expect(http?.headers.get('content-type')).toBe(seenAnswer(source).headers['content-type'] ?? null);
      done.result = result;
    } catch (error) {
      const { name, message, extensions } = error as Error & { extensions?: unknown };
      done.error = { name, message, extensions: JSON.parse(JSON.stringify(extensions ?? null)) as unknown };
    }
    expect(seen).toHaveLength(1);
    const { host: _host, connection: _connection, ...headers } = seen[0]!.headers;
    return { sent: { body: seen[0]!.body, headers }, ...done };
  }

  function seenAnswer(source: RemoteGraphQLDataSource<GatewayContext>) {
    return ANSWERS[new URL(source.url).pathname]!;
  }

  const client: Partial<GatewayContext> = {
    headers: {
      authorization: 'Bearer tk_a',
      'x-request-id': 'r-1',
      'accept-language': 'ar',
      'x-branch-id': 'b-1',
      'x-session-user': 'u-1',
      cookie: 'never=forwarded',
      'x-unknown': 'never forwarded',
    },
  };

  it.each(Object.keys(ANSWERS))(
    'sends the same and comes to the same for an answer like %s',
    async (path) => {
      for (const [kind, context] of [
        ['incoming operation', client],
        // An entity fetch during planning: no client headers.
        ['incoming operation', {}],
        ['health check', {}],
      ] as const) {
        const stock = await outcome(new OnApolloProcess({ url: `${url}${path}`, fetcher }), kind, context);
        const ours = await outcome(
          new HeaderForwardingDataSource({ url: `${url}${path}`, fetcher }, SECRET, 'tickets'),
          kind,
          context,
        );
        expect(ours).toEqual(stock);
        expect(ours.sent.headers[INTERNAL_CREDENTIAL_HEADER]).toBe(SECRET);
      }
    },
  );

  it('forwards exactly the client headers a subgraph needs', async () => {
    const ours = await outcome(
      new HeaderForwardingDataSource({ url: `${url}/uncached`, fetcher }, SECRET, 'tickets'),
      'incoming operation',
      client,
    );
    expect(Object.keys(ours.sent.headers).sort()).toEqual(
      [
        'accept',
        'accept-language',
        'authorization',
        'content-length',
        'content-type',
        INTERNAL_CREDENTIAL_HEADER,
        'x-branch-id',
        'x-request-id',
        'x-session-user',
      ].sort(),
    );
  });

  it('tells afterWrite of each write it sent once that has settled, answered or not, and of no read', async () => {
    const writes: number[] = [];
    const send = (path: string, query: string) => {
      const source = new HeaderForwardingDataSource(
        { url: `${url}${path}`, fetcher },
        SECRET,
        'identity',
        undefined,
        () => writes.push(seen.length),
      );
      const options = {
        kind: 'incoming operation',
        request: { query },
        context: client,
        incomingRequestContext: { context: client },
      };
      return source.process(options as unknown as GraphQLDataSourceProcessOptions<GatewayContext>).then(
        () => 'answered',
        () => 'failed',
      );
    };
    seen = [];
    expect(await send('/uncached', 'mutation { signOut }')).toBe('answered');
    expect(await send('/down', 'mutation { signOut }')).toBe('failed');
    expect(await send('/uncached', '{ viewer { id } }')).toBe('answered');
    expect(await send('/uncached', 'query { viewer { id } }')).toBe('answered');
    // Each after the subgraph had the write: the first after one request, the second after two.
    expect(writes).toEqual([1, 2]);
  });

  it('reads Cache-Control as Apollo does', () => {
    expect(cacheHintOf(null)).toEqual({ maxAge: 0 });
    expect(cacheHintOf(' public ,  max-age = 30 ')).toEqual({ maxAge: 30, scope: 'PUBLIC' });
    expect(cacheHintOf('max-age=abc, private')).toEqual({ maxAge: 0, scope: 'PRIVATE' });
    expect(cacheHintOf('max-age="12"')).toEqual({ maxAge: 12 });
  });
});
