import { createECDH, randomBytes, type ECDH } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import webpush from 'web-push';
import { startEvents, type RunningEvents } from '../../subgraphs/tickets/events/events';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { newTicketBranch, startPlatform, type Platform, type TicketBranch } from '../support/platform';
import { waitUntil } from '../support/wait';
import { closeServer, loopbackUrl } from '../support/loopback';

// http_ece ships no types; this is the one call the test needs from it.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const ece = require('http_ece') as {
  decrypt(body: Buffer, params: { version: string; privateKey: ECDH; authSecret: Buffer }): Buffer;
};

interface Pushed {
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** A stand-in push service on 127.0.0.1: `/gone/…` answers 410, everything else 201. */
class FakePushService {
  readonly received: Pushed[] = [];
  private server?: Server;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        this.received.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) });
        res.writeHead(req.url?.startsWith('/gone/') ? 410 : 201).end();
      });
    });
    this.url = await loopbackUrl(this.server);
  }

  async stop(): Promise<void> {
    if (this.server !== undefined) await closeServer(this.server);
  }
}

/** What a browser's PushManager holds: an ECDH key pair and an auth secret. */
function browserKeys() {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  const auth = randomBytes(16);
  return {
    ecdh,
    auth,
    p256dh: ecdh.getPublicKey().toString('base64url'),
    authText: auth.toString('base64url'),
  };
}

describe('Web Push to a ticket page in the background, through a real local push service', () => {
  let database: TestDatabase;
  let platform: Platform;
  let events: RunningEvents;
  let branch: TicketBranch;
  const service = new FakePushService();
  const vapid = webpush.generateVAPIDKeys();

  beforeAll(async () => {
    database = await createTestDatabase();
    await service.start();
    platform = await startPlatform(database, {
      VAPID_PUBLIC_KEY: vapid.publicKey,
      VAPID_PRIVATE_KEY: vapid.privateKey,
      VAPID_SUBJECT: 'mailto:ops@example.test',
      WEBHOOK_ALLOW_INSECURE: 'true',
    });
    events = await startEvents(platform.config);
    branch = await newTicketBranch(platform.config);
  });

  afterAll(async () => {
    await events?.stop();
    await platform?.stop();
    await service.stop();
    await database.drop();
  });

  const rest = async (path: string, body: unknown = {}) => {
    const response = await fetch(`${platform.restUrl}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${branch.key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return (await response.json()) as { id: number; token: string; public_url: string };
  };

  const subscribePush = async (token: string, endpoint: string, p256dh: string, auth: string) => {
    const response = await fetch(platform.gatewayUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        query:
          'mutation ($t: String!, $e: String!, $p: String!, $a: String!) { subscribeTicketPush(token: $t, endpoint: $e, p256dh: $p, auth: $a) { pushKey } }',
        variables: { t: token, e: endpoint, p: p256dh, a: auth },
      }),
    });
    return (await response.json()) as {
      data?: { subscribeTicketPush: { pushKey: string } } | null;
      errors?: { extensions?: { errors?: Record<string, string[]> } }[];
    };
  };

  it('pushes ready and each ring, encrypted for the browser and signed with the VAPID key', async () => {
    const ticket = await rest('/tickets', { number: 'W-3' });
    const keys = browserKeys();
    const subscribed = await subscribePush(ticket.token, `${service.url}/ok/1`, keys.p256dh, keys.authText);
    expect(subscribed.data?.subscribeTicketPush.pushKey).toBe(vapid.publicKey);

    await rest(`/tickets/${ticket.id}/ready`);
    await waitUntil(() => service.received.some((p) => p.path === '/ok/1'), 10_000, 'the ready push');
    const [ready] = service.received.filter((p) => p.path === '/ok/1');
    expect(ready!.headers['content-encoding']).toBe('aes128gcm');
    expect(ready!.headers.ttl).toBe('300');
    expect(ready!.headers.urgency).toBe('high');
    expect(ready!.headers.authorization).toMatch(
      new RegExp(`^vapid t=[\\w-]+\\.[\\w-]+\\.[\\w-]+, k=${vapid.publicKey}$`),
    );
    const message = JSON.parse(
      ece
        .decrypt(ready!.body, { version: 'aes128gcm', privateKey: keys.ecdh, authSecret: keys.auth })
        .toString(),
    ) as { title: string; body: string; url: string };
    expect(message).toEqual({
      title: 'Samarra Grill',
      body: 'طلبك رقم W-3 جاهز في Samarra Grill. تفضل بالاستلام.',
      url: ticket.public_url,
    });

    await database.query(
      `update tickets.tickets set last_alert_at = now() - interval '31 seconds' where id = $1`,
      [ticket.id],
    );
    await rest(`/tickets/${ticket.id}/ring`);
    await waitUntil(
      () => service.received.filter((p) => p.path === '/ok/1').length >= 2,
      10_000,
      'the ring push',
    );
    const ring = service.received.filter((p) => p.path === '/ok/1')[1]!;
    const reminder = JSON.parse(
      ece
        .decrypt(ring.body, { version: 'aes128gcm', privateKey: keys.ecdh, authSecret: keys.auth })
        .toString(),
    ) as { body: string };
    expect(reminder.body).toBe('تذكير: طلبك رقم W-3 جاهز. تفضل بالاستلام.');
    // The worker records a push once the push service has answered it, a moment after it arrived.
    const recorded = () => database.query('select status, attempts from tickets.push_messages order by id');
    await waitUntil(
      async () => (await recorded()).slice(0, 2).every((row) => row.status !== 'sending'),
      5_000,
      'both pushes recorded',
    );
    const rows = await recorded();
    expect(rows.slice(0, 2)).toEqual([
      { status: 'sent', attempts: 1 },
      { status: 'sent', attempts: 1 },
    ]);
  });

  it('removes a subscription the push service calls gone (410)', async () => {
    const ticket = await rest('/tickets', {});
    const keys = browserKeys();
    expect(
      (await subscribePush(ticket.token, `${service.url}/gone/1`, keys.p256dh, keys.authText)).errors,
    ).toBeUndefined();
    const before = await database.query('select id from tickets.push_subscriptions where endpoint like $1', [
      '%/gone/1',
    ]);
    expect(before).toHaveLength(1);
    await rest(`/tickets/${ticket.id}/ready`);
    await waitUntil(
      async () =>
        (
          await database.query('select id from tickets.push_subscriptions where endpoint like $1', [
            '%/gone/1',
          ])
        ).length === 0,
      10_000,
      'the gone subscription’s removal',
    );
    expect(service.received.some((p) => p.path === '/gone/1')).toBe(true);
  });

  it('refuses malformed subscriptions and closed tickets, naming the field', async () => {
    const ticket = await rest('/tickets', {});
    const keys = browserKeys();
    const bad = await subscribePush(ticket.token, 'ftp://push.example/x', 'short', 'nope');
    expect(bad.errors?.[0]?.extensions?.errors).toEqual({
      endpoint: ['The endpoint must use https or http.'],
      p256dh: ['The p256dh key must be an uncompressed P-256 public key in base64url.'],
      auth: ['The auth secret must be 16 bytes in base64url.'],
    });
    await rest(`/tickets/${ticket.id}/collected`);
    const closed = await subscribePush(ticket.token, `${service.url}/ok/2`, keys.p256dh, keys.authText);
    expect(closed.errors?.[0]?.extensions?.errors).toEqual({
      status: ['The order is collected; there is nothing left to notify.'],
    });
  });
});
