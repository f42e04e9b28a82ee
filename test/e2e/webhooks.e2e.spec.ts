import { startEvents, type RunningEvents } from '../../subgraphs/tickets/events/events';
import { createTestDatabase, type TestDatabase } from '../support/database';
import {
  admin,
  newTicketBranch,
  platformEnv,
  startPlatform,
  type Platform,
  type TicketBranch,
} from '../support/platform';
import { freePorts, startProcess } from '../support/processes';
import { WebhookReceiver } from '../support/webhook-receiver';
import { waitUntil } from '../support/wait';

interface Delivery {
  id: number;
  event_id: string;
  event: string;
  status: string;
  attempts: number;
  attempt_log: { attempt: number; status_code: number | null; error: string | null; duration_ms: number }[];
}

describe('signed webhooks from the outbox, on real Postgres, Redis and HTTP', () => {
  let database: TestDatabase;
  let platform: Platform;
  let events: RunningEvents;
  let branch: TicketBranch;

  beforeAll(async () => {
    database = await createTestDatabase();
    platform = await startPlatform(database, {
      WEBHOOK_ALLOW_INSECURE: 'true',
      WEBHOOK_RETRY_SCHEDULE: '100ms,100ms,100ms,100ms,100ms',
    });
    events = await startEvents(platform.config);
    branch = await newTicketBranch(platform.config);
  });

  afterAll(async () => {
    await events?.stop();
    await platform?.stop();
    await database.drop();
  });

  const post = async (path: string, body: unknown = {}) => {
    const response = await fetch(`${platform.restUrl}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${branch.key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const get = async (path: string) => {
    const response = await fetch(`${platform.restUrl}${path}`, {
      headers: { authorization: `Bearer ${branch.key}` },
    });
    return (await response.json()) as Record<string, unknown>;
  };

  async function endpoint(receiver: WebhookReceiver, url: string, ...extra: string[]): Promise<number> {
    const created = await admin<{ id: number; secret: string; events: string[] }>(
      platform.config,
      'webhook',
      'create',
      '--venue',
      String(branch.venueId),
      '--url',
      url,
      ...extra,
    );
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    receiver.secret = created.secret;
    return created.id;
  }

  const deliveries = (id: number) =>
    admin<Delivery[]>(platform.config, 'webhook', 'deliveries', '--id', String(id));

  async function deleteEndpoint(id: number): Promise<void> {
    await admin(platform.config, 'webhook', 'delete', '--id', String(id));
  }

  it('signs every delivery; the body is the Ticket resource as REST shows it, with the event id', async () => {
    const receiver = new WebhookReceiver();
    const id = await endpoint(receiver, await receiver.start());
    try {
      const created = await post('/tickets', { customer_name: 'Zainab', external_id: 'POS-W1' });
      expect(created.status).toBe(201);
      await post(`/tickets/${String(created.body.id)}/ready`);
      await receiver.waitFor((r) => r.length >= 2);
      // Deliveries run side by side, so two events of one ticket may arrive in either order
      // (docs/API-DECISIONS.md, "Webhook order").
      const first = receiver.received.find((r) => r.json.event === 'ticket.created');
      const second = receiver.received.find((r) => r.json.event === 'ticket.ready');
      expect(receiver.received).toHaveLength(2);
      for (const hook of [first!, second!]) {
        expect(hook.verdict.ok).toBe(true);
        expect(hook.headers['x-service-event']).toBe(hook.json.event);
        expect(hook.headers['x-service-event-id']).toBe(hook.json.id);
        expect(Math.abs(Number(hook.headers['x-service-timestamp']) - Date.now() / 1000)).toBeLessThan(30);
        expect(Object.keys(hook.json)).toEqual(['id', 'event', 'data']);
      }
      expect(first).toBeDefined();
      expect(second).toBeDefined();
      expect(first!.json.id).not.toBe(second!.json.id);
      // ready's snapshot is the ticket as it is now, field for field.
      const now = await get(`/tickets/${String(created.body.id)}`);
      expect(second!.json.data.ticket).toEqual(now);
      expect(first!.json.data.ticket).toMatchObject({
        status: 'waiting',
        ready_at: null,
        external_id: 'POS-W1',
      });
      const log = await deliveries(id);
      expect(log.map((d) => [d.event, d.status, d.attempts])).toEqual([
        ['ticket.ready', 'succeeded', 1],
        ['ticket.created', 'succeeded', 1],
      ]);
      expect(log[0]!.attempt_log[0]).toMatchObject({ attempt: 1, status_code: 200, error: null });
    } finally {
      await deleteEndpoint(id);
      await receiver.stop();
    }
  });

  it('retries a receiver that answers 500 three times; attempt 4 carries the same id and bytes', async () => {
    const receiver = new WebhookReceiver();
    receiver.answer = (n) => (n <= 3 ? 500 : 200);
    const id = await endpoint(receiver, await receiver.start(), '--events', 'ticket.created');
    const counted = async (result: string) => {
      const text = await (await fetch(`http://127.0.0.1:${events.metricsPort}/metrics`)).text();
      const series = `nida_webhook_deliveries_total{event="ticket.created",result="${result}"} `;
      const line = text.split('\n').find((candidate) => candidate.startsWith(series));
      return Number(line?.slice(series.length) ?? 0);
    };
    const before = { retrying: await counted('retrying'), delivered: await counted('delivered') };
    try {
      await post('/tickets', {});
      await receiver.waitFor((r) => r.length >= 4);
      const bodies = new Set(receiver.received.map((r) => r.body));
      expect(bodies.size).toBe(1);
      expect(new Set(receiver.received.map((r) => r.headers['x-service-event-id'])).size).toBe(1);
      expect(receiver.received.every((r) => r.verdict.ok)).toBe(true);
      await waitUntil(async () => (await deliveries(id))[0]?.status === 'succeeded');
      const [delivery] = await deliveries(id);
      expect(delivery!.attempts).toBe(4);
      // The events worker's metrics saw each attempt's outcome.
      expect((await counted('retrying')) - before.retrying).toBe(3);
      expect((await counted('delivered')) - before.delivered).toBe(1);
      expect(delivery!.attempt_log.map((a) => a.status_code)).toEqual([500, 500, 500, 200]);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(receiver.received).toHaveLength(4);
    } finally {
      await deleteEndpoint(id);
      await receiver.stop();
    }
  });

  it('gives a receiver that is down 6 attempts, marks the delivery failed, and can redeliver it', async () => {
    const receiver = new WebhookReceiver();
    const url = await receiver.start();
    await receiver.stop();
    const id = await endpoint(receiver, url, '--events', 'ticket.created');
    try {
      await post('/tickets', {});
      await waitUntil(async () => (await deliveries(id))[0]?.status === 'failed');
      const [failed] = await deliveries(id);
      expect(failed!.attempts).toBe(6);
      expect(failed!.attempt_log).toHaveLength(6);
      expect(
        failed!.attempt_log.every((a) => a.status_code === null && /ECONNREFUSED/.test(a.error ?? '')),
      ).toBe(true);
      await receiver.start(Number(new URL(url).port));
      await admin(platform.config, 'webhook', 'redeliver', '--delivery', String(failed!.id));
      await receiver.waitFor((r) => r.length === 1);
      expect(receiver.received[0]!.json.id).toBe(failed!.event_id);
      await waitUntil(async () => (await deliveries(id))[0]?.status === 'succeeded');
      expect((await deliveries(id))[0]!.attempt_log).toHaveLength(7);
      await expect(admin(platform.config, 'webhook', 'redeliver', '--delivery', '999999')).rejects.toThrow(
        /Webhook delivery 999999 not found/,
      );
    } finally {
      await deleteEndpoint(id);
      await receiver.stop();
    }
  });

  it('keeps the operator’s webhook changes in the venue’s audit log, never a secret', async () => {
    const receiver = new WebhookReceiver();
    const url = await receiver.start();
    try {
      const id = await endpoint(receiver, url, '--events', 'ticket.created');
      const first = receiver.secret;
      const rotated = await admin<{ secret: string }>(
        platform.config,
        'webhook',
        'rotate-secret',
        '--id',
        String(id),
      );
      receiver.secret = rotated.secret;
      await post('/tickets', {});
      await waitUntil(async () => (await deliveries(id))[0]?.status === 'succeeded');
      const [delivered] = await deliveries(id);
      await admin(platform.config, 'webhook', 'redeliver', '--delivery', String(delivered!.id));
      await deleteEndpoint(id);
      const rows = (await database.query(
        `select action, target, actor_type, details from tickets.audit_events
          where venue_id = $1 and action like 'webhook.%' and (target = $2 or target = $3) order by id`,
        [branch.venueId, `webhook:${id}`, `delivery:${delivered!.id}`],
      )) as { action: string; target: string; actor_type: string }[];
      expect(rows.map(({ action, target, actor_type }) => [action, target, actor_type])).toEqual([
        ['webhook.added', `webhook:${id}`, 'operator'],
        ['webhook.secret_rotated', `webhook:${id}`, 'operator'],
        ['webhook.redelivered', `delivery:${delivered!.id}`, 'operator'],
        ['webhook.deleted', `webhook:${id}`, 'operator'],
      ]);
      expect(JSON.stringify(rows)).not.toContain(rotated.secret);
      expect(JSON.stringify(rows)).not.toContain(first);
    } finally {
      await receiver.stop();
    }
  });

  it('sends ticket.rung only to endpoints that chose it', async () => {
    const everything = new WebhookReceiver();
    const rungOnly = new WebhookReceiver();
    const a = await endpoint(everything, await everything.start());
    const b = await endpoint(rungOnly, await rungOnly.start(), '--events', 'ticket.rung');
    try {
      const created = await post('/tickets', {});
      await post(`/tickets/${String(created.body.id)}/ready`);
      // The ready alert counts for the ring interval: move it 31 seconds into the past.
      await database.query(
        `update tickets.tickets set last_alert_at = now() - interval '31 seconds' where id = $1`,
        [created.body.id],
      );
      expect((await post(`/tickets/${String(created.body.id)}/ring`)).status).toBe(200);
      await rungOnly.waitFor((r) => r.length >= 1);
      await everything.waitFor((r) => r.length >= 2);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(rungOnly.received.map((r) => r.json.event)).toEqual(['ticket.rung']);
      expect(rungOnly.received[0]!.verdict.ok).toBe(true);
      expect(everything.received.map((r) => r.json.event)).toEqual(['ticket.created', 'ticket.ready']);
    } finally {
      await deleteEndpoint(a);
      await deleteEndpoint(b);
      await everything.stop();
      await rungOnly.stop();
    }
  });

  it('delivers ticket.linked once for the first open, and feedback.submitted with the rating', async () => {
    const receiver = new WebhookReceiver();
    const id = await endpoint(
      receiver,
      await receiver.start(),
      '--events',
      'ticket.linked,feedback.submitted',
    );
    try {
      const created = await post('/tickets', {});
      const token = String(created.body.token);
      const customer = (query: string) =>
        fetch(platform.gatewayUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query, variables: { t: token } }),
        }).then((r) => r.json() as Promise<{ errors?: unknown }>);
      for (let open = 0; open < 3; open++) {
        expect(
          (await customer('mutation ($t: String!) { linkTicket(token: $t) { number } }')).errors,
        ).toBeUndefined();
      }
      await post(`/tickets/${String(created.body.id)}/collected`);
      const rated = await customer(
        'mutation ($t: String!) { submitTicketFeedback(token: $t, rating: 5, comment: "شكراً") { rating } }',
      );
      expect(rated.errors).toBeUndefined();
      await receiver.waitFor((r) => r.length >= 2);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(receiver.received.map((r) => r.json.event)).toEqual(['ticket.linked', 'feedback.submitted']);
      expect(receiver.received.every((r) => r.verdict.ok)).toBe(true);
      const [linked, feedback] = receiver.received;
      expect(linked!.json.data.ticket).toMatchObject({ id: created.body.id, phone_linked: true });
      expect(linked!.json.data.ticket.linked_at).toEqual(expect.stringMatching(/^\d{4}-/));
      expect(Object.keys(feedback!.json.data)).toEqual(['ticket', 'feedback']);
      expect(feedback!.json.data.ticket).toMatchObject({ id: created.body.id, status: 'collected' });
      expect(feedback!.json.data.feedback).toEqual({
        rating: 5,
        comment: 'شكراً',
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/) as unknown,
      });
    } finally {
      await deleteEndpoint(id);
      await receiver.stop();
    }
  });

  it('with the default log driver, stores the one SMS of a ready ticket and marks it sent', async () => {
    expect(platform.config.sms.driver).toBe('log');
    const texted = await newTicketBranch(platform.config, { sms: 'on' });
    const response = await fetch(`${platform.restUrl}/tickets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${texted.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ customer_phone: '+964 771 234 5678', number: 'L1' }),
    });
    const created = (await response.json()) as { id: number };
    await fetch(`${platform.restUrl}/tickets/${created.id}/ready`, {
      method: 'POST',
      headers: { authorization: `Bearer ${texted.key}` },
    });
    await waitUntil(async () => {
      const [row] = await database.query('select sms_sent from tickets.tickets where id = $1', [created.id]);
      return row?.sms_sent === true;
    });
    expect(
      await database.query(
        'select status, attempts, "to", "text" from tickets.sms_messages where ticket_id = $1',
        [created.id],
      ),
    ).toEqual([
      {
        status: 'sent',
        attempts: 1,
        to: '+9647712345678',
        text: 'طلبك رقم L1 جاهز في Samarra Grill. تفضل بالاستلام.',
      },
    ]);
  });

  it('loses nothing when the relay process is killed: the committed event goes out after restart', async () => {
    const receiver = new WebhookReceiver();
    const id = await endpoint(receiver, await receiver.start(), '--events', 'ticket.created');
    const [port] = (await freePorts(1)) as [number];
    const relay = () =>
      startProcess(
        'subgraphs/tickets/events/main.js',
        platformEnv(platform.config, { EVENTS_PORT: String(port) }),
        `http://127.0.0.1:${port}/readyz`,
      );
    try {
      await events.stop();
      const doomed = await relay();
      await doomed.kill();
      const created = await post('/tickets', {});
      expect(created.status).toBe(201);
      const [row] = await database.query(
        `select published_at from tickets.outbox where ticket_id = $1 and event = 'ticket.created'`,
        [created.body.id],
      );
      expect(row!.published_at).toBeNull();
      const restarted = await relay();
      try {
        await receiver.waitFor((r) => r.length === 1);
      } finally {
        await restarted.stop();
      }
      expect(receiver.received[0]!.json.data.ticket.id).toBe(created.body.id);
      expect(receiver.received[0]!.verdict.ok).toBe(true);
    } finally {
      events = await startEvents(platform.config);
      await deleteEndpoint(id);
      await receiver.stop();
    }
  });

  it('refuses non-public and non-https URLs unless insecure delivery is allowed', async () => {
    const strict = { ...platform.config, webhooks: { ...platform.config.webhooks, allowInsecure: false } };
    for (const [url, message] of [
      ['http://example.com/hooks', 'The url must use https.'],
      ['https://127.0.0.1/hooks', 'resolves to 127.0.0.1, which is not a public address'],
      ['https://169.254.169.254/latest', 'resolves to 169.254.169.254, which is not a public address'],
      ['https://[::1]/hooks', 'resolves to ::1, which is not a public address'],
      ['https://user:pw@example.com/', 'The url must not carry credentials.'],
      ['not a url', 'The url must be an absolute URL.'],
    ] as const) {
      await expect(
        admin(strict, 'webhook', 'create', '--venue', String(branch.venueId), '--url', url),
      ).rejects.toThrow(message);
    }
    await expect(
      admin(
        platform.config,
        'webhook',
        'create',
        '--venue',
        String(branch.venueId),
        '--url',
        'https://x.test',
        '--events',
        'ticket.made',
      ),
    ).rejects.toThrow(/unknown: ticket\.made/);
  });
});
