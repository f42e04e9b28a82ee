import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Request } from 'express';
import { InflightJoin } from '../common/inflight-join';
import type { JsonHttpAnswer } from '../common/json-http';
import { waitUntil } from '../test/support/wait';
import { GraphClient, operation } from './graph-client';
import { closeServer, loopbackUrl } from '../test/support/loopback';

/** The gateway's stand-in: holds each call until released, then answers who asked and what. */
class HeldGateway {
  private server?: Server;
  private held: { req: IncomingMessage; body: string; res: ServerResponse }[] = [];
  received: { headers: IncomingMessage['headers']; body: string }[] = [];
  /** Answer PERSISTED_QUERY_NOT_FOUND to a call without its document, as a gateway new to it does. */
  unknownHashes = false;
  url = '';

  async start(): Promise<void> {
    const server = (this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        this.received.push({ headers: req.headers, body });
        this.held.push({ req, body, res });
      });
    }));
    this.url = `${await loopbackUrl(server)}/graphql`;
  }

  release(): void {
    for (const { req, body, res } of this.held.splice(0)) {
      res.writeHead(200, { 'content-type': 'application/json' });
      if (this.unknownHashes && !body.includes('"query"')) {
        res.end(
          JSON.stringify({
            errors: [{ message: 'nope', extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } }],
          }),
        );
      } else {
        res.end(JSON.stringify({ data: { who: req.headers.authorization ?? null } }));
      }
    }
  }

  async stop(): Promise<void> {
    if (this.server !== undefined) await closeServer(this.server);
  }
}

const WHO = operation<{ who: string | null }, { id: number }>('Who', 'query Who($id: Int!) { who(id: $id) }');
const WRITE = operation<{ who: string | null }, { id: number }>(
  'Write',
  'mutation Write($id: Int!) { who(id: $id) }',
);

function caller(authorization: string, requestId: string): Request {
  return { headers: { authorization, 'x-request-id': requestId } } as unknown as Request;
}

describe('GraphClient sharing identical reads in flight', () => {
  const gateway = new HeldGateway();
  let hearing = true;
  let reads: InflightJoin<JsonHttpAnswer>;
  let client: GraphClient;

  beforeAll(() => gateway.start());
  afterAll(() => gateway.stop());
  beforeEach(() => {
    hearing = true;
    gateway.unknownHashes = false;
    reads = new InflightJoin<JsonHttpAnswer>(() => hearing);
    client = new GraphClient(gateway.url, 5_000, 'internal-secret-for-the-test-0123456789', reads);
  });
  afterEach(() => client.close());

  async function calls<T>(sent: number, work: () => Promise<T>[]): Promise<{ answers: T[]; sent: number }> {
    const before = gateway.received.length;
    const answers = work();
    await waitUntil(() => gateway.received.length - before >= sent, 5_000, `${sent} calls at the gateway`);
    // Anything more that would be sent is sent by now.
    await new Promise((resolve) => setTimeout(resolve, 50));
    gateway.release();
    return { answers: await Promise.all(answers), sent: gateway.received.length - before };
  }

  it('sends one call for identical reads of one credential, whatever their request ids', async () => {
    const { answers, sent } = await calls(1, () => [
      client.execute(WHO, { id: 1 }, caller('Bearer key-a', 'r1')),
      client.execute(WHO, { id: 1 }, caller('Bearer key-a', 'r2')),
      client.execute(WHO, { id: 1 }, caller('Bearer key-a', 'r3')),
    ]);
    expect(sent).toBe(1);
    expect(answers).toEqual([{ who: 'Bearer key-a' }, { who: 'Bearer key-a' }, { who: 'Bearer key-a' }]);
    // Each caller has its own object.
    expect(new Set(answers).size).toBe(3);
  });

  it('never joins two credentials, nor two sets of variables', async () => {
    const { answers, sent } = await calls(3, () => [
      client.execute(WHO, { id: 1 }, caller('Bearer key-a', 'r1')),
      client.execute(WHO, { id: 1 }, caller('Bearer key-b', 'r2')),
      client.execute(WHO, { id: 2 }, caller('Bearer key-a', 'r3')),
    ]);
    expect(sent).toBe(3);
    expect(answers).toEqual([{ who: 'Bearer key-a' }, { who: 'Bearer key-b' }, { who: 'Bearer key-a' }]);
  });

  it('sends every mutation', async () => {
    const { sent } = await calls(2, () => [
      client.execute(WRITE, { id: 1 }, caller('Bearer key-a', 'r1')),
      client.execute(WRITE, { id: 1 }, caller('Bearer key-a', 'r2')),
    ]);
    expect(sent).toBe(2);
  });

  it('shares nothing while access announcements may be missed', async () => {
    hearing = false;
    const { sent } = await calls(2, () => [
      client.execute(WHO, { id: 1 }, caller('Bearer key-a', 'r1')),
      client.execute(WHO, { id: 1 }, caller('Bearer key-a', 'r2')),
    ]);
    expect(sent).toBe(2);
  });

  it('sends anew a read made after an access announcement', async () => {
    const before = gateway.received.length;
    const first = client.execute(WHO, { id: 1 }, caller('Bearer key-a', 'r1'));
    await waitUntil(() => gateway.received.length - before === 1, 5_000, 'the first call');
    reads.forgetUnderWay();
    const second = client.execute(WHO, { id: 1 }, caller('Bearer key-a', 'r2'));
    await waitUntil(() => gateway.received.length - before === 2, 5_000, 'the second call');
    gateway.release();
    await Promise.all([first, second]);
    expect(gateway.received.length - before).toBe(2);
  });

  it('joins the document sent after an unknown hash too', async () => {
    gateway.unknownHashes = true;
    const before = gateway.received.length;
    const answers = [
      client.execute(WHO, { id: 1 }, caller('Bearer key-a', 'r1')),
      client.execute(WHO, { id: 1 }, caller('Bearer key-a', 'r2')),
    ];
    await waitUntil(() => gateway.received.length - before === 1, 5_000, 'the call by hash');
    gateway.release();
    await waitUntil(() => gateway.received.length - before === 2, 5_000, 'the call with the document');
    gateway.unknownHashes = false;
    gateway.release();
    expect(await Promise.all(answers)).toEqual([{ who: 'Bearer key-a' }, { who: 'Bearer key-a' }]);
    expect(gateway.received.length - before).toBe(2);
  });
});
