/// <reference lib="dom" />
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import jsQR from 'jsqr';
import type { MikroORM } from '@mikro-orm/postgresql';
import { PNG } from 'pngjs';
import { type Browser, type Page } from 'puppeteer-core';
import { openSchema } from '../../common/database';
import { projectRoot } from '../../common/paths';
import { SUBGRAPHS } from '../../subgraphs';
import { startEvents, type RunningEvents } from '../../subgraphs/tickets/events/events';
import { formatWhatsAppCode, linkWhatsApp } from '../../subgraphs/tickets/tickets';
import { launchChromium } from '../support/chromium';
import { createTestDatabase, type TestDatabase } from '../support/database';
import {
  admin,
  hookReceiver,
  newTicketBranch,
  startPlatform,
  type Platform,
  type TicketBranch,
} from '../support/platform';
import { freePorts } from '../support/processes';
import { waitUntil } from '../support/wait';
import { WebhookReceiver } from '../support/webhook-receiver';

const ARTIFACTS = join(projectRoot(), 'test-artifacts');
const DOC_IMAGES = join(projectRoot(), 'docs', 'images');
const BUSINESS_NUMBER = '9647800000001';

/** WhatsApp configured with loopback values only: nothing is sent to Meta in these tests. */
const WHATSAPP_ENV = {
  WHATSAPP_GRAPH_URL: 'http://127.0.0.1:9/v21.0',
  WHATSAPP_PHONE_NUMBER_ID: '100000000000001',
  WHATSAPP_ACCESS_TOKEN: 'local-access-token-for-tests-only',
  WHATSAPP_APP_SECRET: 'local-app-secret-for-tests',
  WHATSAPP_VERIFY_TOKEN: 'local-verify-token-for-tests',
  WHATSAPP_BUSINESS_NUMBER: BUSINESS_NUMBER,
};

describe('the ticket page’s WhatsApp opt-in in real headless Chromium', () => {
  let database: TestDatabase;
  let platform: Platform;
  let events: RunningEvents;
  let branch: TicketBranch;
  let plain: TicketBranch;
  let browser: Browser;
  let orm: MikroORM;
  const receiver = new WebhookReceiver();

  beforeAll(async () => {
    database = await createTestDatabase();
    const [rest] = (await freePorts(1)) as [number];
    const origin = `http://127.0.0.1:${rest}`;
    platform = await startPlatform(database, {
      REST_PORT: String(rest),
      PUBLIC_BASE_URL: origin,
      WEBHOOK_ALLOW_INSECURE: 'true',
      ...WHATSAPP_ENV,
    });
    events = await startEvents(platform.config);
    branch = await newTicketBranch(platform.config, { plan: 'growth', sms: 'on' });
    await admin(platform.config, 'venue', 'set-whatsapp', '--id', String(branch.venueId), '--whatsapp', 'on');
    // Every documented event and the ring: a link must reach none of them.
    await hookReceiver(
      platform.config,
      branch.venueId,
      receiver,
      'ticket.created,ticket.linked,ticket.ready,ticket.collected,ticket.cancelled,feedback.submitted,ticket.rung',
    );
    plain = await newTicketBranch(platform.config, { plan: 'growth', sms: 'on' });
    const tickets = SUBGRAPHS.find((subgraph) => subgraph.name === 'tickets')!;
    orm = await openSchema(platform.config, tickets.schemaModule);
    browser = await launchChromium(platform.config.render.chromiumPath);
    mkdirSync(ARTIFACTS, { recursive: true });
    mkdirSync(DOC_IMAGES, { recursive: true });
  });

  afterAll(async () => {
    await browser?.close();
    await orm?.close(true);
    await events?.stop();
    await platform?.stop();
    await receiver.stop();
    await database.drop();
  });

  const create = async (key: string, number: string) => {
    const response = await fetch(`${platform.restUrl}/tickets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ number }),
    });
    expect(response.status).toBe(201);
    return (await response.json()) as { id: number; public_url: string; qr_url: string };
  };

  const subscribers = async () => {
    const response = await fetch(platform.gatewayUrl.replace(/\/graphql$/, '/healthz'));
    return ((await response.json()) as { subscribers: number }).subscribers;
  };

  async function open(url: string): Promise<Page> {
    const before = await subscribers();
    const page = await browser.newPage();
    await page.setViewport({ width: 390, height: 844, deviceScaleFactor: 1 });
    await page.goto(url, { waitUntil: 'load' });
    await waitUntil(async () => (await subscribers()) > before, 10_000, 'the page’s subscription');
    return page;
  }

  const storedCode = async (ticketId: number) =>
    (
      await orm.em
        .fork()
        .execute<{ whatsapp_code: string }[]>('select whatsapp_code from tickets.tickets where id = ?', [
          ticketId,
        ])
    )[0]?.whatsapp_code;

  /** The button's label and href, the stored code, and what the prefilled text says. */
  async function button(page: Page, ticketId: number) {
    const [label, href] = await page.$eval('.whatsapp-button', (el) => [
      el.textContent,
      el.getAttribute('href'),
    ]);
    const url = new URL(String(href));
    const code = await storedCode(ticketId);
    return { label, url, code: formatWhatsAppCode(String(code)), text: url.searchParams.get('text') };
  }

  const shows = (page: Page, selector: string) =>
    page.$eval(selector, (el) => el.getBoundingClientRect().height > 0);

  it.each([
    ['ar', 'أبلغني عبر واتساب', 'سنبلغك عبر واتساب عندما يجهز طلبك'],
    ['en', 'Notify me on WhatsApp', 'You’ll be told on WhatsApp when it’s ready'],
  ])(
    'shows the %s page’s button to the prefilled chat, then “you’ll be told” once the chat is linked, without a reload',
    async (language, label, linked) => {
      const ticket = await create(branch.key, language === 'ar' ? 'A-42' : 'E-42');
      const page = await open(`${ticket.public_url}?lang=${language}`);
      try {
        const shown = await button(page, ticket.id);
        expect(shown.label).toBe(label);
        expect(shown.url.origin + shown.url.pathname).toBe(`https://wa.me/${BUSINESS_NUMBER}`);
        // The venue speaks Arabic: the customer's message is Arabic on either page.
        expect(shown.text).toBe(
          `أبلغوني عندما يجهز الطلب ${language === 'ar' ? 'A-42' : 'E-42'}. الرمز: ${shown.code}`,
        );
        expect(shown.code).toMatch(/^[2-9A-HJKMNP-Z]{4}-[2-9A-HJKMNP-Z]{4}$/);
        expect(await shows(page, '.whatsapp-button')).toBe(true);
        expect(await shows(page, '.whatsapp-linked')).toBe(false);
        // Above the SMS form.
        expect(
          await page.$eval('.whatsapp', (el) =>
            Boolean(el.compareDocumentPosition(document.querySelector('form.sms')!) & 4),
          ),
        ).toBe(true);
        const image = `ticket-page-whatsapp-${language}.png`;
        await page.screenshot({ path: join(ARTIFACTS, image) });
        copyFileSync(join(ARTIFACTS, image), join(DOC_IMAGES, image));

        expect(await linkWhatsApp(orm.em.fork(), ticket.id, '9647701234567')).toBe(true);
        await page.waitForFunction(
          () => document.querySelector<HTMLElement>('.whatsapp')?.dataset.linked === 'true',
          { timeout: 5_000 },
        );
        expect(await shows(page, '.whatsapp-button')).toBe(false);
        expect(await page.$eval('.whatsapp-linked', (el) => el.textContent)).toBe(linked);
        expect(await shows(page, '.whatsapp-linked')).toBe(true);
        const after = `ticket-page-whatsapp-${language}-linked.png`;
        await page.screenshot({ path: join(ARTIFACTS, after) });
        copyFileSync(join(ARTIFACTS, after), join(DOC_IMAGES, after));
      } finally {
        await page.close();
      }
    },
  );

  it('sends integrators no webhook for a link', async () => {
    await waitUntil(
      () =>
        Promise.resolve(receiver.received.filter((hook) => hook.json.event === 'ticket.linked').length >= 2),
      10_000,
      'the pages’ ticket.linked webhooks',
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    const names = new Set(receiver.received.map((hook) => hook.json.event));
    expect([...names].sort()).toEqual(['ticket.created', 'ticket.linked']);
  });

  it('encodes the WhatsApp link in the QR image with ?to=whatsapp, and refuses it where WhatsApp is off', async () => {
    const ticket = await create(branch.key, 'Q-7');
    const response = await fetch(`${ticket.qr_url}?to=whatsapp`);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const png = PNG.sync.read(Buffer.from(await response.arrayBuffer()));
    const decoded = jsQR(new Uint8ClampedArray(png.data), png.width, png.height);
    const url = new URL(String(decoded?.data));
    expect(url.origin + url.pathname).toBe(`https://wa.me/${BUSINESS_NUMBER}`);
    expect(url.searchParams.get('text')).toContain(formatWhatsAppCode(String(await storedCode(ticket.id))));
    expect((await fetch(`${ticket.qr_url}?to=telegram`)).status).toBe(422);

    const off = await create(plain.key, 'Q-8');
    const refused = await fetch(`${off.qr_url}?to=whatsapp`);
    expect(refused.status).toBe(404);
    expect(((await refused.json()) as { message: string }).message).toMatch(/no WhatsApp link/);
    // Without `to`, the page's QR as before.
    expect((await fetch(off.qr_url)).status).toBe(200);
  });

  it('shows no WhatsApp at a venue without it', async () => {
    const ticket = await create(plain.key, 'P-1');
    const page = await open(ticket.public_url);
    try {
      expect(await page.$('.whatsapp')).toBeNull();
    } finally {
      await page.close();
    }
  });
});
