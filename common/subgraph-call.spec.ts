import { createServer, type IncomingMessage, type Server } from 'node:http';
import { closeServer, loopbackUrl } from '../test/support/loopback';
import { INTERNAL_CREDENTIAL_HEADER } from './internal-credential';
import { REQUEST_ID_HEADER } from './request-context';
import { SubgraphClient } from './subgraph-call';

/** A subgraph stand-in: answers whatever the test sets, and keeps what each call sent. */
describe('SubgraphClient against a local HTTP server', () => {
  let server: Server;
  let url: string;
  let answer: { status: number; body: string } = { status: 200, body: '{}' };
  const received: { headers: IncomingMessage['headers']; body: string }[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
      });
    });
    url = `${await loopbackUrl(server)}/graphql`;
  });
  afterAll(() => closeServer(server));
  beforeEach(() => {
    received.length = 0;
  });

  it('sends the query and variables as JSON with the platform credential and the request id, and answers data', async () => {
    answer = { status: 200, body: JSON.stringify({ data: { plan: { code: 'growth' } } }) };
    const client = new SubgraphClient(url, 'the-internal-secret');
    await expect(
      client.call(
        'reading a plan',
        'query P($id: ID!) { plan(id: $id) { code } }',
        { id: '7' },
        { requestId: 'req-1' },
      ),
    ).resolves.toEqual({ plan: { code: 'growth' } });
    expect(received).toHaveLength(1);
    expect(JSON.parse(received[0]!.body)).toEqual({
      query: 'query P($id: ID!) { plan(id: $id) { code } }',
      variables: { id: '7' },
    });
    expect(received[0]!.headers[INTERNAL_CREDENTIAL_HEADER]).toBe('the-internal-secret');
    expect(received[0]!.headers[REQUEST_ID_HEADER]).toBe('req-1');
    expect(received[0]!.headers['content-type']).toBe('application/json');
  });

  it('names what was asked when the subgraph answers a GraphQL error, no data, null or no JSON', async () => {
    const client = new SubgraphClient(url, 'secret');
    answer = { status: 200, body: JSON.stringify({ data: null, errors: [{ message: 'No such plan' }] }) };
    await expect(client.call('reading a plan', '{ plan }', {})).rejects.toThrow(
      'reading a plan failed: No such plan',
    );
    answer = { status: 503, body: JSON.stringify({}) };
    await expect(client.call('reading a plan', '{ plan }', {})).rejects.toThrow(
      'reading a plan failed: HTTP 503',
    );
    answer = { status: 200, body: 'null' };
    await expect(client.call('reading a plan', '{ plan }', {})).rejects.toThrow(
      'reading a plan failed: HTTP 200',
    );
    answer = { status: 502, body: '<html>bad gateway</html>' };
    await expect(client.call('reading a plan', '{ plan }', {})).rejects.toThrow(
      'reading a plan failed: HTTP 502 with a body that is not JSON',
    );
  });

  it('rejects when nothing answers at the address, and when the answer does not come in time', async () => {
    const idle = createServer(() => undefined);
    const idleUrl = await loopbackUrl(idle);
    await closeServer(idle);
    await expect(new SubgraphClient(idleUrl, 'secret').call('asking', '{ a }', {})).rejects.toThrow(
      /unreachable/,
    );

    const silent = createServer(() => undefined);
    const silentUrl = await loopbackUrl(silent);
    try {
      await expect(new SubgraphClient(silentUrl, 'secret', 200).call('asking', '{ a }', {})).rejects.toThrow(
        /no answer within 200 ms/,
      );
    } finally {
      await closeServer(silent);
    }
  });
});
