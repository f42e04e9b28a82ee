/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser, type BrowserContext, type Page } from 'puppeteer-core';
import { CHROMIUM_FLAGS } from '../../common/chromium';
import { projectRoot } from '../../common/paths';
import { startEvents, type RunningEvents } from '../../subgraphs/tickets/events/events';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { askGraph, bearer, signUpPerson, venueWithPos, type SignedUp } from '../support/graph';
import { OutageProxy } from '../support/outage-proxy';
import { hookReceiver, startPlatform, type Platform } from '../support/platform';
import { freePorts } from '../support/processes';
import { WebhookReceiver } from '../support/webhook-receiver';

const ARTIFACTS = join(projectRoot(), 'test-artifacts');
const TABLET = { width: 1280, height: 800, deviceScaleFactor: 1 };

/** Polls on a timer: a tab behind another gets no animation frames to poll on. */
async function until(page: Page, condition: () => boolean | undefined | null, timeout = 15_000) {
  try {
    await page.waitForFunction(condition, { timeout, polling: 100 });
  } catch (error) {
    // What the page held when it gave up says more than the timeout.
    const held = await page
      .evaluate(() => {
        const { words: _words, ...held } = document.getElementById('board')?.dataset ?? {};
        return JSON.stringify({
          ...held,
          notice: document.querySelector('.notice')?.textContent,
          setup: document.querySelector('.setup-error')?.textContent,
          conflicts: [...document.querySelectorAll('ul.conflicts li')]
            .slice(0, 3)
            .map((li) => li.textContent),
        });
      })
      .catch(() => 'unreadable');
    throw new Error(`${String(condition)} did not hold: ${held}`, { cause: error });
  }
}

function board(page: Page): Promise<DOMStringMap> {
  return page.$eval('#board', (el) => ({ ...(el as HTMLElement).dataset }));
}

/** The system Chromium with a profile of its own, which a restart opens again. */
function launch(profile?: string): Promise<Browser> {
  return puppeteer.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: [...CHROMIUM_FLAGS],
    ...(profile === undefined ? {} : { userDataDir: profile }),
  });
}

interface TicketRow {
  id: string;
  number: string;
  status: string;
  created_at: Date;
  ready_at: Date | null;
  collected_at: Date | null;
  cancelled_at: Date | null;
}

describe('the staff board through an internet outage, in real headless Chromium', () => {
  let database: TestDatabase;
  let platform: Platform;
  let events: RunningEvents;
  let browser: Browser;
  let owner: SignedUp;
  let venueId: string;
  let branchId: string;
  let posKey: string;
  // The venue's line: the board's page and files, and its socket to the gateway.
  const pageLine = new OutageProxy();
  const liveLine = new OutageProxy();
  const receiver = new WebhookReceiver();

  beforeAll(async () => {
    database = await createTestDatabase();
    const [rest] = (await freePorts(1)) as [number];
    await pageLine.listen();
    await liveLine.listen();
    platform = await startPlatform(database, {
      REST_PORT: String(rest),
      PUBLIC_BASE_URL: `http://127.0.0.1:${pageLine.port}`,
      PUBLIC_LIVE_URL: `ws://127.0.0.1:${liveLine.port}/graphql`,
      PUBLIC_WRITE_RATE_LIMIT: '1000',
      // The receiver is a local server over plain HTTP.
      WEBHOOK_ALLOW_INSECURE: 'true',
    });
    pageLine.target = { host: '127.0.0.1', port: rest };
    liveLine.target = { host: '127.0.0.1', port: platform.ports.gateway.port };
    events = await startEvents(platform.config);
    owner = await signUpPerson(platform.gatewayUrl, { email: 'offline-owner@example.test', name: 'Owner' });
    ({ venueId, branchId, posKey } = await venueWithPos(platform.gatewayUrl, owner.token, {
      venue: 'مطعم الجسر',
      branch: 'المنصور',
    }));
    await hookReceiver(
      platform.config,
      Number(venueId),
      receiver,
      'ticket.created,ticket.ready,ticket.collected,ticket.cancelled',
    );
    browser = await launch();
    mkdirSync(ARTIFACTS, { recursive: true });
  });

  afterAll(async () => {
    await browser?.close();
    await events?.stop();
    await platform?.stop();
    await pageLine.close();
    await liveLine.close();
    await receiver.stop();
    await database.drop();
  });

  afterEach(() => {
    pageLine.restore();
    liveLine.restore();
  });

  async function data<T>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
    const reply = await askGraph(platform.gatewayUrl, query, variables, bearer(owner.token));
    expect(reply.errors).toBeUndefined();
    return reply.data as T;
  }

  /** The POS, which reaches the platform on its own line. */
  async function rest(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
    const response = await fetch(`${platform.restUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${posKey}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return (await response.json()) as Record<string, unknown>;
  }

  function outage(): void {
    pageLine.cut();
    liveLine.cut();
  }

  function lineBack(): void {
    pageLine.restore();
    liveLine.restore();
  }

  async function newDevice(name: string, settings: Record<string, unknown> = {}) {
    const { createBoardDevice } = await data<{ createBoardDevice: { url: string; device: { id: string } } }>(
      'mutation ($i: CreateBoardDeviceInput!) { createBoardDevice(input: $i) { url device { id } } }',
      { i: { branchId, name, ...settings } },
    );
    return createBoardDevice;
  }

  /** Pairs a tablet and waits until its service worker holds the board and it holds numbers. */
  async function pair(owner: Browser | BrowserContext, url: string, language = 'ar'): Promise<Page> {
    const page = await owner.newPage();
    page.on('pageerror', (error) => console.log('BOARD ERR', String(error)));
    page.on('console', (message) => console.log('BOARD', message.text()));
    await page.setViewport(TABLET);
    await page.setExtraHTTPHeaders({ 'accept-language': language });
    await page.goto(url, { waitUntil: 'load' });
    await until(page, () => document.getElementById('board')?.dataset.state === 'live');
    await until(page, () => navigator.serviceWorker.controller !== null);
    await until(page, () => Number(document.getElementById('board')?.dataset.leased) >= 10);
    return page;
  }

  async function createOnBoard(page: Page, customerName?: string): Promise<void> {
    if (customerName !== undefined) await page.type('.new-ticket input[name=customerName]', customerName);
    await page.click('.new-ticket button[type=submit]');
  }

  async function tap(page: Page, number: string, action: string): Promise<void> {
    await page.waitForSelector(`li[data-number="${number}"] button[data-action=${action}]`);
    await page.$eval(`li[data-number="${number}"] button[data-action=${action}]`, (button) => button.click());
  }

  async function tickets(): Promise<TicketRow[]> {
    return (await database.query(
      'select id::text, number, status, created_at, ready_at, collected_at, cancelled_at from tickets.tickets where branch_id = $1 order by id',
      [branchId],
    )) as unknown as TicketRow[];
  }

  /** What the board's queue holds: each change's kind, number and moment by the platform's clock. */
  function queued(page: Page): Promise<{ kind: string; number: string; at: number }[]> {
    return page.evaluate(
      () =>
        new Promise<{ kind: string; number: string; at: number }[]>((resolve, reject) => {
          const opened = indexedDB.open('staff-board');
          opened.onsuccess = () => {
            const all = opened.result.transaction(['queue'], 'readonly').objectStore('queue').getAll();
            all.onsuccess = () =>
              resolve(
                (all.result as { kind: string; number: string; at: number; offset: number }[]).map((c) => ({
                  kind: c.kind,
                  number: c.number,
                  at: c.at + c.offset,
                })),
              );
            all.onerror = () => reject(new Error(String(all.error)));
          };
          opened.onerror = () => reject(new Error(String(opened.error)));
        }),
    );
  }

  it('keeps a ten-minute service going through an outage, a reload and a restart, then syncs it exactly once', async () => {
    const profile = mkdtempSync(join(tmpdir(), 'board-profile-'));
    let tablet = await launch(profile);
    try {
      const device = await newDevice('Kitchen tablet', { numberPrefix: 'K', callsWhenOffline: true });
      let page = await pair(tablet, device.url);
      // Twenty orders from the till before the line goes.
      const fromTill: string[] = [];
      for (let i = 0; i < 20; i++) fromTill.push(String((await rest('POST', '/tickets', {})).number));
      await until(page, () => document.querySelectorAll('[data-list="waiting"] li.ticket').length === 20);
      const leased = await page.evaluate(
        () =>
          new Promise<string[]>((resolve) => {
            const opened = indexedDB.open('staff-board');
            opened.onsuccess = () => {
              const get = opened.result.transaction(['state'], 'readonly').objectStore('state').get('lease');
              get.onsuccess = () => resolve((get.result as { numbers: string[] }).numbers);
            };
          }),
      );
      expect(leased.length).toBeGreaterThanOrEqual(20);

      outage();
      await until(page, () => document.getElementById('board')?.classList.contains('stale'));
      // Ten orders made offline, and the till's first ten marked ready.
      for (let i = 0; i < 10; i++) await createOnBoard(page, i % 2 === 0 ? `زبون ${i}` : undefined);
      for (const number of fromTill.slice(0, 10)) await tap(page, number, 'ready');
      await until(page, () => document.getElementById('board')?.dataset.pending === '20');
      expect((await board(page)).calledAloud).toBe('10');
      await page.screenshot({ path: join(ARTIFACTS, 'board-offline-ar.png') });

      // A reload with no line: the service worker's page, the queue from IndexedDB.
      await page.reload({ waitUntil: 'load' });
      await until(page, () => document.getElementById('board')?.dataset.pending === '20');
      expect(await page.$$eval('[data-list="waiting"] li.ticket', (items) => items.length)).toBe(20);
      for (let i = 0; i < 10; i++) await createOnBoard(page);
      for (const number of fromTill.slice(10)) await tap(page, number, 'ready');
      await until(page, () => document.getElementById('board')?.dataset.pending === '40');

      // The tablet restarts, still with no line.
      await tablet.close();
      tablet = await launch(profile);
      page = await tablet.newPage();
      await page.setViewport(TABLET);
      await page.goto(`http://127.0.0.1:${pageLine.port}/board`, { waitUntil: 'load' });
      await until(page, () => document.getElementById('board')?.dataset.pending === '40');
      // Shown at once from what the tablet kept, marked with when the platform last confirmed it.
      expect(await page.$eval('.offline .confirmed', (el) => el.textContent)).toMatch(
        /^(Last confirmed at|آخر تأكيد في) \S+/,
      );
      const madeOffline = await page.$$eval('li.ticket.unsent', (items) =>
        items.map((item) => (item as HTMLElement).dataset.number ?? ''),
      );
      const created = madeOffline.filter((number) => !fromTill.includes(number));
      expect(created).toHaveLength(20);
      expect(created.every((number) => leased.includes(number))).toBe(true);
      // Everything made offline is ready, then collected: sixty moves in all.
      for (const number of created) await tap(page, number, 'ready');
      await until(page, () => document.getElementById('board')?.dataset.pending === '60', 20_000);
      for (const number of created) await tap(page, number, 'collected');
      await until(page, () => document.getElementById('board')?.dataset.pending === '80');
      const changes = await queued(page);

      lineBack();
      await until(page, () => document.getElementById('board')?.dataset.pending === '0', 60_000);
      await until(page, () => document.getElementById('board')?.dataset.conflicts === '0');

      const rows = await tickets();
      const byNumber = new Map(rows.map((row) => [row.number, row]));
      expect(rows.filter((row) => created.includes(row.number))).toHaveLength(20);
      for (const change of changes) {
        const row = byNumber.get(change.number)!;
        const stamped = {
          create: row.created_at,
          ready: row.ready_at,
          collected: row.collected_at,
        }[change.kind as 'create' | 'ready' | 'collected'];
        expect(Math.abs(stamped!.getTime() - change.at)).toBeLessThan(1_000);
      }
      for (const number of fromTill) expect(byNumber.get(number)!.status).toBe('ready');
      for (const number of created) expect(byNumber.get(number)!.status).toBe('collected');
      // One webhook for every change, none twice.
      // Forty creations (twenty at the till, twenty offline), forty readies, twenty collections.
      await receiver.waitFor((hooks) => hooks.length >= 100, 60_000);
      const delivered = receiver.received.map(
        (hook) => `${hook.json.event}:${String(hook.json.data.ticket.number)}`,
      );
      expect(new Set(delivered).size).toBe(delivered.length);
      expect(delivered.filter((event) => event.startsWith('ticket.ready'))).toHaveLength(40);
      expect(delivered.filter((event) => event.startsWith('ticket.collected'))).toHaveLength(20);
    } finally {
      await tablet.close();
      rmSync(profile, { recursive: true, force: true });
    }
  }, 180_000);

  it('sends a change again after its answer was lost, and the platform keeps it once', async () => {
    const context = await browser.createBrowserContext();
    try {
      const device = await newDevice('Counter tablet');
      const page = await pair(context, device.url);
      outage();
      await until(page, () => document.getElementById('board')?.classList.contains('stale'));
      await createOnBoard(page, 'Lost answer');
      await until(page, () => document.getElementById('board')?.dataset.pending === '1');
      const [change] = await queued(page);
      // The platform applies the creation; the line dies before the board hears of it.
      liveLine.cutOnReply((reply) => reply.includes('createTicket'));
      lineBack();
      const deadline = Date.now() + 15_000;
      while (liveLine.up && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(liveLine.up).toBe(false);
      const during = (await tickets()).filter((row) => row.number === change!.number);
      expect(during).toHaveLength(1);
      expect((await board(page)).pending).toBe('1');
      lineBack();
      await until(page, () => document.getElementById('board')?.dataset.pending === '0', 30_000);
      expect((await tickets()).filter((row) => row.number === change!.number)).toHaveLength(1);
      await receiver.waitFor((hooks) =>
        hooks.some(
          (hook) => hook.json.event === 'ticket.created' && hook.json.data.ticket.number === change!.number,
        ),
      );
      const hooks = receiver.received.filter(
        (hook) => hook.json.event === 'ticket.created' && hook.json.data.ticket.number === change!.number,
      );
      expect(hooks).toHaveLength(1);
    } finally {
      await context.close();
    }
  });

  it.each(['ar', 'en'])(
    'shows a move the till overtook while offline as a conflict in words (%s), until dismissed',
    async (language) => {
      const context = await browser.createBrowserContext();
      try {
        const device = await newDevice(`Tablet ${language}`);
        const page = await pair(context, device.url, language);
        const ticket = await rest('POST', '/tickets', {});
        const number = String(ticket.number);
        await page.waitForSelector(`li[data-number="${number}"]`);
        outage();
        await until(page, () => document.getElementById('board')?.classList.contains('stale'));
        await tap(page, number, 'ready');
        await until(page, () => document.getElementById('board')?.dataset.pending === '1');
        await page.screenshot({ path: join(ARTIFACTS, `board-offline-waiting-${language}.png`) });
        // The till cancels the order meanwhile, on its own line.
        await rest('POST', `/tickets/${String(ticket.id)}/cancel`);
        lineBack();
        await until(page, () => document.getElementById('board')?.dataset.conflicts === '1', 30_000);
        const said = await page.$eval('ul.conflicts li', (item) => item.textContent ?? '');
        expect(said).toContain(
          language === 'ar'
            ? `أُلغي الطلب ${number} من مكان آخر أثناء انقطاع اللوحة`
            : `Order ${number} was cancelled elsewhere while this board was offline`,
        );
        expect(await page.$(`li.ticket[data-number="${number}"]`)).toBeNull();
        await page.screenshot({ path: join(ARTIFACTS, `board-conflict-${language}.png`) });
        await page.click('ul.conflicts button[data-action=dismiss]');
        await until(page, () => document.getElementById('board')?.dataset.conflicts === '0');
        expect(await page.$eval('.sync-status', (el) => (el as HTMLElement).hidden)).toBe(true);
      } finally {
        await context.close();
      }
    },
  );

  it('sends a ring tapped offline only while it can help, and says when it did not', async () => {
    const context = await browser.createBrowserContext();
    try {
      const device = await newDevice('Ring tablet');
      const page = await pair(context, device.url, 'en');
      const ticket = await rest('POST', '/tickets', {});
      const number = String(ticket.number);
      await rest('POST', `/tickets/${String(ticket.id)}/ready`);
      // Its ready alert was a minute ago, so the ring interval allows another.
      await database.query(
        `update tickets.tickets set last_alert_at = now() - interval '1 minute', updated_at = now() - interval '1 minute' where id = $1`,
        [ticket.id],
      );
      await page.reload({ waitUntil: 'load' });
      await until(page, () => document.getElementById('board')?.dataset.state === 'live');
      outage();
      await until(page, () => document.getElementById('board')?.classList.contains('stale'));
      await tap(page, number, 'ring');
      await until(page, () => document.getElementById('board')?.dataset.pending === '1');
      // The line stays down three minutes: the tablet's queue says the tap is that old.
      await page.evaluate(
        () =>
          new Promise<void>((resolve) => {
            const opened = indexedDB.open('staff-board');
            opened.onsuccess = () => {
              const queue = opened.result.transaction(['queue'], 'readwrite').objectStore('queue');
              const all = queue.getAll();
              all.onsuccess = () => {
                for (const change of all.result as { at: number }[])
                  queue.put({ ...change, at: change.at - 180_000 });
                queue.transaction.oncomplete = () => resolve();
              };
            };
          }),
      );
      await page.reload({ waitUntil: 'load' });
      await until(page, () => document.getElementById('board')?.dataset.pending === '1');
      const rings = async () =>
        (await database.query('select ring_count from tickets.tickets where id = $1', [ticket.id]))[0]!
          .ring_count;
      const before = await rings();
      lineBack();
      await until(page, () => document.getElementById('board')?.dataset.conflicts === '1', 30_000);
      expect(await page.$eval('ul.conflicts li span', (el) => el.textContent)).toBe(
        `Order ${number} was not rung again: the ring was over two minutes old when the line came back`,
      );
      expect(await rings()).toBe(before);
    } finally {
      await context.close();
    }
  });

  it('drops the queue of a device removed during the outage, saying how many changes were not applied', async () => {
    const context = await browser.createBrowserContext();
    try {
      const device = await newDevice('Removed tablet');
      const page = await pair(context, device.url, 'en');
      outage();
      await until(page, () => document.getElementById('board')?.classList.contains('stale'));
      await createOnBoard(page);
      await createOnBoard(page);
      await until(page, () => document.getElementById('board')?.dataset.pending === '2');
      await data('mutation ($id: ID!) { revokeBoardDevice(id: $id) { id } }', { id: device.device.id });
      const before = (await tickets()).length;
      lineBack();
      await until(page, () => document.getElementById('board')?.dataset.state === 'setup', 30_000);
      expect(await page.$eval('.setup-error', (el) => el.textContent)).toBe(
        'This board was removed. Changes made offline and not applied: 2',
      );
      expect((await board(page)).pending).toBe('0');
      expect((await tickets()).length).toBe(before);
    } finally {
      await context.close();
    }
  });

  it('gives two boards of one branch, offline at once, numbers that never meet, then the device’s prefix', async () => {
    const first = await browser.createBrowserContext();
    const second = await browser.createBrowserContext();
    try {
      const one = await pair(first, (await newDevice('Left', { numberPrefix: 'L' })).url, 'en');
      const two = await pair(second, (await newDevice('Right', { numberPrefix: 'R' })).url, 'en');
      outage();
      await until(one, () => document.getElementById('board')?.classList.contains('stale'));
      await until(two, () => document.getElementById('board')?.classList.contains('stale'));
      const leasedOne = Number((await board(one)).leased);
      for (let i = 0; i <= leasedOne; i++) await createOnBoard(one);
      for (let i = 0; i < 5; i++) await createOnBoard(two);
      await one.waitForFunction(
        (count: string) => document.getElementById('board')?.dataset.pending === count,
        { timeout: 15_000, polling: 100 },
        String(leasedOne + 1),
      );
      // The lease ran out: the board said so and used the device's own series.
      expect(await one.$eval('.notice', (el) => el.textContent)).toBe(
        'The reserved numbers ran out: this order takes L1',
      );
      const numbers = [...(await queued(one)), ...(await queued(two))].map((change) => change.number);
      expect(new Set(numbers).size).toBe(numbers.length);
      expect(numbers).toContain('L1');
      lineBack();
      await until(one, () => document.getElementById('board')?.dataset.pending === '0', 30_000);
      await until(two, () => document.getElementById('board')?.dataset.pending === '0', 30_000);
      const open = (await tickets()).filter((row) => numbers.includes(row.number));
      expect(open).toHaveLength(numbers.length);
    } finally {
      await first.close();
      await second.close();
    }
  });

  it('shows the display’s last state as reconnecting, and catches up within 2 s of the line returning', async () => {
    const { createDisplay } = await data<{ createDisplay: { url: string } }>(
      'mutation ($i: CreateDisplayInput!) { createDisplay(input: $i) { url } }',
      { i: { branchId, name: 'Hall TV', language: 'en' } },
    );
    const tv = await browser.newPage();
    try {
      await tv.goto(createDisplay.url, { waitUntil: 'load' });
      await until(tv, () => document.getElementById('display')?.dataset.state === 'live');
      const ticket = await rest('POST', '/tickets', {});
      const number = String(ticket.number);
      await tv.waitForSelector(`[data-list="waiting"] li[data-number="${number}"]`);
      liveLine.cut();
      await until(tv, () => document.getElementById('display')?.dataset.state === 'offline');
      expect(await tv.$eval('.offline', (el) => [(el as HTMLElement).hidden, el.textContent])).toEqual([
        false,
        'Offline — reconnecting',
      ]);
      await rest('POST', `/tickets/${String(ticket.id)}/ready`);
      // Long enough for the display's retries to back off as far as they go.
      await new Promise((resolve) => setTimeout(resolve, 5_000));
      expect(await tv.$(`[data-list="waiting"] li[data-number="${number}"]`)).not.toBeNull();
      const back = Date.now();
      liveLine.restore();
      await tv.waitForSelector(`[data-list="ready"] li[data-number="${number}"]`, { timeout: 10_000 });
      expect(Date.now() - back).toBeLessThan(2_000);
    } finally {
      await tv.close();
    }
  });
});
