import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, get, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import express from 'express';
import { recordingLogger } from '../../test/support/recording-logger';
import { EXPLORER_MANIFEST, readExplorerBundle, type ExplorerBundle } from './explorer-bundle';
import { mountExplorer } from './explorer-route';
import { closeServer, loopbackUrl } from '../../test/support/loopback';

const BROWSER_ACCEPT =
  'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8';

/** The explorer mounted in front of a stand-in for Apollo that says it was reached. */
async function serve(bundle: ExplorerBundle | undefined): Promise<{ url: string; server: Server }> {
  const app = express();
  mountExplorer(app, bundle, recordingLogger().logger);
  app.use('/graphql', (_req, res) => void res.status(400).json({ reachedApollo: true }));
  const server = createServer(app);
  return { url: await loopbackUrl(server), server };
}

async function stop(server: Server): Promise<void> {
  await closeServer(server);
}

describe('the explorer’s route in front of /graphql', () => {
  let dir: string;
  let bundle: ExplorerBundle;
  let url: string;
  let server: Server;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'explorer-'));
    const files = { 'explorer-AB12.js': 'console.log(1);', 'explorer-CD34.css': 'body{margin:0}' };
    for (const [name, body] of Object.entries(files)) {
      await writeFile(join(dir, name), body);
      await writeFile(join(dir, `${name}.gz`), gzipSync(body));
    }
    await writeFile(
      join(dir, EXPLORER_MANIFEST),
      JSON.stringify({ script: 'explorer-AB12.js', style: 'explorer-CD34.css' }),
    );
    bundle = (await readExplorerBundle(dir))!;
    ({ url, server } = await serve(bundle));
  });

  afterAll(async () => {
    await stop(server);
    await rm(dir, { recursive: true, force: true });
  });

  it('reads no bundle where none was built', async () => {
    expect(await readExplorerBundle(join(dir, 'missing'))).toBeUndefined();
  });

  const link = `?query=${encodeURIComponent('{ plans { key } }')}`;

  it.each([
    ['a browser', 'the explorer', 'GET', '', BROWSER_ACCEPT],
    ['a browser following a ?query= link', 'the explorer', 'GET', link, BROWSER_ACCEPT],
    ['a client asking for JSON', 'Apollo', 'GET', link, 'application/json'],
    ['a client asking for JSON before HTML', 'Apollo', 'GET', '', 'application/json, text/html'],
    ['a client asking for anything', 'Apollo', 'GET', link, '*/*'],
    ['a client naming nothing', 'Apollo', 'GET', '', undefined],
    ['a browser posting', 'Apollo', 'POST', '', BROWSER_ACCEPT],
  ])('sends %s to %s', async (_who, expected, method, search, accept) => {
    const response = await fetch(`${url}/graphql${search}`, {
      method,
      headers: accept === undefined ? {} : { accept },
      ...(method === 'POST' ? { body: '{}' } : {}),
    });
    const body = await response.text();
    if (expected === 'the explorer') {
      expect(response.status).toBe(200);
      expect(body).toContain('<script defer src="/graphql/explorer/explorer-AB12.js"></script>');
    } else {
      expect(JSON.parse(body)).toEqual({ reachedApollo: true });
    }
  });

  /** The policy the page is sent with for a Host header fetch() would not let a test set. */
  const policyFor = (host: string) =>
    new Promise<string | undefined>((resolve, reject) => {
      get(`${url}/graphql`, { headers: { host, accept: BROWSER_ACCEPT } }, (response) => {
        response.resume();
        const policy = response.headers['content-security-policy'];
        resolve(typeof policy === 'string' ? policy : undefined);
      }).on('error', reject);
    });

  it('answers the page with a fresh nonce each time, uncached, varying by Accept', async () => {
    const first = await fetch(`${url}/graphql`, { headers: { accept: BROWSER_ACCEPT } });
    const second = await fetch(`${url}/graphql`, { headers: { accept: BROWSER_ACCEPT } });
    const nonceOf = (response: Response) =>
      /'nonce-([^']+)'/.exec(response.headers.get('content-security-policy') ?? '')?.[1];
    expect(nonceOf(first)).toMatch(/^[A-Za-z0-9+/]{22}==$/);
    expect(nonceOf(first)).not.toBe(nonceOf(second));
    expect(await first.text()).toContain(`<meta property="csp-nonce" nonce="${nonceOf(first)}" />`);
    expect(first.headers.get('cache-control')).toBe('no-store');
    expect(first.headers.get('vary')).toBe('Accept');
    await second.arrayBuffer();
  });

  it('lets the page open graphql-ws on the host it was asked by, and writes no other host into its policy', async () => {
    expect(await policyFor('q.example:4000')).toContain(
      "connect-src 'self' ws://q.example:4000 wss://q.example:4000;",
    );
    expect(await policyFor('[::1]:4000')).toContain("connect-src 'self' ws://[::1]:4000 wss://[::1]:4000;");
    expect(await policyFor("evil.example; script-src 'unsafe-inline'")).toContain("connect-src 'self';");
  });

  it('serves the bundle’s files immutable and gzipped when asked, and 404 for any other name', async () => {
    const script = await fetch(`${url}/graphql/explorer/explorer-AB12.js`);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(script.headers.get('content-encoding')).toBe('gzip');
    expect(script.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(await script.text()).toBe('console.log(1);');
    const style = await fetch(`${url}/graphql/explorer/explorer-CD34.css`, {
      headers: { 'accept-encoding': 'identity' },
    });
    expect(style.headers.get('content-encoding')).toBeNull();
    expect(await style.text()).toBe('body{margin:0}');
    for (const name of ['manifest.json', 'explorer-AB12.js.gz', '..%2Fexplorer-AB12.js']) {
      const missing = await fetch(`${url}/graphql/explorer/${name}`);
      expect(missing.status).toBe(404);
      await missing.arrayBuffer();
    }
  });

  it('says how to build the explorer when it was not built, and leaves other clients to Apollo', async () => {
    const unbuilt = await serve(undefined);
    try {
      const page = await fetch(`${unbuilt.url}/graphql`, { headers: { accept: BROWSER_ACCEPT } });
      expect(page.status).toBe(503);
      expect(await page.text()).toMatch(/npm run build/);
      const json = await fetch(`${unbuilt.url}/graphql`, { headers: { accept: 'application/json' } });
      expect(await json.json()).toEqual({ reachedApollo: true });
    } finally {
      await stop(unbuilt.server);
    }
  });
});
