/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { type Browser, type Page } from 'puppeteer-core';
import { launchChromium } from '../support/chromium';
import { projectRoot } from '../../common/paths';
import { startEvents, type RunningEvents } from '../../subgraphs/tickets/events/events';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { askGraph, bearer, signUpPerson, venueWithPos, type SignedUp } from '../support/graph';
import { platformEnv, startPlatform, type Platform } from '../support/platform';
import { freePorts, startProcess } from '../support/processes';

const ARTIFACTS = join(projectRoot(), 'test-artifacts');

/**
 * Waits for a condition in a page by polling on a timer: of the several tabs a test opens only one
 * is in front, and a tab behind it gets no animation frames to poll on.
 */
function until(page: Page, condition: () => boolean | undefined, options: { timeout?: number } = {}) {
  return page.waitForFunction(condition, { timeout: 10_000, ...options, polling: 100 });
}
const TABLET = { width: 1280, height: 800, deviceScaleFactor: 1 };
const TV = { width: 1920, height: 1080, deviceScaleFactor: 1 };

describe('the staff board and the room’s display in real headless Chromium', () => {
  let database: TestDatabase;
  let platform: Platform;
  let events: RunningEvents;
  let browser: Browser;
  let origin: string;
  let owner: SignedUp;
  let venueId: string;
  let branchId: string;
  let posKey: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    const [rest] = (await freePorts(1)) as [number];
    origin = `http://127.0.0.1:${rest}`;
    platform = await startPlatform(database, {
      REST_PORT: String(rest),
      PUBLIC_BASE_URL: origin,
      PUBLIC_WRITE_RATE_LIMIT: '1000',
    });
    events = await startEvents(platform.config);
    owner = await signUpPerson(platform.gatewayUrl, { email: 'board-owner@example.test', name: 'Owner' });
    ({ venueId, branchId, posKey } = await venueWithPos(platform.gatewayUrl, owner.token, {
      venue: 'مطعم الساحة',
      branch: 'الكرادة',
    }));
    browser = await launchChromium(platform.config.render.chromiumPath);
    mkdirSync(ARTIFACTS, { recursive: true });
  });

  afterAll(async () => {
    await browser?.close();
    await events?.stop();
    await platform?.stop();
    await database.drop();
  });

  async function data<T>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
    const reply = await askGraph(platform.gatewayUrl, query, variables, bearer(owner.token));
    expect(reply.errors).toBeUndefined();
    return reply.data as T;
  }

  const rest = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${platform.restUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${posKey}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return (await response.json()) as Record<string, unknown>;
  };

  async function newDisplay(language: 'ar' | 'en' = 'ar'): Promise<{ id: string; url: string }> {
    const { createDisplay } = await data<{ createDisplay: { url: string; display: { id: string } } }>(
      'mutation ($i: CreateDisplayInput!) { createDisplay(input: $i) { url display { id } } }',
      { i: { branchId, name: `TV ${language}`, language } },
    );
    return { id: createDisplay.display.id, url: createDisplay.url };
  }

  async function pairedBoard(language = 'ar'): Promise<{ page: Page; deviceId: string }> {
    const { createBoardDevice } = await data<{ createBoardDevice: { url: string; device: { id: string } } }>(
      'mutation ($i: CreateBoardDeviceInput!) { createBoardDevice(input: $i) { url device { id } } }',
      { i: { branchId, name: 'Counter tablet' } },
    );
    const page = await browser.newPage();
    page.on('console', (m) => console.log('BOARD', m.text()));
    page.on('pageerror', (m) => console.log('BOARD ERR', String(m)));
    await page.setViewport(TABLET);
    await page.setExtraHTTPHeaders({ 'accept-language': language });
    await page.goto(createBoardDevice.url, { waitUntil: 'load' });
    await until(page, () => document.getElementById('board')?.dataset.state === 'live', {
      timeout: 10_000,
    });
    return { page, deviceId: createBoardDevice.device.id };
  }

  async function openDisplay(url: string, withVoice = false): Promise<Page> {
    const page = await browser.newPage();
    await page.setViewport(TV);
    if (withVoice) {
      // Headless Chromium has no voices; a TV with an Arabic one is stood in for before the page
      // loads, recording what it is asked to say.
      await page.evaluateOnNewDocument(() => {
        const spoken: string[] = [];
        const voice = {
          lang: 'ar-IQ',
          name: 'Stand-in Arabic',
          localService: true,
          default: true,
          voiceURI: 'stand-in',
        };
        Object.defineProperty(window, 'spokenForTest', { value: spoken });
        Object.defineProperty(window, 'speechSynthesis', {
          value: {
            getVoices: () => [voice],
            speak: (utterance: { text: string; lang: string; onend?: () => void }) => {
              spoken.push(`${utterance.lang}|${utterance.text}`);
              setTimeout(() => utterance.onend?.(), 10);
            },
            cancel: () => undefined,
            onvoiceschanged: null,
          },
        });
        Object.defineProperty(window, 'SpeechSynthesisUtterance', {
          value: function SpeechSynthesisUtterance(this: { text: string }, text: string) {
            this.text = text;
          },
        });
      });
    }
    await page.goto(url, { waitUntil: 'load' });
    await until(page, () => document.getElementById('display')?.dataset.state === 'live', {
      timeout: 10_000,
    });
    return page;
  }

  const numbersIn = (page: Page, list: string) =>
    page.$$eval(`[data-list="${list}"] li[data-number]`, (items) =>
      items.map((item) => (item as HTMLElement).dataset.number),
    );
  const dataset = (page: Page, selector: string) =>
    page.$eval(selector, (element) => ({ ...(element as HTMLElement).dataset }));

  it('pairs a tablet from its link, creates and calls tickets, and the display chimes and speaks the call', async () => {
    const display = await newDisplay('ar');
    const tv = await openDisplay(display.url, true);
    const { page: board } = await pairedBoard('ar');
    try {
      expect(await board.title()).toBe('لوحة الطلبات');
      // A tap unlocks audio where the browser asks for one.
      expect((await dataset(tv, '#display')).audio).toBe('locked');
      // Each page is a tab of one browser; the one being touched is brought to the front, as a
      // person's hand would be on a real screen.
      await tv.bringToFront();
      await tv.click('.unlock');
      expect((await dataset(tv, '#display')).audio).toBe('on');

      await board.bringToFront();
      await board.type('.new-ticket input[name=number]', '42');
      await board.type('.new-ticket input[name=customerName]', 'هدى');
      await board.click('.new-ticket button[type=submit]');
      await board.waitForSelector('[data-list="waiting"] li[data-number="42"]');
      await tv.waitForSelector('[data-list="waiting"] li[data-number="42"]');

      // Ready waits out its undo window: an undo sends nothing.
      await board.click('li[data-number="42"] button[data-action=ready]');
      // Undone from inside the page as soon as the button shows: under a loaded machine the
      // protocol's round trips of a mouse click have outlasted the five-second window.
      await board.waitForFunction(
        () => {
          const undo = document.querySelector<HTMLButtonElement>(
            'li[data-number="42"] button[data-action=undo]',
          );
          undo?.click();
          return undo !== null;
        },
        { polling: 'mutation' },
      );
      await board.waitForSelector('li[data-number="42"] button[data-action=ready]');
      await new Promise((resolve) => setTimeout(resolve, 5_500));
      expect(await numbersIn(tv, 'ready')).toEqual([]);

      await board.click('li[data-number="42"] button[data-action=ready]');
      await board.waitForSelector('[data-list="ready"] li[data-number="42"]', { timeout: 10_000 });
      await tv.waitForSelector('[data-list="ready"] li[data-number="42"].latest', { timeout: 5_000 });
      const called = await dataset(tv, '#display');
      expect(Number(called.calls)).toBe(1);
      expect(Number(called.chimes)).toBe(1);
      expect(called.lastCall).toBe('الطلب رقم 42 جاهز');
      // The chime first, then the words, in the display's language, the number as a number.
      await until(tv, () => document.getElementById('display')?.dataset.spoken === '1');
      expect(
        await tv.evaluate(() => (window as unknown as { spokenForTest: string[] }).spokenForTest),
      ).toEqual(['ar-IQ|الطلب رقم 42 جاهز']);

      // The ready alerted the customer, so the board holds the ring for the 30-second cooldown.
      const ring = 'li[data-number="42"] button[data-action=ring]';
      expect(await board.$eval(ring, (el) => [el.disabled, el.textContent])).toEqual([
        true,
        expect.stringMatching(/^تنبيه بعد \d+ ث$/) as unknown,
      ]);
      // Once the cooldown is over (moved back in the database rather than waited out), a ring
      // calls again on the display.
      const id = await board.$eval('li[data-number="42"]', (el) => (el as HTMLElement).dataset.id);
      await database.query(
        `update tickets.tickets set last_alert_at = now() - interval '31 seconds' where id = $1`,
        [id],
      );
      await rest('POST', `/tickets/${String(id)}/ring`);
      await until(tv, () => document.getElementById('display')?.dataset.calls === '2', {
        timeout: 5_000,
      });

      await board.screenshot({ path: join(ARTIFACTS, 'board-ar.png') });
      await tv.bringToFront();
      await tv.screenshot({ path: join(ARTIFACTS, 'display-ar.png') });
      await board.bringToFront();

      // Collected leaves both screens.
      await board.click('li[data-number="42"] button[data-action=collected]');
      await until(tv, () => !document.querySelector('li[data-number="42"]'), { timeout: 5_000 });
    } finally {
      await board.close();
      await tv.close();
    }
  });

  it('shows a REST ready on the display within a second, in English by its setting', async () => {
    const display = await newDisplay('en');
    const tv = await openDisplay(display.url);
    try {
      expect(await tv.$eval('html', (html) => [html.lang, html.dir])).toEqual(['en', 'ltr']);
      const ticket = await rest('POST', '/tickets', { number: '77' });
      await tv.waitForSelector('[data-list="waiting"] li[data-number="77"]', { timeout: 5_000 });
      const started = Date.now();
      await rest('POST', `/tickets/${String(ticket.id)}/ready`);
      await tv.waitForSelector('[data-list="ready"] li[data-number="77"]', { timeout: 5_000 });
      const elapsed = Date.now() - started;
      expect(elapsed).toBeLessThan(1_000);
      await tv.bringToFront();
      await tv.click('.unlock');
      expect((await dataset(tv, '#display')).lastCall).toBe('Order number 77 is ready');
      await tv.screenshot({ path: join(ARTIFACTS, 'display-en.png') });
      await rest('POST', `/tickets/${String(ticket.id)}/collected`);

      // A manager switches it to Arabic from the panel: the screen follows on its own.
      await data('mutation ($i: UpdateDisplayInput!) { updateDisplay(input: $i) { id } }', {
        i: { displayId: display.id, language: 'ar' },
      });
      await until(
        tv,
        () =>
          document.documentElement.lang === 'ar' &&
          document.getElementById('display')?.dataset.state === 'live',
      );
      expect(await tv.$eval('.column.ready h2', (el) => el.textContent)).toBe('جاهز');
    } finally {
      await tv.close();
    }
  });

  it('takes a revoked display and a revoked board device off at once', async () => {
    const display = await newDisplay('ar');
    const tv = await openDisplay(display.url);
    const { page: board, deviceId } = await pairedBoard('en');
    try {
      expect(await board.$eval('html', (html) => [html.lang, html.dir])).toEqual(['en', 'ltr']);
      await board.bringToFront();
      await board.screenshot({ path: join(ARTIFACTS, 'board-en.png') });
      await tv.bringToFront();
      await data('mutation ($id: ID!) { revokeDisplay(id: $id) { id } }', { id: display.id });
      await until(tv, () => document.getElementById('display')?.dataset.state === 'revoked', {
        timeout: 5_000,
      });
      expect(await tv.$eval('.gone', (el) => (el as HTMLElement).hidden)).toBe(false);
      expect((await fetch(display.url)).status).toBe(404);

      await board.bringToFront();
      await data('mutation ($id: ID!) { revokeBoardDevice(id: $id) { id } }', { id: deviceId });

      await until(board, () => document.getElementById('board')?.dataset.state === 'setup', {
        timeout: 5_000,
      });
      expect(await board.$eval('.setup-error', (el) => el.textContent)).toBe(
        'This board was removed. Pair it again or sign in.',
      );
    } finally {
      await board.close();
      await tv.close();
    }
  });

  it('shows the live wait, highlighted past the venue’s alert, and keeps Arabic and English names apart', async () => {
    await data(
      'mutation ($i: SetVenueWaitAlertInput!) { setVenueWaitAlert(input: $i) { waitAlertMinutes } }',
      {
        i: { venueId, minutes: 5 },
      },
    );
    const display = await newDisplay('en');
    const tv = await openDisplay(display.url);
    const { page: board } = await pairedBoard('en');
    try {
      await board.bringToFront();
      const maryam = await rest('POST', '/tickets', { number: '88', customer_name: 'مريم' });
      const sara = await rest('POST', '/tickets', { number: '89', customer_name: 'Sara علي' });
      await board.waitForSelector('[data-list="waiting"] li[data-number="89"]');
      // In the English layout the Arabic name stays on its own: name, separator, minutes, left to right.
      const order = await board.$eval('li[data-number="88"] .detail', (detail) =>
        ['.customer', '.separator', '.waited'].map(
          (part) => detail.querySelector(part)!.getBoundingClientRect().left,
        ),
      );
      expect(order).toEqual([...order].sort((a, b) => a - b));
      expect(await board.$eval('li[data-number="88"] .detail', (el) => el.textContent)).toBe('مريم · 0 min');
      expect(await board.$eval('li[data-number="88"] .customer', (el) => el.tagName)).toBe('BDI');
      expect(await tv.$$eval('.display-title bdi', (els) => els.map((el) => el.textContent))).toEqual([
        'مطعم الساحة',
        'الكرادة',
      ]);
      expect(await tv.$eval('[data-list="waiting"] li[data-number="88"]', (el) => el.dir)).toBe('auto');

      // Maryam's order has waited 10 minutes, past the venue's 5; Sara's is ready after 2.
      await database.query(
        `update tickets.tickets set created_at = now() - interval '10 minutes' where id = $1`,
        [maryam.id],
      );
      await database.query(
        `update tickets.tickets set created_at = now() - interval '2 minutes' where id = $1`,
        [sara.id],
      );
      await rest('POST', `/tickets/${String(sara.id)}/ready`);
      const [counted] = await database.query(
        `select count(*) as waiting from tickets.tickets where branch_id = $1 and status = 'waiting'`,
        [branchId],
      );
      const waiting = String(counted!.waiting);
      const [median] = await database.query(
        `select round(percentile_cont(0.5) within group (order by extract(epoch from ready_at - created_at)) / 60) as minutes
           from tickets.tickets where branch_id = $1 and ready_at > now() - interval '1 hour'`,
        [branchId],
      );
      await until(board, () => document.querySelector('.wait')?.getAttribute('data-alert') === 'true');
      // The strip is read again after Sara's ready reaches the board; on a loaded machine that can
      // come after the alert, which Maryam's wait alone already raised.
      await board.waitForFunction(
        (count: string) => document.querySelector('[data-wait=waiting]')?.textContent === count,
        { timeout: 10_000, polling: 100 },
        waiting,
      );
      const strip = await board.$eval('.wait', (el) => ({
        waiting: el.querySelector('[data-wait=waiting]')!.textContent,
        median: el.querySelector('[data-wait=median]')!.textContent,
        oldest: el.querySelector('[data-wait=oldest]')!.textContent,
        oldestAlert: (el.querySelector('[data-wait=oldest]')!.closest('div') as HTMLElement).dataset.alert,
      }));
      expect(strip).toEqual({
        waiting,
        median: `${String(median!.minutes)} min`,
        oldest: expect.stringMatching(/^1\d min$/) as unknown,
        oldestAlert: 'true',
      });
      // Loaded afresh, the cards count from the times the rows now hold too.
      await board.reload({ waitUntil: 'load' });
      await until(board, () => document.querySelector('.wait')?.getAttribute('data-alert') === 'true');
      await board.screenshot({ path: join(ARTIFACTS, 'board-en-wait.png') });
      await rest('POST', `/tickets/${String(maryam.id)}/collected`);
      await rest('POST', `/tickets/${String(sara.id)}/collected`);
    } finally {
      await board.close();
      await tv.close();
    }
  });

  it('lets a member sign in on the board, pick the branch, and queues actions while offline', async () => {
    // The board's live URL points at a gateway process of its own, which this test stops and restarts.
    const [port, edgePort] = (await freePorts(2)) as [number, number];
    const liveEnv = platformEnv(platform.config, { GATEWAY_PORT: String(port) });
    const ready = `http://127.0.0.1:${port}/readyz`;
    let live = await startProcess('gateway/main.js', liveEnv, ready);
    const edge = await startProcess(
      'rest-adapter/main.js',
      platformEnv(platform.config, {
        REST_PORT: String(edgePort),
        PUBLIC_LIVE_URL: `ws://127.0.0.1:${port}/graphql`,
      }),
      `http://127.0.0.1:${edgePort}/readyz`,
    );
    const display = await newDisplay('ar');
    const tv = await openDisplay(`http://127.0.0.1:${edgePort}/display/${display.url.split('/').at(-1)!}`);
    // The phone in hand is in front; the display keeps running behind it.
    const board = await browser.newPage();
    await board.setViewport({ width: 390, height: 844, deviceScaleFactor: 1 });
    try {
      await board.goto(`http://127.0.0.1:${edgePort}/board`, { waitUntil: 'load' });
      await until(board, () => document.getElementById('board')?.dataset.state === 'setup');
      await board.type('.sign-in-form input[name=email]', owner.email);
      await board.type('.sign-in-form input[name=password]', 'a long test passphrase');
      await board.click('.sign-in-form button[type=submit]');
      await until(board, () => !(document.querySelector('.branch-form') as HTMLElement).hidden);
      await board.click('.branch-form button[type=submit]');
      await until(board, () => document.getElementById('board')?.dataset.state === 'live');

      const ticket = await rest('POST', '/tickets', { number: '88' });
      await board.waitForSelector('[data-list="waiting"] li[data-number="88"]', { timeout: 5_000 });

      await live.stop();
      await until(board, () => !(document.querySelector('.offline') as HTMLElement).hidden, {
        timeout: 5_000,
      });
      await until(tv, () => document.getElementById('display')?.dataset.state === 'offline', {
        timeout: 5_000,
      });
      expect(await board.$eval('#board', (el) => el.classList.contains('stale'))).toBe(true);
      // Offline, a ready is kept and shown, waiting to be sent (after its undo window).
      await board.click('li[data-number="88"] button[data-action=ready]');
      await until(board, () => document.getElementById('board')?.dataset.pending === '1');
      expect(await board.$eval('li[data-number="88"]', (el) => el.classList.contains('unsent'))).toBe(true);
      // What changed meanwhile shows after the reconnect: the till made the same ready, so the
      // board's queued one is applied as it stands, not listed as a conflict.
      await rest('POST', `/tickets/${String(ticket.id)}/ready`);
      live = await startProcess('gateway/main.js', liveEnv, ready);
      // The queued ready shows at once; the reconnect is when the offline line goes.
      await until(board, () => (document.querySelector('.offline') as HTMLElement).hidden, {
        timeout: 20_000,
      });
      await until(board, () => document.getElementById('board')?.dataset.pending === '0');
      await board.waitForSelector('[data-list="ready"] li[data-number="88"]:not(.unsent)');
      expect((await dataset(board, '#board')).conflicts).toBe('0');
      // The display catches up too, with the number that turned ready while it was away.
      await tv.waitForSelector('[data-list="ready"] li[data-number="88"]', { timeout: 20_000 });
      expect((await dataset(tv, '#display')).state).toBe('live');
      await rest('POST', `/tickets/${String(ticket.id)}/collected`);
    } finally {
      await tv.close();
      await board.close();
      await edge.stop();
      await live.stop();
    }
  }, 120_000);

  it('weighs each page under 150 KB gzip with its fonts, under a strict CSP, with nothing from elsewhere', async () => {
    const display = await newDisplay('ar');
    for (const url of [`${origin}/board`, display.url]) {
      const tab = await browser.newPage();
      const sizes: Record<string, number> = {};
      const requests: string[] = [];
      tab.on('request', (request) => requests.push(request.url()));
      tab.on('response', (response) => {
        if (!response.url().startsWith(origin)) return;
        void response.buffer().then(
          (body) => (sizes[response.url()] = gzipSync(body).length),
          () => undefined,
        );
      });
      try {
        const response = await tab.goto(url, { waitUntil: 'networkidle0' });
        const csp = response?.headers()['content-security-policy'] ?? '';
        expect(csp).toContain("default-src 'none'");
        expect(csp).not.toContain('unsafe-inline');
        await tab.evaluate(() => document.fonts.ready);
        await new Promise((resolve) => setTimeout(resolve, 300));
        const total = Object.values(sizes).reduce((sum, n) => sum + n, 0);
        expect(Object.keys(sizes).some((name) => name.endsWith('.woff2'))).toBe(true);
        expect(total).toBeLessThanOrEqual(150 * 1024);
        const gateway = new URL(platform.gatewayUrl).host;
        expect(requests.filter((seen) => !seen.startsWith(origin) && !seen.includes(gateway))).toEqual([]);
      } finally {
        await tab.close();
      }
    }
  });
});
