/// <reference lib="dom" />
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, type HTTPResponse, type Page } from 'puppeteer-core';
import { launchChromium } from '../support/chromium';
import { projectRoot } from '../../common/paths';
import {
  EXPLORER_BUILD_DIR,
  EXPLORER_MANIFEST,
  type ExplorerManifest,
} from '../../gateway/explorer/explorer-bundle';
import { startGateway } from '../../gateway/gateway';
import { startEvents, type RunningEvents } from '../../subgraphs/tickets/events/events';
import { createTestDatabase, testConfig, type TestDatabase } from '../support/database';
import { askGraph, bearer, graphData } from '../support/graph';
import { newTicketBranch, startPlatform, type Platform, type TicketBranch } from '../support/platform';
import { waitUntil } from '../support/wait';

const ARTIFACTS = join(projectRoot(), 'test-artifacts');

/** Chromium's own Accept for a page it navigates to. */
const BROWSER_ACCEPT =
  'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8';

/** GraphiQL's editors are CodeMirror 5, which hangs its instance on its element. */
type CodeMirrorElement = Element & { CodeMirror: { setValue(text: string): void; getValue(): string } };

const QUERY_EDITOR = '.graphiql-query-editor .CodeMirror';
const HEADERS_EDITOR = '.graphiql-editor-tool .graphiql-editor:not(.hidden) .CodeMirror';
const RESULT = '.graphiql-response .CodeMirror';

/** What a page asked for and what Chromium reported going wrong in it. */
interface Recorded {
  requests: { url: string; method: string; headers: Record<string, string>; body?: string }[];
  sockets: string[];
  framesSent: string[];
  problems: string[];
}

/** A page in a browser context of its own: no storage shared with another test, no connection left open. */
interface RecordedPage {
  page: Page;
  recorded: Recorded;
  /** Requests that went to any origin but `own`: what the explorer must never make. */
  elsewhere(): string[];
  close(): Promise<void>;
}

describe('the gateway’s GraphQL explorer in real headless Chromium', () => {
  let database: TestDatabase;
  let platform: Platform;
  let events: RunningEvents;
  let branch: TicketBranch;
  let browser: Browser;
  let origin: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    platform = await startPlatform(database);
    events = await startEvents(platform.config);
    branch = await newTicketBranch(platform.config);
    origin = new URL(platform.gatewayUrl).origin;
    browser = await launchChromium(platform.config.render.chromiumPath);
    mkdirSync(ARTIFACTS, { recursive: true });
  });

  afterAll(async () => {
    await browser?.close();
    await events?.stop();
    await platform?.stop();
    await database.drop();
  });

  const subscribers = async () => {
    const response = await fetch(`${origin}/healthz`);
    return ((await response.json()) as { subscribers: number }).subscribers;
  };

  /**
   * A page that lets through only requests to `own` and aborts the rest, recording all of them, the
   * sockets it opens and the frames it sends on them, and every CSP violation or uncaught error.
   * data: URLs (GraphiQL's inlined fonts and icons) go nowhere and are not recorded.
   */
  async function recordedPage(own = origin): Promise<RecordedPage> {
    const context = await browser.createBrowserContext();
    const page = await context.newPage();
    await page.setViewport({ width: 1280, height: 800, deviceScaleFactor: 1 });
    const recorded: Recorded = { requests: [], sockets: [], framesSent: [], problems: [] };
    await page.setRequestInterception(true);
    page.on('request', (request) => {
      const url = request.url();
      if (url.startsWith('data:')) {
        void request.continue();
        return;
      }
      recorded.requests.push({
        url,
        method: request.method(),
        headers: request.headers(),
        body: request.postData(),
      });
      if (new URL(url).origin === own) void request.continue();
      else void request.abort('blockedbyclient');
    });
    // Puppeteer's interception does not see WebSockets; DevTools' network events do.
    const devtools = await page.createCDPSession();
    await devtools.send('Network.enable');
    devtools.on('Network.webSocketCreated', (event) => recorded.sockets.push(event.url));
    devtools.on('Network.webSocketFrameSent', (event) =>
      recorded.framesSent.push(event.response.payloadData),
    );
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) recorded.problems.push(message.text());
    });
    page.on('pageerror', (error) => recorded.problems.push(String(error)));
    return {
      page,
      recorded,
      elsewhere: () => recorded.requests.map(({ url }) => url).filter((url) => new URL(url).origin !== own),
      // Chromium keeps a spare connection open that has sent no request, which a gateway's drain
      // would wait out to its timeout; closing the context drops it.
      close: () => context.close(),
    };
  }

  /** Opens the explorer and waits until GraphiQL has the schema from the gateway's introspection. */
  async function openExplorer(url = platform.gatewayUrl): Promise<RecordedPage & { response: HTTPResponse }> {
    const opened = await recordedPage();
    const introspected = opened.page.waitForResponse(
      (reply) =>
        reply.url() === platform.gatewayUrl &&
        (reply.request().postData() ?? '').includes('IntrospectionQuery'),
    );
    const response = await opened.page.goto(url, { waitUntil: 'load' });
    if (response === null) throw new Error(`no response for ${url}`);
    expect(response.status()).toBe(200);
    const introspection = await introspected;
    expect(introspection.status()).toBe(200);
    expect(((await introspection.json()) as { data?: { __schema?: unknown } }).data?.__schema).toBeDefined();
    await opened.page.waitForSelector(QUERY_EDITOR);
    return { ...opened, response };
  }

  const setEditor = (page: Page, selector: string, text: string) =>
    page.$eval(selector, (element, value) => (element as CodeMirrorElement).CodeMirror.setValue(value), text);

  const editorText = (page: Page, selector: string) =>
    page.$eval(selector, (element) => (element as CodeMirrorElement).CodeMirror.getValue());

  /** Waits until the result pane differs from `before` and shows `expected`; answers its text. */
  async function resultShowing(page: Page, before: string, expected: string): Promise<string> {
    await page.waitForFunction(
      (selector, previous, text) => {
        const shown = document.querySelector<CodeMirrorElement>(selector)?.CodeMirror.getValue();
        return shown !== undefined && shown !== previous && shown.includes(text);
      },
      { timeout: 10_000, polling: 100 },
      RESULT,
      before,
      expected,
    );
    return editorText(page, RESULT);
  }

  /** Runs `query` from the query editor, as the ▶ button does, and answers the result pane's JSON. */
  async function run<T>(page: Page, query: string, expected: string): Promise<T> {
    const before = await editorText(page, RESULT);
    await setEditor(page, QUERY_EDITOR, query);
    await page.click('.graphiql-execute-button');
    return JSON.parse(await resultShowing(page, before, expected)) as T;
  }

  async function sendHeaders(page: Page, headers: Record<string, string>): Promise<void> {
    await page.click('.graphiql-editor-tools [data-name="headers"]');
    await setEditor(page, HEADERS_EDITOR, JSON.stringify(headers));
  }

  it('serves GraphiQL from the gateway’s own origin only, under a policy that allows nothing else', async () => {
    const { page, recorded, response, elsewhere, close } = await openExplorer();
    try {
      const csp = response.headers()['content-security-policy'] ?? '';
      const host = new URL(origin).host;
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("script-src 'self';");
      expect(csp).toContain(`connect-src 'self' ws://${host} wss://${host}`);
      expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|https?:\/\//);
      expect(response.headers()['cache-control']).toBe('no-store');
      // Every script is a file of the gateway's; none is written into the page.
      expect((await response.text()).match(/<script\b[^>]*>/g)).toEqual([
        expect.stringMatching(/^<script defer src="\/graphql\/explorer\/explorer-\w+\.js">$/),
      ]);
      // A Radix dialog adds its scroll lock's <style>, which only the page's nonce admits.
      await page.click('[aria-label="Open settings dialog"]');
      await page.waitForSelector('[role="dialog"]');
      await page.keyboard.press('Escape');

      expect(recorded.requests.map(({ url }) => new URL(url).pathname)).toEqual(
        expect.arrayContaining([
          '/graphql',
          expect.stringMatching(/^\/graphql\/explorer\/explorer-\w+\.js$/),
          expect.stringMatching(/^\/graphql\/explorer\/explorer-\w+\.css$/),
        ]),
      );
      expect(elsewhere()).toEqual([]);
      expect(recorded.problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('runs a query and shows its data, then sends the headers editor’s Authorization', async () => {
    const { page, recorded, elsewhere, close } = await openExplorer();
    try {
      const plans = await run<{ data: { plans: { key: string }[] } }>(
        page,
        '{ plans(product: TICKETS) { key name } }',
        '"plans"',
      );
      expect(plans.data.plans.map((plan) => plan.key)).toContain('growth');
      await page.screenshot({ path: join(ARTIFACTS, 'explorer.png') });

      const refused = await run<{ errors: { extensions?: { code?: string } }[] }>(
        page,
        '{ currentBranch { id name } }',
        '"errors"',
      );
      expect(refused.errors[0]?.extensions?.code).toBe('UNAUTHENTICATED');
      await sendHeaders(page, { Authorization: `Bearer ${branch.key}` });
      const current = await run<{ data: { currentBranch: unknown } }>(
        page,
        '{ currentBranch { id name } }',
        '"Counter 1"',
      );
      expect(current.data.currentBranch).toEqual({ id: String(branch.branchId), name: 'Counter 1' });

      const sent = recorded.requests.filter(
        ({ method, body }) => method === 'POST' && body?.includes('currentBranch'),
      );
      expect(sent.map(({ headers }) => headers.authorization)).toEqual([undefined, `Bearer ${branch.key}`]);
      expect(elsewhere()).toEqual([]);
      expect(recorded.problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('subscribes over graphql-ws on /graphql with the editor’s headers, and shows the ticket going ready', async () => {
    const created = await graphData<{ createTicket: { ticket: { id: string; token: string } } }>(
      platform.gatewayUrl,
      'mutation ($input: CreateTicketInput!) { createTicket(input: $input) { ticket { id token } } }',
      { input: { number: 'E-7' } },
      bearer(branch.key),
    );
    const { id, token } = created.createTicket.ticket;
    const { page, recorded, elsewhere, close } = await openExplorer();
    try {
      await sendHeaders(page, { Authorization: `Bearer ${branch.key}` });
      await setEditor(
        page,
        QUERY_EDITOR,
        `subscription { ticketUpdated(token: "${token}") { number status } }`,
      );
      const before = await subscribers();
      const shownBefore = await editorText(page, RESULT);
      await page.click('.graphiql-execute-button');
      await waitUntil(async () => (await subscribers()) > before, 10_000, 'the explorer’s subscription');

      const ready = await askGraph(
        platform.gatewayUrl,
        'mutation ($id: ID!) { markTicketReady(id: $id) { status } }',
        { id },
        bearer(branch.key),
      );
      expect(ready.data).toEqual({ markTicketReady: { status: 'READY' } });
      expect(JSON.parse(await resultShowing(page, shownBefore, 'READY'))).toEqual({
        data: { ticketUpdated: { number: 'E-7', status: 'READY' } },
      });

      expect(recorded.sockets).toEqual([`ws://${new URL(origin).host}/graphql`]);
      const init = recorded.framesSent
        .map((frame) => JSON.parse(frame) as { type: string; payload?: Record<string, unknown> })
        .find((message) => message.type === 'connection_init');
      expect(init?.payload).toEqual({ Authorization: `Bearer ${branch.key}` });
      expect(elsewhere()).toEqual([]);
      expect(recorded.problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('opens a link’s ?query= in the editor rather than running it', async () => {
    const query = '{ plan(key: "growth") { name } }';
    const { page, close } = await openExplorer(`${platform.gatewayUrl}?query=${encodeURIComponent(query)}`);
    try {
      expect(await editorText(page, QUERY_EDITOR)).toBe(query);
    } finally {
      await close();
    }
  });

  it('leaves every other client to Apollo: JSON without a query is refused, GET with a query answers', async () => {
    const withoutQuery = await fetch(platform.gatewayUrl, { headers: { accept: 'application/json' } });
    expect(withoutQuery.status).toBe(400);
    expect(withoutQuery.headers.get('content-type')).toMatch(/^application\/json/);
    await withoutQuery.arrayBuffer();
    const query = encodeURIComponent('{ plans(product: TICKETS) { key } }');
    const get = await fetch(`${platform.gatewayUrl}?query=${query}`, {
      headers: { 'apollo-require-preflight': 'true' },
    });
    expect(get.status).toBe(200);
    expect(((await get.json()) as { data: { plans: unknown[] } }).data.plans.length).toBeGreaterThan(0);
    // A GET that is not a browser's and lacks the preflight header stays a CSRF refusal.
    const simple = await fetch(`${platform.gatewayUrl}?query=${query}`);
    expect(simple.status).toBe(400);
    expect(await simple.text()).toMatch(/Cross-Site Request Forgery/);
  });

  it('serves no explorer and no landing page in production: a browser gets the 400 of a client without a query', async () => {
    const gateway = await startGateway(
      testConfig(database, {
        NODE_ENV: 'production',
        WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64'),
        INTERNAL_SECRET: randomBytes(32).toString('base64url'),
      }),
    );
    const productionOrigin = `http://127.0.0.1:${gateway.port}`;
    const url = `${productionOrigin}/graphql`;
    const { page, recorded, close } = await recordedPage(productionOrigin);
    try {
      const response = await page.goto(url, { waitUntil: 'load' });
      expect(response?.status()).toBe(400);
      expect(response?.headers()['content-type']).toMatch(/^application\/json/);
      expect(await page.$('.graphiql-container, script, link[rel="stylesheet"]')).toBeNull();
      // Chromium asks any page without an icon for /favicon.ico: the gateway's own 404.
      const asked = recorded.requests.map(({ url: requested }) => requested);
      expect(asked.filter((requested) => !requested.endsWith('/favicon.ico'))).toEqual([url]);

      const answer = async (accept: string) => {
        const reply = await fetch(url, { headers: { accept } });
        const body = (await reply.json()) as {
          errors: { message: string; extensions?: { code?: string } }[];
        };
        return {
          status: reply.status,
          errors: body.errors.map(({ message, extensions }) => ({ message, code: extensions?.code })),
        };
      };
      expect(await answer(BROWSER_ACCEPT)).toEqual(await answer('application/json'));
      expect((await answer(BROWSER_ACCEPT)).status).toBe(400);

      const manifest = JSON.parse(
        readFileSync(join(EXPLORER_BUILD_DIR(), EXPLORER_MANIFEST), 'utf8'),
      ) as ExplorerManifest;
      const script = await fetch(`${productionOrigin}/graphql/explorer/${manifest.script}`);
      expect(script.headers.get('content-type')).not.toMatch(/javascript/);
      await script.arrayBuffer();
    } finally {
      await close();
      await gateway.stop();
    }
  });
});
