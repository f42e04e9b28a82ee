import { verifyWebhook } from '../../contracts/tickets/webhook-signature';
import { startEvents, type RunningEvents } from '../../subgraphs/tickets/events/events';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { askGraph, bearer, signUpPerson, type SignedUp } from '../support/graph';
import { startPlatform, type Platform } from '../support/platform';
import { waitUntil } from '../support/wait';
import { WebhookReceiver, type ReceivedWebhook } from '../support/webhook-receiver';

interface Delivery {
  id: string;
  eventId: string;
  event: string;
  status: string;
  attemptLog: { statusCode: number | null }[];
}

const CREATE_VENUE = `mutation ($i: CreateVenueInput!) { createVenue(input: $i) { id } }`;
const ADD = `mutation ($i: AddWebhookEndpointInput!) {
  addWebhookEndpoint(input: $i) { secret endpoint { id url events createdAt } }
}`;
const UPDATE = `mutation ($i: UpdateWebhookEndpointInput!) { updateWebhookEndpoint(input: $i) { id events } }`;
const ROTATE = `mutation ($id: ID!) { rotateWebhookSecret(endpointId: $id) { secret endpoint { id } } }`;
const DELETE = `mutation ($id: ID!) { deleteWebhookEndpoint(endpointId: $id) }`;
const DELIVERY_FIELDS = 'id eventId event status attempts nextAttemptAt createdAt attemptLog { statusCode }';
const PING = `mutation ($id: ID!) { sendTestWebhook(endpointId: $id) { ${DELIVERY_FIELDS} } }`;
const REDELIVER = `mutation ($id: ID!) { redeliverWebhook(deliveryId: $id) { ${DELIVERY_FIELDS} } }`;
const ENDPOINTS = `query ($id: ID!) { venue(id: $id) { webhookEndpoints {
  id events deliveries { id eventId event status attemptLog { attempt statusCode error durationMs at } }
} } }`;

describe('webhook endpoints run by a venue’s people, over the graph', () => {
  let database: TestDatabase;
  let platform: Platform;
  let events: RunningEvents;

  beforeAll(async () => {
    database = await createTestDatabase();
    platform = await startPlatform(database, {
      WEBHOOK_ALLOW_INSECURE: 'true',
      WEBHOOK_RETRY_SCHEDULE: '100ms,100ms,100ms,100ms,100ms',
      PUBLIC_WRITE_RATE_LIMIT: '1000',
    });
    events = await startEvents(platform.config);
  });

  afterAll(async () => {
    await events?.stop();
    await platform?.stop();
    await database.drop();
  });

  const graph = (query: string, variables: Record<string, unknown>, token?: string) =>
    askGraph(platform.gatewayUrl, query, variables, bearer(token));

  async function data<T>(query: string, variables: Record<string, unknown>, token?: string): Promise<T> {
    const reply = await graph(query, variables, token);
    expect(reply.errors).toBeUndefined();
    return reply.data as T;
  }

  const code = async (query: string, variables: Record<string, unknown>, token?: string) =>
    (await graph(query, variables, token)).errors?.[0]?.extensions?.code ?? 'OK';

  let people = 0;
  function person(): Promise<SignedUp> {
    people += 1;
    return signUpPerson(platform.gatewayUrl, {
      email: `hook-person${people}@example.test`,
      name: `Person ${people}`,
    });
  }

  async function venueOf(token: string, name: string): Promise<string> {
    const { createVenue } = await data<{ createVenue: { id: string } }>(CREATE_VENUE, { i: { name } }, token);
    return createVenue.id;
  }

  async function addEndpoint(
    token: string,
    venueId: string,
    url: string,
    chosen?: string[],
  ): Promise<{ secret: string; endpoint: { id: string; url: string; events: string[] } }> {
    const { addWebhookEndpoint } = await data<{
      addWebhookEndpoint: { secret: string; endpoint: { id: string; url: string; events: string[] } };
    }>(ADD, { i: { venueId, url, ...(chosen === undefined ? {} : { events: chosen }) } }, token);
    return addWebhookEndpoint;
  }

  async function deliveriesOf(token: string, venueId: string, endpointId: string): Promise<Delivery[]> {
    const { venue } = await data<{ venue: { webhookEndpoints: { id: string; deliveries: Delivery[] }[] } }>(
      ENDPOINTS,
      { id: venueId },
      token,
    );
    return venue.webhookEndpoints.find((e) => e.id === endpointId)?.deliveries ?? [];
  }

  const settled = (list: Delivery[]) => list.every((d) => d.status === 'succeeded' || d.status === 'failed');

  async function rest(path: string, key: string, body: unknown = {}) {
    const response = await fetch(`${platform.restUrl}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  const quiet = () => new Promise((resolve) => setTimeout(resolve, 700));

  it('adds an endpoint, delivers a REST ticket signed, pings, rotates, updates, redelivers and deletes', async () => {
    const receiver = new WebhookReceiver();
    const url = await receiver.start();
    try {
      const owner = await person();
      const venueId = await venueOf(owner.token, 'Hook Grill');

      const added = await addEndpoint(owner.token, venueId, url);
      expect(added.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
      expect(added.endpoint).toMatchObject({
        url,
        events: [
          'ticket.created',
          'ticket.linked',
          'ticket.ready',
          'ticket.collected',
          'ticket.cancelled',
          'feedback.submitted',
        ],
      });
      const endpointId = added.endpoint.id;
      receiver.secret = added.secret;
      // Shown once: nothing the venue reads afterwards carries it.
      const listed = await graph(ENDPOINTS, { id: venueId }, owner.token);
      expect(JSON.stringify(listed)).not.toContain(added.secret);

      await data(
        `mutation ($i: ChangePlanInput!) { changePlan(input: $i) { key } }`,
        { i: { venueId, plan: 'growth' } },
        owner.token,
      );
      const { createBranch } = await data<{ createBranch: { id: string } }>(
        `mutation ($i: CreateBranchInput!) { createBranch(input: $i) { id } }`,
        { i: { venueId, name: 'Karrada' } },
        owner.token,
      );
      const { issueApiKey } = await data<{ issueApiKey: { secret: string; apiKey: { id: string } } }>(
        `mutation ($i: IssueApiKeyInput!) { issueApiKey(input: $i) { secret apiKey { id } } }`,
        { i: { branchId: createBranch.id, name: 'POS 1' } },
        owner.token,
      );
      const key = issueApiKey.secret;

      const created = await rest('/tickets', key, { customer_name: 'Huda', external_id: 'HOOK-1' });
      expect(created.status).toBe(201);
      await receiver.waitFor((r) => r.length === 1);
      const first = receiver.received[0]!;
      expect(first.verdict.ok).toBe(true);
      expect(first.json).toMatchObject({
        event: 'ticket.created',
        data: { ticket: { id: created.body.id, external_id: 'HOOK-1' } },
      });
      await waitUntil(async () => settled(await deliveriesOf(owner.token, venueId, endpointId)));
      const [createdDelivery] = await deliveriesOf(owner.token, venueId, endpointId);
      expect(createdDelivery).toMatchObject({
        eventId: first.json.id,
        event: 'ticket.created',
        status: 'succeeded',
        attemptLog: [{ attempt: 1, statusCode: 200, error: null }],
      });

      // A ping: signed with the endpoint's secret, and in its deliveries like any event.
      const { sendTestWebhook } = await data<{ sendTestWebhook: Delivery }>(
        PING,
        { id: endpointId },
        owner.token,
      );
      expect(sendTestWebhook.event).toBe('ping');
      await receiver.waitFor((r) => r.length === 2);
      const ping = receiver.received[1]!;
      expect(ping.verdict.ok).toBe(true);
      expect(ping.headers['x-service-event']).toBe('ping');
      expect(JSON.parse(ping.body)).toEqual({
        id: sendTestWebhook.eventId,
        event: 'ping',
        data: { endpoint_id: Number(endpointId) },
      });
      await waitUntil(async () => settled(await deliveriesOf(owner.token, venueId, endpointId)));
      expect((await deliveriesOf(owner.token, venueId, endpointId)).map((d) => [d.event, d.status])).toEqual([
        ['ping', 'succeeded'],
        ['ticket.created', 'succeeded'],
      ]);

      // A rotated secret signs the next delivery; the old one no longer verifies it.
      const { rotateWebhookSecret } = await data<{
        rotateWebhookSecret: { secret: string; endpoint: { id: string } };
      }>(ROTATE, { id: endpointId }, owner.token);
      expect(rotateWebhookSecret.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
      expect(rotateWebhookSecret.secret).not.toBe(added.secret);
      expect(rotateWebhookSecret.endpoint.id).toBe(endpointId);
      receiver.secret = rotateWebhookSecret.secret;
      await rest('/tickets', key, { external_id: 'HOOK-2' });
      await receiver.waitFor((r) => r.length === 3);
      const rotated = receiver.received[2]!;
      expect(rotated.json.event).toBe('ticket.created');
      expect(rotated.verdict.ok).toBe(true);
      expect(signedWith(added.secret, rotated)).toBe(false);

      // Only the chosen events from now on.
      const { updateWebhookEndpoint } = await data<{ updateWebhookEndpoint: { events: string[] } }>(
        UPDATE,
        { i: { endpointId, events: ['ticket.ready'] } },
        owner.token,
      );
      expect(updateWebhookEndpoint.events).toEqual(['ticket.ready']);
      const third = await rest('/tickets', key, { external_id: 'HOOK-3' });
      await rest(`/tickets/${String(third.body.id)}/ready`, key);
      await receiver.waitFor((r) => r.length === 4);
      await quiet();
      expect(receiver.received.slice(3).map((r) => [r.json.event, r.json.data.ticket.external_id])).toEqual([
        ['ticket.ready', 'HOOK-3'],
      ]);

      // A redelivery: the same event id and bytes, signed afresh.
      await waitUntil(async () => settled(await deliveriesOf(owner.token, venueId, endpointId)));
      const { redeliverWebhook } = await data<{ redeliverWebhook: Delivery }>(
        REDELIVER,
        { id: createdDelivery!.id },
        owner.token,
      );
      expect(redeliverWebhook).toMatchObject({ id: createdDelivery!.id, eventId: first.json.id });
      await receiver.waitFor((r) => r.length === 5);
      const again = receiver.received[4]!;
      expect(again.json.id).toBe(first.json.id);
      expect(again.body).toBe(first.body);
      expect(again.verdict.ok).toBe(true);
      await waitUntil(async () => settled(await deliveriesOf(owner.token, venueId, endpointId)));
      const redelivered = (await deliveriesOf(owner.token, venueId, endpointId)).find(
        (d) => d.id === createdDelivery!.id,
      );
      expect(redelivered?.attemptLog.map((a) => a.statusCode)).toEqual([200, 200]);

      // Deleted: nothing more goes out, and the venue no longer lists it.
      expect(await data(DELETE, { id: endpointId }, owner.token)).toEqual({ deleteWebhookEndpoint: true });
      const fourth = await rest('/tickets', key, { external_id: 'HOOK-4' });
      await rest(`/tickets/${String(fourth.body.id)}/ready`, key);
      await quiet();
      await quiet();
      expect(receiver.received).toHaveLength(5);
      expect(await data(ENDPOINTS, { id: venueId }, owner.token)).toEqual({
        venue: { webhookEndpoints: [] },
      });
      expect(await code(PING, { id: endpointId }, owner.token)).toBe('NOT_FOUND');
      expect(await code(REDELIVER, { id: createdDelivery!.id }, owner.token)).toBe('CONFLICT');
      const log = await data<{ venue: { auditLog: { items: { action: string; target: string }[] } } }>(
        `query ($id: ID!) { venue(id: $id) { auditLog(first: 50) { items { action target } } } }`,
        { id: venueId },
        owner.token,
      );
      const webhookActions = log.venue.auditLog.items
        .filter((event) => event.target.startsWith('webhook:') || event.target.startsWith('delivery:'))
        .map((event) => event.action)
        .reverse();
      expect(webhookActions).toEqual([
        'webhook.added',
        'webhook.pinged',
        'webhook.secret_rotated',
        'webhook.events_changed',
        'webhook.redelivered',
        'webhook.deleted',
      ]);
      expect(JSON.stringify(log)).not.toContain(added.secret);

      // The end of the path: the key revoked from the panel answers 401 at once.
      await data(
        `mutation ($id: ID!) { revokeApiKey(id: $id) { id } }`,
        { id: issueApiKey.apiKey.id },
        owner.token,
      );
      expect((await rest('/tickets', key, { customer_name: 'After' })).status).toBe(401);
    } finally {
      await receiver.stop();
    }
  });

  it('refuses a URL with credentials and an unknown event, naming the field', async () => {
    const owner = await person();
    const venueId = await venueOf(owner.token, 'Checks Cafe');
    const credentials = await graph(
      ADD,
      { i: { venueId, url: 'http://user:pw@127.0.0.1:9/hooks' } },
      owner.token,
    );
    expect(credentials.errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      errors: { url: ['The url must not carry credentials.'] },
    });
    const unknown = await graph(
      ADD,
      { i: { venueId, url: 'http://127.0.0.1:9/hooks', events: ['ticket.made'] } },
      owner.token,
    );
    expect(unknown.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(Object.keys(unknown.errors?.[0]?.extensions?.errors ?? {})).toEqual(['events']);
    const ping = await graph(
      ADD,
      { i: { venueId, url: 'http://127.0.0.1:9/hooks', events: ['ping'] } },
      owner.token,
    );
    expect(Object.keys(ping.errors?.[0]?.extensions?.errors ?? {})).toEqual(['events']);
    expect(await data(ENDPOINTS, { id: venueId }, owner.token)).toEqual({ venue: { webhookEndpoints: [] } });
  });

  it('lets owners and managers manage webhooks; staff are FORBIDDEN, strangers NOT_FOUND', async () => {
    const receiver = new WebhookReceiver();
    const url = await receiver.start();
    try {
      const owner = await person();
      const manager = await person();
      const staff = await person();
      const stranger = await person();
      const venueId = await venueOf(owner.token, 'Roles Grill');
      for (const [who, role] of [
        [manager, 'MANAGER'],
        [staff, 'STAFF'],
      ] as const) {
        await database.query(
          `insert into tickets.venue_members (venue_id, user_id, role) values ($1, $2, $3)`,
          [Number(venueId), Number(who.id), role],
        );
      }
      const added = await addEndpoint(manager.token, venueId, url, ['ticket.created']);
      receiver.secret = added.secret;
      const endpointId = added.endpoint.id;
      const { sendTestWebhook } = await data<{ sendTestWebhook: Delivery }>(
        PING,
        { id: endpointId },
        manager.token,
      );
      await receiver.waitFor((r) => r.length === 1);
      expect(receiver.received[0]!.verdict.ok).toBe(true);
      await waitUntil(async () => settled(await deliveriesOf(manager.token, venueId, endpointId)));
      // Another venue's owner is a stranger to this one's endpoints.
      const elsewhere = await person();
      await venueOf(elsewhere.token, 'Other Place');

      const attempts: [string, Record<string, unknown>][] = [
        [ENDPOINTS, { id: venueId }],
        [ADD, { i: { venueId, url } }],
        [UPDATE, { i: { endpointId, events: ['ticket.ready'] } }],
        [ROTATE, { id: endpointId }],
        [PING, { id: endpointId }],
        [REDELIVER, { id: sendTestWebhook.id }],
        [DELETE, { id: endpointId }],
      ];
      for (const [query, variables] of attempts) {
        expect([query, await code(query, variables, staff.token)]).toEqual([query, 'FORBIDDEN']);
        expect([query, await code(query, variables, stranger.token)]).toEqual([query, 'NOT_FOUND']);
        expect([query, await code(query, variables, elsewhere.token)]).toEqual([query, 'NOT_FOUND']);
        expect([query, await code(query, variables)]).toEqual([query, 'UNAUTHENTICATED']);
      }
      const hidden = await graph(PING, { id: endpointId }, stranger.token);
      expect(hidden.errors?.[0]?.message).toBe(`Webhook endpoint ${endpointId} not found.`);
      expect(await code(PING, { id: '999999999' }, owner.token)).toBe('NOT_FOUND');
      expect(await code(REDELIVER, { id: '999999999' }, owner.token)).toBe('NOT_FOUND');
      // Nothing the refused callers asked for happened.
      expect(receiver.received).toHaveLength(1);
      expect(
        await data(
          `query ($id: ID!) { venue(id: $id) { webhookEndpoints { id events } } }`,
          { id: venueId },
          owner.token,
        ),
      ).toEqual({ venue: { webhookEndpoints: [{ id: endpointId, events: ['ticket.created'] }] } });
    } finally {
      await receiver.stop();
    }
  });
});

function signedWith(secret: string, hook: ReceivedWebhook): boolean {
  return verifyWebhook({
    secret,
    body: hook.body,
    timestamp: hook.headers['x-service-timestamp'],
    signature: hook.headers['x-service-signature'],
  }).ok;
}
