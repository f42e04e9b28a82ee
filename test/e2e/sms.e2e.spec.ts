import { startEvents, type RunningEvents } from '../../subgraphs/tickets/events';
import { TicketService } from '../../subgraphs/tickets/tickets';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { admin, newTicketBranch, startPlatform, type Platform, type TicketBranch } from '../support/platform';
import { SmsProvider } from '../support/sms-provider';
import { waitUntil } from '../support/wait';

describe('the one SMS of a ready ticket, through a real HTTP provider', () => {
  let database: TestDatabase;
  let platform: Platform;
  let events: RunningEvents;
  const provider = new SmsProvider();

  beforeAll(async () => {
    database = await createTestDatabase();
    const url = await provider.start();
    platform = await startPlatform(database, {
      SMS_DRIVER: 'http',
      SMS_HTTP_URL: url,
      SMS_HTTP_TOKEN: 'provider-token',
      SMS_RETRY_SCHEDULE: '100ms',
    });
    events = await startEvents(platform.config);
  });

  afterAll(async () => {
    await events?.stop();
    await platform?.stop();
    await provider.stop();
    await database.drop();
  });

  const call = async (branch: TicketBranch, method: string, path: string, body?: unknown) => {
    const response = await fetch(`${platform.restUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${branch.key}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  const smsRows = async (ticketId: unknown) =>
    database.query(
      'select status, attempts, "to", "text", last_error from tickets.sms_messages where ticket_id = $1',
      [ticketId],
    );

  it('sends exactly one text under 10 parallel ready calls, through a provider that fails twice', async () => {
    provider.failFirst = 2;
    const branch = await newTicketBranch(platform.config, { sms: 'on' });
    const created = await call(branch, 'POST', '/tickets', { customer_phone: '0770 123 4567', number: 'A7' });
    expect(created.status).toBe(201);
    const readies = await Promise.all(
      Array.from({ length: 10 }, () => call(branch, 'POST', `/tickets/${String(created.body.id)}/ready`)),
    );
    expect(readies.filter((r) => r.status === 200)).toHaveLength(1);
    expect(readies.filter((r) => r.status === 422)).toHaveLength(9);

    await waitUntil(() => provider.requests.some((r) => r.answered === 200));
    await waitUntil(
      async () => (await call(branch, 'GET', `/tickets/${String(created.body.id)}`)).body.sms_sent === true,
    );
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(provider.requests.map((r) => r.answered)).toEqual([503, 503, 200]);
    const [first] = provider.requests;
    for (const request of provider.requests) {
      expect(request.body).toEqual(first!.body);
      expect(request.headers.authorization).toBe('Bearer provider-token');
      expect(request.headers['idempotency-key']).toBe(first!.headers['idempotency-key']);
    }
    expect(first!.body.to).toBe('+9647701234567');
    // The venue speaks Arabic (the default): the number and the venue's name are in the text.
    expect(first!.body.text).toBe('طلبك رقم A7 جاهز في Samarra Grill. تفضل بالاستلام.');
    expect(await smsRows(created.body.id)).toEqual([
      expect.objectContaining({ status: 'sent', attempts: 3, to: '+9647701234567', last_error: null }),
    ]);
  });

  it('texts nobody when the ticket has no phone or the venue has SMS off', async () => {
    provider.failFirst = 0;
    const before = provider.requests.length;
    const smsOn = await newTicketBranch(platform.config, { sms: 'on' });
    const smsOff = await newTicketBranch(platform.config, { sms: 'off' });
    const noPhone = await call(smsOn, 'POST', '/tickets', {});
    const offVenue = await call(smsOff, 'POST', '/tickets', { customer_phone: '07701234567' });
    await call(smsOn, 'POST', `/tickets/${String(noPhone.body.id)}/ready`);
    await call(smsOff, 'POST', `/tickets/${String(offVenue.body.id)}/ready`);
    await waitUntil(async () => {
      const rows = await database.query(
        `select count(*)::int as n from tickets.outbox where published_at is null`,
      );
      return rows[0]!.n === 0;
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await smsRows(noPhone.body.id)).toEqual([]);
    expect(await smsRows(offVenue.body.id)).toEqual([]);
    expect(provider.requests.length).toBe(before);
  });

  it('skips the text when the venue plan no longer includes SMS at send time', async () => {
    const before = provider.requests.length;
    const branch = await newTicketBranch(platform.config, { sms: 'on' });
    const created = await call(branch, 'POST', '/tickets', { customer_phone: '07701234567' });
    await admin(platform.config, 'venue', 'set-plan', '--id', String(branch.venueId), '--plan', 'starter');
    // Starter has no API, so the move comes from inside, as a cashier screen's would.
    await new TicketService(events.orm.em.fork()).move(
      { keyId: branch.keyId, branchId: branch.branchId, venueId: branch.venueId, scopes: ['tickets:write'] },
      { id: Number(created.body.id) },
      'ready',
    );
    await waitUntil(async () => (await smsRows(created.body.id))[0]?.status === 'skipped');
    expect((await smsRows(created.body.id))[0]).toMatchObject({
      last_error: 'the venue plan does not include SMS',
    });
    expect(provider.requests.length).toBe(before);
  });

  it('texts the number a customer gave on the page, once, when the ticket becomes ready', async () => {
    provider.failFirst = 0;
    const before = provider.requests.length;
    const branch = await newTicketBranch(platform.config, { sms: 'on' });
    const created = await call(branch, 'POST', '/tickets', { number: 'P9' });
    const optIn = await fetch(platform.gatewayUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        query:
          'mutation ($t: String!) { optInTicketSms(token: $t, phone: "00964 780 111 2233") { smsOptIn } }',
        variables: { t: created.body.token },
      }),
    });
    expect(await optIn.json()).toEqual({ data: { optInTicketSms: { smsOptIn: true } } });
    await call(branch, 'POST', `/tickets/${String(created.body.id)}/ready`);
    await waitUntil(
      async () => (await call(branch, 'GET', `/tickets/${String(created.body.id)}`)).body.sms_sent === true,
    );
    const sent = provider.requests.slice(before);
    expect(sent.map((r) => r.body.to)).toEqual(['+9647801112233']);
    expect((await call(branch, 'GET', `/tickets/${String(created.body.id)}`)).body.sms_opt_in).toBe(true);
  });
});
