/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import jsQR from 'jsqr';
import { PNG } from 'pngjs';
import { type Browser, type Page } from 'puppeteer-core';
import { launchChromium } from '../support/chromium';
import { projectRoot } from '../../common/paths';
import { connectRedis } from '../../common/redis';
import { startEvents, type RunningEvents } from '../../subgraphs/tickets/events/events';
import { liveEventsChannel } from '../../contracts/tickets/live-event';
import { createTestDatabase, type TestDatabase } from '../support/database';
import {
  newTicketBranch,
  platformEnv,
  startPlatform,
  type Platform,
  type TicketBranch,
  hookReceiver,
} from '../support/platform';
import { freePorts, startProcess } from '../support/processes';
import { awayFromWindowEdge, waitUntil } from '../support/wait';
import { WebhookReceiver } from '../support/webhook-receiver';

const ARTIFACTS = join(projectRoot(), 'test-artifacts');

describe('the customer’s ticket page in real headless Chromium', () => {
  let database: TestDatabase;
  let platform: Platform;
  let events: RunningEvents;
  let branch: TicketBranch;
  let browser: Browser;
  let origin: string;
  const receiver = new WebhookReceiver();

  beforeAll(async () => {
    database = await createTestDatabase();
    const [rest] = (await freePorts(1)) as [number];
    origin = `http://127.0.0.1:${rest}`;
    platform = await startPlatform(database, {
      // The page-writes test poses as clients behind a proxy on loopback, naming them in X-Forwarded-For.
      TRUSTED_PROXIES: '127.0.0.1',
      REST_PORT: String(rest),
      PUBLIC_BASE_URL: origin,
      WEBHOOK_ALLOW_INSECURE: 'true',
    });
    events = await startEvents(platform.config);
    branch = await newTicketBranch(platform.config, { sms: 'on' });
    await hookReceiver(platform.config, branch.venueId, receiver, 'ticket.linked,feedback.submitted');
    browser = await launchChromium(platform.config.render.chromiumPath);
    mkdirSync(ARTIFACTS, { recursive: true });
  });

  afterAll(async () => {
    await browser?.close();
    await events?.stop();
    await platform?.stop();
    await receiver.stop();
    await database.drop();
  });

  const rest = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${platform.restUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${branch.key}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return (await response.json()) as Record<string, unknown>;
  };

  const subscribers = async () => {
    const response = await fetch(platform.gatewayUrl.replace(/\/graphql$/, '/healthz'));
    return ((await response.json()) as { subscribers: number }).subscribers;
  };

  /** Opens the page and waits until its subscription is live at the gateway. */
  async function open(url: string, language = 'ar'): Promise<{ page: Page; requests: string[] }> {
    const before = await subscribers();
    const page = await browser.newPage();
    await page.setExtraHTTPHeaders({ 'accept-language': language });
    const requests: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    await page.setViewport({ width: 390, height: 844, deviceScaleFactor: 1 });
    await page.goto(url, { waitUntil: 'load' });
    await waitUntil(async () => (await subscribers()) > before, 10_000, 'the page’s subscription');
    return { page, requests };
  }

  /** Closes a page and waits until the gateway no longer counts its subscription. */
  async function close(page: Page): Promise<void> {
    const before = await subscribers();
    await page.close();
    await waitUntil(async () => (await subscribers()) < before, 10_000, 'the closed page’s unsubscription');
  }

  const status = (page: Page) => page.$eval('#ticket', (el) => (el as HTMLElement).dataset.status);

  it('shows the number and waiting, goes ready within 2 s of POST ready, and alerts again on a ring', async () => {
    const ticket = await rest('POST', '/tickets', { number: 'B-42' });
    const { page, requests } = await open(String(ticket.public_url));
    try {
      expect(await page.$eval('.number', (el) => el.textContent)).toBe('B-42');
      expect(await status(page)).toBe('waiting');
      // No ticket of the branch became ready yet: no estimate, rather than a made-up one.
      expect(await page.$eval('.estimate', (el) => el.getBoundingClientRect().height)).toBe(0);
      expect(await page.$eval('html', (el) => [el.getAttribute('lang'), el.getAttribute('dir')])).toEqual([
        'ar',
        'rtl',
      ]);
      await page.screenshot({ path: join(ARTIFACTS, 'ticket-page-ar-waiting.png') });

      const started = Date.now();
      await rest('POST', `/tickets/${String(ticket.id)}/ready`);
      await page.waitForFunction(() => document.getElementById('ticket')?.dataset.status === 'ready', {
        timeout: 2_000,
      });
      const tookMs = Date.now() - started;
      expect(tookMs).toBeLessThan(2_000);
      expect(await page.$eval('[data-field="statusText"]', (el) => el.textContent)).toBe('جاهز');
      expect(await page.$eval('#ticket', (el) => (el as HTMLElement).dataset.alertCount)).toBe('1');
      await page.screenshot({ path: join(ARTIFACTS, 'ticket-page-ar-ready.png') });

      await database.query(
        `update tickets.tickets set last_alert_at = now() - interval '31 seconds' where id = $1`,
        [ticket.id],
      );
      await rest('POST', `/tickets/${String(ticket.id)}/ring`);
      await page.waitForFunction(() => document.getElementById('ticket')?.dataset.alertCount === '2', {
        timeout: 2_000,
      });
      expect(await page.title()).toMatch(/^🔔 /);
      // Everything came from the page's own origin or the gateway's socket: no CDN, nothing else.
      const gateway = new URL(platform.gatewayUrl).host;
      expect(requests.filter((url) => !url.startsWith(origin) && !url.includes(gateway))).toEqual([]);
    } finally {
      await close(page);
    }
  });

  it('links the ticket on the first open only, and the receiver gets ticket.linked', async () => {
    const ticket = await rest('POST', '/tickets', {});
    expect(await rest('GET', `/tickets/${String(ticket.id)}`)).toMatchObject({
      phone_linked: false,
      linked_at: null,
    });
    const first = await open(String(ticket.public_url));
    await close(first.page);
    const second = await open(String(ticket.public_url));
    await close(second.page);
    const read = await rest('GET', `/tickets/${String(ticket.id)}`);
    expect(read.phone_linked).toBe(true);
    expect(read.linked_at).toEqual(expect.stringMatching(/^\d{4}-/));
    await receiver.waitFor((r) => r.some((hook) => hook.json.data.ticket.id === ticket.id));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const linked = receiver.received.filter(
      (hook) => hook.json.event === 'ticket.linked' && hook.json.data.ticket.id === ticket.id,
    );
    expect(linked).toHaveLength(1);
    expect(linked[0]!.verdict.ok).toBe(true);
  });

  it('speaks English by toggle and by Accept-Language, and takes feedback once collected', async () => {
    const ticket = await rest('POST', '/tickets', { number: 'C-7' });
    const { page } = await open(String(ticket.public_url), 'en-US,en;q=0.9');
    try {
      expect(await page.$eval('html', (el) => [el.getAttribute('lang'), el.getAttribute('dir')])).toEqual([
        'en',
        'ltr',
      ]);
      expect(await page.$eval('[data-field="statusText"]', (el) => el.textContent)).toBe('Waiting');
      await page.screenshot({ path: join(ARTIFACTS, 'ticket-page-en-waiting.png') });
      await rest('POST', `/tickets/${String(ticket.id)}/collected`);
      await page.waitForFunction(() => document.getElementById('ticket')?.dataset.status === 'collected', {
        timeout: 2_000,
      });
      await page.click('.star:nth-child(4)');
      await page.type('textarea[name="comment"]', 'Quick and hot');
      await page.click('form.feedback button[type="submit"]');
      await page.waitForFunction(
        () => document.querySelector('form.feedback')?.getAttribute('data-sent') === 'true',
        {
          timeout: 5_000,
        },
      );
      await page.screenshot({ path: join(ARTIFACTS, 'ticket-page-en-feedback.png') });
      await receiver.waitFor((r) =>
        r.some((hook) => hook.json.event === 'feedback.submitted' && hook.json.data.ticket.id === ticket.id),
      );
      const hook = receiver.received.find(
        (h) => h.json.event === 'feedback.submitted' && h.json.data.ticket.id === ticket.id,
      );
      expect(hook!.json.data.feedback).toMatchObject({ rating: 4, comment: 'Quick and hot' });
    } finally {
      await close(page);
    }
    const toggled = await browser.newPage();
    try {
      await toggled.goto(`${String(ticket.public_url)}?lang=ar`);
      expect(await toggled.$eval('html', (el) => el.getAttribute('lang'))).toBe('ar');
    } finally {
      await toggled.close();
    }
  });

  it('tells the waiting customer an honest estimate in Arabic and English, kept live, with mixed names isolated', async () => {
    const other = await newTicketBranch(platform.config);
    await database.query(`update tickets.venues set name = 'Samarra سامراء' where id = $1`, [other.venueId]);
    await database.query(`update tickets.branches set name = 'فرع Mansour 2' where id = $1`, [
      other.branchId,
    ]);
    const post = async (path: string, body: unknown = {}) => {
      const response = await fetch(`${platform.restUrl}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${other.key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return (await response.json()) as Record<string, unknown>;
    };
    // Five became ready 8 to 4 minutes ago after 4, 6, 8, 10 and 12 minutes: a median of 8.
    const done: unknown[] = [];
    for (let i = 0; i < 5; i += 1) done.push((await post('/tickets')).id);
    await database.query(
      `update tickets.tickets set status = 'ready', created_at = now() - make_interval(mins => 12 + n),
              ready_at = now() - make_interval(mins => 8 - n)
         from (select unnest($1::bigint[]) as id, generate_series(0, 4) as n) t where tickets.id = t.id`,
      [done],
    );
    const ticket = await post('/tickets', { number: 'A-7' });
    const pages: Page[] = [];
    try {
      for (const [language, expected] of [
        ['ar', 'جاهز عادةً خلال ٨ دقائق تقريبًا'],
        ['en', 'Usually ready in about 8 minutes'],
      ] as const) {
        const page = await browser.newPage();
        pages.push(page);
        // The page reads the estimate again each minute; here each half second, so the test sees it move.
        await page.evaluateOnNewDocument(() => {
          const every = window.setInterval.bind(window);
          window.setInterval = ((handler: TimerHandler, ms?: number) =>
            every(handler, ms === 60_000 ? 500 : ms)) as typeof window.setInterval;
        });
        await page.setViewport({ width: 390, height: 844, deviceScaleFactor: 1 });
        await page.goto(`${String(ticket.public_url)}?lang=${language}`, { waitUntil: 'load' });
        expect(await page.$eval('.estimate', (el) => [(el as HTMLElement).hidden, el.textContent])).toEqual([
          false,
          expected,
        ]);
        expect(await page.$$eval('.venue bdi', (els) => els.map((el) => el.textContent))).toEqual([
          'Samarra سامراء',
          'فرع Mansour 2',
        ]);
        await page.screenshot({ path: join(ARTIFACTS, `ticket-page-${language}-estimate.png`) });
      }
      // Twenty orders turn out to be ahead of it: at a ticket a minute and 8 minutes' prep, a turn is
      // 8/9 of a minute, so about 18 minutes from now; both pages show it on their next read.
      const ahead: unknown[] = [];
      for (let i = 0; i < 20; i += 1) ahead.push((await post('/tickets')).id);
      await database.query(
        `update tickets.tickets set created_at = (select created_at from tickets.tickets where id = $2) - interval '1 second'
          where id = any($1::bigint[])`,
        [ahead, ticket.id],
      );
      const [arabic, english] = pages as [Page, Page];
      // Polled by time: a page behind another draws no frames to poll by.
      const shows = (page: Page, text: string) =>
        page.waitForFunction(
          (t) => document.querySelector('.estimate')?.textContent === t,
          { timeout: 5_000, polling: 100 },
          text,
        );
      await shows(arabic, 'جاهز عادةً خلال ١٨ دقيقة تقريبًا');
      await shows(english, 'Usually ready in about 18 minutes');
      await post(`/tickets/${String(ticket.id)}/ready`);
      for (const page of pages) {
        await page.waitForFunction(() => document.getElementById('ticket')?.dataset.status === 'ready', {
          timeout: 2_000,
          polling: 100,
        });
        expect(await page.$eval('.estimate', (el) => el.getBoundingClientRect().height)).toBe(0);
      }
    } finally {
      for (const page of pages) await page.close();
    }
  });

  it('shows the state at load without scripts, and a friendly 404 for an unknown token', async () => {
    const ticket = await rest('POST', '/tickets', { number: 'D-1' });
    await rest('POST', `/tickets/${String(ticket.id)}/ready`);
    const page = await browser.newPage();
    try {
      await page.setJavaScriptEnabled(false);
      await page.goto(String(ticket.public_url));
      expect(await status(page)).toBe('ready');
      expect(await page.$eval('.number', (el) => el.textContent)).toBe('D-1');
      const missing = await page.goto(`${origin}/t/${'A'.repeat(32)}`);
      expect(missing?.status()).toBe(404);
      expect(await page.$eval('#ticket', (el) => (el as HTMLElement).dataset.status)).toBe('missing');
    } finally {
      await page.close();
    }
  });

  it('serves a QR PNG that decodes to public_url, sized for receipt printers, and an SVG', async () => {
    const ticket = await rest('POST', '/tickets', {});
    for (const size of [384, 576]) {
      const response = await fetch(`${String(ticket.qr_url)}?size=${size}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('image/png');
      expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      const png = PNG.sync.read(Buffer.from(await response.arrayBuffer()));
      expect(png.width).toBeLessThanOrEqual(size);
      expect(png.width).toBeGreaterThan(size * 0.8);
      const decoded = jsQR(new Uint8ClampedArray(png.data), png.width, png.height);
      expect(decoded?.data).toBe(ticket.public_url);
    }
    const svg = await fetch(String(ticket.qr_url).replace(/\.png$/, '.svg'));
    expect(svg.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    expect(await svg.text()).toMatch(/^<svg/);
    const tooBig = await fetch(`${String(ticket.qr_url)}?size=5000`);
    expect(tooBig.status).toBe(422);
    expect(((await tooBig.json()) as { errors: Record<string, string[]> }).errors.size).toHaveLength(1);
    expect((await fetch(`${origin}/t/${'B'.repeat(32)}/qr.png`)).status).toBe(404);
  });

  it('weighs at most 150 KB gzip with its script, style, fonts, under a strict CSP', async () => {
    const ticket = await rest('POST', '/tickets', {});
    const page = await browser.newPage();
    const sizes: Record<string, number> = {};
    page.on('response', (response) => {
      const url = response.url();
      if (!url.startsWith(origin)) return;
      void response.buffer().then(
        (body) => (sizes[url] = gzipSync(body).length),
        () => undefined,
      );
    });
    try {
      const response = await page.goto(String(ticket.public_url), { waitUntil: 'networkidle0' });
      const csp = response?.headers()['content-security-policy'] ?? '';
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain('unsafe-inline');
      await page.evaluate(() => document.fonts.ready);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const total = Object.values(sizes).reduce((sum, n) => sum + n, 0);
      expect(Object.keys(sizes).some((url) => url.endsWith('.woff2'))).toBe(true);
      expect(total).toBeLessThanOrEqual(150 * 1024);
    } finally {
      await page.close();
    }
  });

  it('takes the page’s writes at its own origin, with field errors and a per-address limit', async () => {
    const ticket = await rest('POST', '/tickets', {});
    const write = async (action: string, body: unknown, address = '10.0.0.1') => {
      const response = await fetch(`${String(ticket.public_url)}/${action}`, {
        method: 'POST',
        // Sent through the trusted proxy on loopback (TRUSTED_PROXIES above), which names the client.
        headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
        body: JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    expect(await write('alerts', {})).toEqual({ status: 200, body: { alerts_enabled: true } });
    expect((await write('sms', {})).body).toEqual({
      message: 'The phone field is required.',
      errors: { phone: ['The phone field is required.'] },
    });
    const badPhone = await write('sms', { phone: '12' });
    expect(badPhone.status).toBe(422);
    expect((badPhone.body.errors as Record<string, string[]>).phone).toEqual([
      'The phone field must be a valid Iraqi mobile number.',
    ]);
    expect((await write('sms', { phone: '0771 234 5678' })).body).toEqual({ sms_opt_in: true });
    expect((await write('feedback', { rating: 'five' })).status).toBe(422);
    expect((await write('feedback', { rating: 5 })).status).toBe(422);
    await rest('POST', `/tickets/${String(ticket.id)}/collected`);
    const given = await write('feedback', { rating: 5, comment: 'Fast' });
    expect(given.status).toBe(201);
    expect(given.body.feedback).toMatchObject({ rating: 5, comment: 'Fast' });
    expect((await write('feedback', { rating: 4 })).status).toBe(409);
    expect((await write('push', { endpoint: 'https://push.example/x' })).body.errors).toEqual({
      'keys.p256dh': ['The keys.p256dh field is required.'],
      'keys.auth': ['The keys.auth field is required.'],
    });
    const unknown = await fetch(`${origin}/t/${'C'.repeat(32)}/alerts`, { method: 'POST' });
    expect(unknown.status).toBe(404);
    // 30 writes a minute per address: the next one from another address still passes.
    await awayFromWindowEdge();
    const burst = await Promise.all(Array.from({ length: 31 }, () => write('alerts', {}, '10.0.0.2')));
    expect(burst.filter((r) => r.status === 429)).toHaveLength(1);
    expect((await write('alerts', {}, '10.0.0.3')).status).toBe(200);
  });

  it('reconnects after losing its socket and refetches what changed meanwhile', async () => {
    // The page's live URL points at a gateway process of its own, which this test stops and restarts.
    const [port] = (await freePorts(1)) as [number];
    const liveEnv = platformEnv(platform.config, { GATEWAY_PORT: String(port) });
    const ready = `http://127.0.0.1:${port}/readyz`;
    let live = await startProcess('gateway/main.js', liveEnv, ready);
    const [edgePort] = (await freePorts(1)) as [number];
    const edge = await startProcess(
      'rest-adapter/main.js',
      platformEnv(platform.config, {
        REST_PORT: String(edgePort),
        PUBLIC_LIVE_URL: `ws://127.0.0.1:${port}/graphql`,
      }),
      `http://127.0.0.1:${edgePort}/readyz`,
    );
    const page = await browser.newPage();
    try {
      const ticket = await rest('POST', '/tickets', { number: 'E-5' });
      const liveSubscribers = async () =>
        ((await (await fetch(`http://127.0.0.1:${port}/healthz`)).json()) as { subscribers: number })
          .subscribers;
      await page.goto(`http://127.0.0.1:${edgePort}/t/${String(ticket.token)}`);
      await waitUntil(async () => (await liveSubscribers()) === 1, 10_000, 'the page’s subscription');

      await live.stop();
      await page.waitForFunction(() => !(document.querySelector('.offline') as HTMLElement).hidden, {
        timeout: 5_000,
      });
      // The change happens while the page has no socket: no message can carry it.
      await rest('POST', `/tickets/${String(ticket.id)}/ready`);
      expect(await status(page)).toBe('waiting');

      live = await startProcess('gateway/main.js', liveEnv, ready);
      await page.waitForFunction(() => document.getElementById('ticket')?.dataset.status === 'ready', {
        timeout: 15_000,
      });
      expect(await page.$eval('.offline', (el) => (el as HTMLElement).hidden)).toBe(true);
    } finally {
      await page.close();
      await edge.stop();
      await live.stop();
    }
  });

  it('keeps the newest state when a held event arrives after its refetch, and does not alert again', async () => {
    const channel = liveEventsChannel(platform.config.redisPrefix);
    const redis = await connectRedis(platform.config.redis, 'late-event-test');
    const listener = redis.duplicate();
    const published: string[] = [];
    listener.on('message', (_channel: string, message: string) => published.push(message));
    await listener.connect();
    await listener.subscribe(channel);
    const ticket = await rest('POST', '/tickets', { number: 'L-7' });
    const { page } = await open(`${origin}/t/${String(ticket.token)}`);
    try {
      const frames: string[] = [];
      const cdp = await page.createCDPSession();
      await cdp.send('Network.enable');
      cdp.on('Network.webSocketFrameReceived', (event) => frames.push(event.response.payloadData));

      await rest('POST', `/tickets/${String(ticket.id)}/ready`);
      await page.waitForFunction(() => document.getElementById('ticket')?.dataset.status === 'ready');
      await rest('POST', `/tickets/${String(ticket.id)}/collected`);
      await page.waitForFunction(() => document.getElementById('ticket')?.dataset.status === 'collected');
      const alerts = await page.$eval('#ticket', (el) => (el as HTMLElement).dataset.alertCount);
      const ready = published.find((m) => {
        const event = JSON.parse(m) as { event: string; ticketId: number };
        return event.event === 'ticket.ready' && event.ticketId === Number(ticket.id);
      });
      expect(ready).toBeDefined();

      // As the relay publishes an event it held while Redis was away: after the newer state.
      const before = frames.length;
      await redis.publish(channel, ready!);
      await waitUntil(
        () => frames.slice(before).some((f) => f.includes('"READY"')),
        10_000,
        'the late ready event at the page',
      );
      expect(await status(page)).toBe('collected');
      expect(await page.$eval('#ticket', (el) => (el as HTMLElement).dataset.alertCount)).toBe(alerts);
    } finally {
      await page.close();
      listener.disconnect();
      redis.disconnect();
    }
  });
});
