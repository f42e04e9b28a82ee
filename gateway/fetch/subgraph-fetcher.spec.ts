import { createServer, type Server } from 'node:http';
import { freePorts } from '../../test/support/processes';
import { subgraphFetcher } from './subgraph-fetcher';
import { closeServer, loopbackUrl } from '../../test/support/loopback';

describe('subgraphFetcher against a local HTTP server', () => {
  let server: Server;
  let url: string;
  const seen: { method?: string; headers: Record<string, unknown>; body: string }[] = [];
  const fetcher = subgraphFetcher(300);

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        seen.push({ method: req.method, headers: req.headers, body });
        if (req.url === '/slow') return;
        if (req.url === '/broken') {
          res.writeHead(502, { 'content-type': 'text/plain' }).end('upstream down');
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=0' });
        res.end(JSON.stringify({ data: { echo: JSON.parse(body) as unknown } }));
      });
    });
    url = await loopbackUrl(server);
  });

  afterAll(async () => {
    fetcher.close();
    await closeServer(server);
  });

  it('POSTs the body and headers and answers like fetch', async () => {
    const response = await fetcher(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'r-1' },
      body: '{"query":"{ a }"}',
    });
    expect(response.ok).toBe(true);
    expect(response.status).toBe(200);
    expect(response.headers.get('Content-Type')).toBe('application/json');
    expect(await response.json()).toEqual({ data: { echo: { query: '{ a }' } } });
    expect(seen.at(-1)).toMatchObject({ method: 'POST', headers: { 'x-request-id': 'r-1' } });
  });

  it('hands a non-2xx answer over with its status and text', async () => {
    const response = await fetcher(`${url}/broken`, { method: 'POST', body: '{}' });
    expect(response.ok).toBe(false);
    expect(response.status).toBe(502);
    expect(response.statusText).toBe('Bad Gateway');
    expect(await response.clone().text()).toBe('upstream down');
    await expect(response.json()).rejects.toThrow(SyntaxError);
  });

  it('rejects, naming the URL, when nothing listens', async () => {
    const [port] = await freePorts(1);
    await expect(fetcher(`http://127.0.0.1:${port}/graphql`, { method: 'POST', body: '{}' })).rejects.toThrow(
      `http://127.0.0.1:${port}/graphql unreachable`,
    );
  });

  it('gives up on an answer that takes longer than its timeout', async () => {
    await expect(fetcher(`${url}/slow`, { method: 'POST', body: '{}' })).rejects.toThrow(
      'no answer within 300 ms',
    );
  });

  it('refuses anything but POST', async () => {
    await expect(fetcher(`${url}/graphql`, { method: 'GET' })).rejects.toThrow('only POST is sent, not GET');
  });
});
