import { randomInt } from 'node:crypto';
import BeeQueue from 'bee-queue';
import { startEvents, type RunningEvents } from '../../subgraphs/tickets/events';
import { startRestAdapter } from '../../rest-adapter/rest-adapter';
import { createTestDatabase, testConfig, type TestDatabase } from '../support/database';
import {
  admin,
  newTicketBranch,
  platformEnv,
  startPlatform,
  type Platform,
  type TicketBranch,
} from '../support/platform';
import { freePorts, PROCESS_KINDS, startProcess, type PlatformProcess } from '../support/processes';
import { SmsProvider } from '../support/sms-provider';
import { waitUntil } from '../support/wait';
import { scrapedSum } from '../support/metrics';
import { WhatsAppGraph } from '../support/whatsapp-graph';

const VERIFY_TOKEN = 'verify-token-0123456789abcdef';
const OTHER_SECRET = 'another-app-secret-0123456789ab';
/** The previous app secret, still accepted during a roll (WHATSAPP_APP_SECRET_SECONDARY). */
const PREVIOUS_SECRET = 'previous-app-secret-0123456789a';

/** The WHATSAPP_* variables pointing the platform at the fake Graph API (loopback only). */
function whatsAppEnv(
  graph: WhatsAppGraph,
  graphUrl: string,
  extra: NodeJS.ProcessEnv = {},
): NodeJS.ProcessEnv {
  return {
    WHATSAPP_GRAPH_URL: graphUrl,
    WHATSAPP_PHONE_NUMBER_ID: graph.phoneNumberId,
    WHATSAPP_ACCESS_TOKEN: graph.accessToken,
    WHATSAPP_APP_SECRET: graph.appSecret,
    WHATSAPP_VERIFY_TOKEN: VERIFY_TOKEN,
    WHATSAPP_BUSINESS_NUMBER: '9647800000001',
    WHATSAPP_APP_SECRET_SECONDARY: PREVIOUS_SECRET,
    WHATSAPP_FALLBACK_SECONDS: '5',
    ...extra,
  };
}

describe('the WhatsApp webhook door', () => {
  let database: TestDatabase;
  let platform: Platform;
  let origin: string;
  const graph = new WhatsAppGraph();

  beforeAll(async () => {
    database = await createTestDatabase();
    platform = await startPlatform(database, whatsAppEnv(graph, await graph.start()));
    origin = platform.restUrl.replace(/\/api\/v1$/, '');
  });

  afterAll(async () => {
    await platform?.stop();
    await graph.stop();
    await database?.drop();
  });

  const verification = (query: Record<string, string>) =>
    fetch(`${origin}/webhooks/whatsapp?${new URLSearchParams(query).toString()}`);

  const queuedJobs = async () => {
    const queue = new BeeQueue('whatsapp-inbound', {
      prefix: `${platform.config.redisPrefix}bq`,
      redis: { url: platform.config.redis.kind === 'url' ? platform.config.redis.url : undefined },
      isWorker: false,
      getEvents: false,
    });
    try {
      const health = await queue.checkHealth();
      return health.waiting + health.active + health.delayed;
    } finally {
      await queue.close();
    }
  };

  it('answers Meta’s verification with exactly the challenge, as text/plain, and 403 to anything else', async () => {
    const ok = await verification({
      'hub.mode': 'subscribe',
      'hub.verify_token': VERIFY_TOKEN,
      'hub.challenge': '1158201444',
    });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await ok.text()).toBe('1158201444');
    const refused: Record<string, string>[] = [
      { 'hub.mode': 'subscribe', 'hub.verify_token': 'wrong-token-0123456789abcdef', 'hub.challenge': '1' },
      { 'hub.mode': 'unsubscribe', 'hub.verify_token': VERIFY_TOKEN, 'hub.challenge': '1' },
      { 'hub.mode': 'subscribe', 'hub.challenge': '1' },
    ];
    for (const query of refused) {
      expect((await verification(query)).status).toBe(403);
    }
    const metrics = platform.ports['rest-adapter'].metricsPort;
    expect(await scrapedSum(metrics, 'nida_whatsapp_webhook_requests_total', 'result="verified"')).toBe(1);
    expect(await scrapedSum(metrics, 'nida_whatsapp_webhook_requests_total', 'result="verify_refused"')).toBe(
      3,
    );
  });

  it('refuses a missing, wrong or other-secret signature with 401 and queues nothing', async () => {
    const url = `${origin}/webhooks/whatsapp`;
    const payload = graph.messagesPayload([{ from: '9647701234567', body: 'hello' }]);
    const before = await queuedJobs();
    expect((await graph.post(url, payload, { signature: null })).status).toBe(401);
    expect((await graph.post(url, payload, { signature: 'sha256=' + '0'.repeat(64) })).status).toBe(401);
    expect((await graph.post(url, payload, { signature: 'garbage' })).status).toBe(401);
    expect((await graph.post(url, payload, { secret: OTHER_SECRET })).status).toBe(401);
    expect(await queuedJobs()).toBe(before);
  });

  it('answers a payload signed with the app secret, or the previous one during a roll, 200 at once and queues it', async () => {
    const url = `${origin}/webhooks/whatsapp`;
    const before = await queuedJobs();
    const payload = graph.messagesPayload([{ from: '9647701234567', body: 'hello' }]);
    expect(await graph.post(url, payload)).toEqual({ status: 200, text: 'OK' });
    expect((await graph.post(url, payload, { secret: PREVIOUS_SECRET })).status).toBe(200);
    expect(await queuedJobs()).toBe(before + 2);
  });
});

describe('the WhatsApp webhook while WhatsApp is not configured', () => {
  it('is an unknown route: 404 on both methods', async () => {
    const database = await createTestDatabase();
    const adapter = await startRestAdapter(testConfig(database));
    try {
      const url = `http://127.0.0.1:${adapter.port}/webhooks/whatsapp`;
      expect((await fetch(`${url}?hub.mode=subscribe`)).status).toBe(404);
      expect((await fetch(url, { method: 'POST', body: '{}' })).status).toBe(404);
    } finally {
      await adapter.stop();
      await database.drop();
    }
  });
});

/** A customer's chat and phone of their own, so no test sees another's messages. */
let customers = 0;
const newCustomer = () => {
  customers += 1;
  const digits = String(1_000_000 + customers * 7919 + randomInt(1000)).slice(-7);
  return { waId: `964771${digits}`, phone: `0771${digits}`, e164: `+964771${digits}` };
};

describe('WhatsApp: linking a chat, the ready alert and SMS as its fallback', () => {
  let database: TestDatabase;
  let platform: Platform;
  let events: RunningEvents;
  let webhook: string;
  let branch: TicketBranch;
  const graph = new WhatsAppGraph();
  const sms = new SmsProvider();

  beforeAll(async () => {
    database = await createTestDatabase();
    const smsUrl = await sms.start();
    platform = await startPlatform(
      database,
      whatsAppEnv(graph, await graph.start(), {
        SMS_DRIVER: 'http',
        SMS_HTTP_URL: smsUrl,
        SMS_RETRY_SCHEDULE: '100ms',
      }),
    );
    events = await startEvents(platform.config);
    webhook = `${platform.restUrl.replace(/\/api\/v1$/, '')}/webhooks/whatsapp`;
    branch = await newTicketBranch(platform.config, { sms: 'on' });
    await admin(platform.config, 'venue', 'set-whatsapp', '--id', String(branch.venueId), '--whatsapp', 'on');
  });

  afterAll(async () => {
    await events?.stop();
    await platform?.stop();
    await graph.stop();
    await sms.stop();
    await database?.drop();
  });

  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${platform.restUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${branch.key}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  /** A waiting ticket with a phone, and the prefilled text of its page's WhatsApp link (`whatsappUrl`). */
  const newTicket = async (phone: string, number: string) => {
    const created = await call('POST', '/tickets', { customer_phone: phone, number });
    expect(created.status).toBe(201);
    const answer = await fetch(platform.gatewayUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        query: 'query ($t: String!) { ticketByToken(token: $t) { whatsappUrl } }',
        variables: { t: created.body.token },
      }),
    });
    const { data } = (await answer.json()) as { data: { ticketByToken: { whatsappUrl: string } } };
    const link = new URL(data.ticketByToken.whatsappUrl);
    expect(link.origin + link.pathname).toBe('https://wa.me/9647800000001');
    return { id: Number(created.body.id), number, prefilled: link.searchParams.get('text')! };
  };

  /** The customer sends the prefilled text; resolves once our confirmation reached the fake. */
  const linkedTicket = async (number: string, options: { timestamp?: number } = {}) => {
    const customer = newCustomer();
    const ticket = await newTicket(customer.phone, number);
    const inbound = { from: customer.waId, body: ticket.prefilled, ...options };
    expect((await graph.post(webhook, graph.messagesPayload([inbound]))).status).toBe(200);
    await waitUntil(() => graph.sendsTo(customer.waId).length === 1, 10_000, 'the confirmation');
    return { customer, ticket };
  };

  const ready = async (id: number) => expect((await call('POST', `/tickets/${id}/ready`)).status).toBe(200);
  const smsTo = (e164: string) => sms.requests.filter((r) => r.body.to === e164);
  const messageRows = (ticketId: number) =>
    database.query(
      'select kind, status, template, message_id, error from tickets.whatsapp_messages where ticket_id = $1 order by id',
      [ticketId],
    );
  const smsRow = async (ticketId: number) =>
    (
      await database.query('select status, last_error from tickets.sms_messages where ticket_id = $1', [
        ticketId,
      ])
    )[0];
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('links the chat that sends the ticket’s code and confirms once, in the venue’s language, however often Meta resends it', async () => {
    const customer = newCustomer();
    const ticket = await newTicket(customer.phone, 'W1');
    const payload = graph.messagesPayload([
      { from: customer.waId, body: ticket.prefilled, id: `wamid.in-${ticket.id}` },
    ]);
    expect((await graph.post(webhook, payload)).status).toBe(200);
    expect((await graph.post(webhook, payload)).status).toBe(200);
    await waitUntil(() => graph.sendsTo(customer.waId).length === 1, 10_000, 'the confirmation');
    await sleep(1_000);
    const sends = graph.sendsTo(customer.waId);
    expect(sends).toHaveLength(1);
    expect(sends[0]!.body).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: customer.waId,
      type: 'text',
      text: { preview_url: false, body: 'شكراً! سنرسل لك رسالة هنا عندما يجهز طلبك رقم W1 في Samarra Grill.' },
    });
    expect(sends[0]!.headers.authorization).toBe(`Bearer ${graph.accessToken}`);
    expect(
      await database.query('select wa_id, unlinked_at from tickets.whatsapp_links where ticket_id = $1', [
        ticket.id,
      ]),
    ).toEqual([{ wa_id: customer.waId, unlinked_at: null }]);
  });

  it('ignores a payload for another phone number id, and answers other texts with the code hint at most once an hour', async () => {
    const customer = newCustomer();
    const other = graph.messagesPayload([{ from: customer.waId, body: 'hello' }], '999999999999');
    expect((await graph.post(webhook, other)).status).toBe(200);
    await sleep(1_000);
    expect(graph.sendsTo(customer.waId)).toHaveLength(0);
    for (const body of ['hello', 'is my order ready?']) {
      expect((await graph.post(webhook, graph.messagesPayload([{ from: customer.waId, body }]))).status).toBe(
        200,
      );
    }
    await waitUntil(() => graph.sendsTo(customer.waId).length === 1, 10_000, 'the hint');
    await sleep(1_000);
    expect(graph.sendsTo(customer.waId)).toHaveLength(1);
    expect(graph.sendsTo(customer.waId)[0]!.body.text?.body).toContain('أرسل الرمز المطبوع على إيصالك');
  });

  it('sends exactly one WhatsApp message on ready, and no SMS once it is sent', async () => {
    const { customer, ticket } = await linkedTicket('W2');
    await ready(ticket.id);
    await waitUntil(() => graph.sendsTo(customer.waId).length === 2, 10_000, 'the ready alert');
    const alert = graph.sendsTo(customer.waId)[1]!;
    expect(alert.body.type).toBe('text');
    expect(alert.body.text?.body).toBe('طلبك رقم W2 جاهز في Samarra Grill. تفضل بالاستلام.');
    const status = { id: alert.messageId!, status: 'sent' as const, recipientId: customer.waId };
    expect((await graph.post(webhook, graph.statusesPayload([status]))).status).toBe(200);
    expect(
      (await graph.post(webhook, graph.statusesPayload([{ ...status, status: 'delivered' }]))).status,
    ).toBe(200);
    await waitUntil(async () => (await smsRow(ticket.id))?.status === 'skipped', 15_000, 'the SMS skipped');
    expect(smsTo(customer.e164)).toHaveLength(0);
    expect(graph.sendsTo(customer.waId)).toHaveLength(2);
    expect(await messageRows(ticket.id)).toEqual([
      expect.objectContaining({ kind: 'confirm' }),
      expect.objectContaining({
        kind: 'ready',
        status: 'delivered',
        template: false,
        message_id: alert.messageId,
      }),
    ]);

    // A ring is one more message, naming the number and venue; still no SMS.
    await database.query(
      `update tickets.tickets set last_alert_at = now() - interval '1 minute' where id = $1`,
      [ticket.id],
    );
    expect((await call('POST', `/tickets/${ticket.id}/ring`)).status).toBe(200);
    await waitUntil(() => graph.sendsTo(customer.waId).length === 3, 10_000, 'the ring');
    expect(graph.sendsTo(customer.waId)[2]!.body.text?.body).toBe(
      'تذكير: طلبك رقم W2 جاهز في Samarra Grill. تفضل بالاستلام.',
    );
    expect(smsTo(customer.e164)).toHaveLength(0);
    const metrics = events.metricsPort;
    const sent = (labels: string) => scrapedSum(metrics, 'nida_whatsapp_messages_total', labels);
    expect(await sent('kind="ready",result="accepted"')).toBeGreaterThanOrEqual(1);
    expect(await sent('kind="ring",result="accepted"')).toBe(1);
  });

  it('sends the one SMS at once when the Graph API refuses the ready alert', async () => {
    const { customer, ticket } = await linkedTicket('W3');
    graph.refusals.push({ status: 400, code: 131026, message: 'Message undeliverable' });
    const started = Date.now();
    await ready(ticket.id);
    await waitUntil(() => smsTo(customer.e164).length === 1, 10_000, 'the fallback SMS');
    expect(Date.now() - started).toBeLessThan(5_000);
    await sleep(1_000);
    expect(smsTo(customer.e164)).toHaveLength(1);
    expect(graph.sendsTo(customer.waId)).toHaveLength(2);
    expect((await messageRows(ticket.id))[1]).toMatchObject({ kind: 'ready', status: 'refused' });
    expect(String((await messageRows(ticket.id))[1]!.error)).toContain('131026');
    expect(await smsRow(ticket.id)).toMatchObject({ status: 'sent' });
    // The ticket's delivery log, as the admin CLI shows it: the refusal, then the SMS instead.
    const log = await admin<{ deliveries: Record<string, unknown>[] }>(
      platform.config,
      'ticket',
      'deliveries',
      '--id',
      String(ticket.id),
    );
    expect(log.deliveries).toEqual([
      expect.objectContaining({ channel: 'whatsapp', kind: 'confirm', status: 'accepted', attempts: 1 }),
      expect.objectContaining({
        channel: 'whatsapp',
        kind: 'ready',
        status: 'refused',
        attempts: 1,
        template: false,
      }),
      expect.objectContaining({ channel: 'sms', kind: 'ready', status: 'sent', attempts: 1, error: null }),
    ]);
    // And on the graph, for a key of the ticket's branch.
    const graphLog = await fetch(platform.gatewayUrl, {
      method: 'POST',
      headers: { authorization: `Bearer ${branch.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        query: 'query ($id: ID!) { ticket(id: $id) { deliveries { channel kind status template error } } }',
        variables: { id: String(ticket.id) },
      }),
    });
    const { data } = (await graphLog.json()) as {
      data: { ticket: { deliveries: Record<string, unknown>[] } };
    };
    expect(
      data.ticket.deliveries.map((d) => `${String(d.channel)} ${String(d.kind)} ${String(d.status)}`),
    ).toEqual(['whatsapp confirm accepted', 'whatsapp ready refused', 'sms ready sent']);
  });

  it('sends the one SMS when a failed status arrives for the ready alert', async () => {
    const { customer, ticket } = await linkedTicket('W4');
    await ready(ticket.id);
    await waitUntil(() => graph.sendsTo(customer.waId).length === 2, 10_000, 'the ready alert');
    const alert = graph.sendsTo(customer.waId)[1]!;
    const failed = {
      id: alert.messageId!,
      status: 'failed' as const,
      recipientId: customer.waId,
      errors: [
        { code: 131049, title: 'This message was not delivered to maintain healthy ecosystem engagement.' },
      ],
    };
    expect((await graph.post(webhook, graph.statusesPayload([failed]))).status).toBe(200);
    expect((await graph.post(webhook, graph.statusesPayload([failed]))).status).toBe(200);
    await waitUntil(() => smsTo(customer.e164).length === 1, 10_000, 'the fallback SMS');
    await sleep(1_000);
    expect(smsTo(customer.e164)).toHaveLength(1);
    expect((await messageRows(ticket.id))[1]).toMatchObject({ kind: 'ready', status: 'failed' });
    expect(String((await messageRows(ticket.id))[1]!.error)).toContain('131049');
  });

  it('sends the one SMS when no sent status arrives within WHATSAPP_FALLBACK_SECONDS', async () => {
    const { customer, ticket } = await linkedTicket('W5');
    const started = Date.now();
    await ready(ticket.id);
    await waitUntil(() => smsTo(customer.e164).length === 1, 15_000, 'the fallback SMS');
    expect(Date.now() - started).toBeGreaterThanOrEqual(4_500);
    await sleep(1_000);
    expect(smsTo(customer.e164)).toHaveLength(1);
    expect(graph.sendsTo(customer.waId)).toHaveLength(2);
  });

  it('sends the approved template, with the number and venue, when the customer last wrote over 24 hours ago', async () => {
    const dayAgo = Math.floor(Date.now() / 1000) - 25 * 3600;
    const { customer, ticket } = await linkedTicket('W6', { timestamp: dayAgo });
    await ready(ticket.id);
    await waitUntil(() => graph.sendsTo(customer.waId).length === 2, 10_000, 'the ready alert');
    expect(graph.sendsTo(customer.waId)[1]!.body).toMatchObject({
      type: 'template',
      template: {
        name: 'order_ready',
        language: { code: 'ar' },
        components: [
          {
            type: 'body',
            parameters: [
              { type: 'text', text: 'W6' },
              { type: 'text', text: 'Samarra Grill' },
            ],
          },
        ],
      },
    });
    expect((await messageRows(ticket.id))[1]).toMatchObject({ kind: 'ready', template: true });
  });

  it('unlinks the chat from every ticket on "stop", confirms it, and the ticket is texted as if never linked', async () => {
    const { customer, ticket } = await linkedTicket('W7');
    expect(
      (await graph.post(webhook, graph.messagesPayload([{ from: customer.waId, body: '  إيقاف ' }]))).status,
    ).toBe(200);
    await waitUntil(() => graph.sendsTo(customer.waId).length === 2, 10_000, 'the stop confirmation');
    expect(graph.sendsTo(customer.waId)[1]!.body.text?.body).toContain('لن تصلك رسائل أخرى');
    const [link] = await database.query(
      'select unlinked_at from tickets.whatsapp_links where ticket_id = $1',
      [ticket.id],
    );
    expect(link!.unlinked_at).not.toBeNull();
    const started = Date.now();
    await ready(ticket.id);
    await waitUntil(() => smsTo(customer.e164).length === 1, 10_000, 'the SMS');
    expect(Date.now() - started).toBeLessThan(4_000);
    await sleep(500);
    expect(graph.sendsTo(customer.waId)).toHaveLength(2);
  });
});

describe('a WhatsApp sender killed between the Graph call and its record', () => {
  let database: TestDatabase;
  let platform: Platform;
  let child: PlatformProcess | undefined;
  let events: RunningEvents | undefined;
  const graph = new WhatsAppGraph();
  const sms = new SmsProvider();

  beforeAll(async () => {
    database = await createTestDatabase();
    const env = whatsAppEnv(graph, await graph.start(), {
      SMS_DRIVER: 'http',
      SMS_HTTP_URL: await sms.start(),
    });
    platform = await startPlatform(database, env);
    // The sender is the compiled tickets-events process, so it can be killed where it stands.
    const [port] = (await freePorts(1)) as [number];
    child = await startProcess(
      PROCESS_KINDS.events.script,
      platformEnv(platform.config, { ...env, EVENTS_PORT: String(port) }),
      `http://127.0.0.1:${port}/readyz`,
    );
  });

  afterAll(async () => {
    await child?.kill();
    await events?.stop();
    await platform?.stop();
    await graph.stop();
    await sms.stop();
    await database?.drop();
  });

  it('sends one WhatsApp message, never a second, and the ticket’s one SMS once the fallback time has passed', async () => {
    const branch = await newTicketBranch(platform.config, { sms: 'on' });
    await admin(platform.config, 'venue', 'set-whatsapp', '--id', String(branch.venueId), '--whatsapp', 'on');
    const call = (path: string, body?: unknown) =>
      fetch(`${platform.restUrl}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${branch.key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body ?? {}),
      }).then(async (r) => (await r.json()) as Record<string, unknown>);
    const ticket = await call('/tickets', { customer_phone: '07719990001', number: 'K1' });
    await database.query(`update tickets.tickets set whatsapp_code = 'KQ7M2XDP' where id = $1`, [ticket.id]);
    const webhook = `${platform.restUrl.replace(/\/api\/v1$/, '')}/webhooks/whatsapp`;
    const inbound = graph.messagesPayload([{ from: '9647719990001', body: 'KQ7M-2XDP' }]);
    expect((await graph.post(webhook, inbound)).status).toBe(200);
    await waitUntil(() => graph.sendsTo('9647719990001').length === 1, 15_000, 'the confirmation');

    // The Graph API takes the ready alert but its answer never comes back: the sender dies first.
    graph.hold = true;
    await call(`/tickets/${String(ticket.id)}/ready`);
    await waitUntil(() => graph.sendsTo('9647719990001').length === 2, 15_000, 'the ready alert sent');
    await child!.kill();
    child = undefined;
    graph.hold = false;
    const [row] = await database.query(
      `select status, message_id from tickets.whatsapp_messages where ticket_id = $1 and kind = 'ready'`,
      [ticket.id],
    );
    expect(row).toEqual({ status: 'sending', message_id: null });

    // A new sender finds the row claimed, and leaves it: the fallback sends the one SMS instead.
    events = await startEvents(platform.config);
    await waitUntil(() => sms.requests.length === 1, 20_000, 'the fallback SMS');
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(graph.sendsTo('9647719990001')).toHaveLength(2);
    expect(sms.requests.map((r) => r.body.to)).toEqual(['+9647719990001']);
    expect(
      await database.query(
        `select status from tickets.whatsapp_messages where ticket_id = $1 and kind = 'ready'`,
        [ticket.id],
      ),
    ).toEqual([{ status: 'sending' }]);
  });
});
