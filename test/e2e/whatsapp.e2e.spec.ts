import BeeQueue from 'bee-queue';
import { startRestAdapter } from '../../rest-adapter/rest-adapter';
import { createTestDatabase, testConfig, type TestDatabase } from '../support/database';
import { startPlatform, type Platform } from '../support/platform';
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
    for (const query of [
      { 'hub.mode': 'subscribe', 'hub.verify_token': 'wrong-token-0123456789abcdef', 'hub.challenge': '1' },
      { 'hub.mode': 'unsubscribe', 'hub.verify_token': VERIFY_TOKEN, 'hub.challenge': '1' },
      { 'hub.mode': 'subscribe', 'hub.challenge': '1' },
    ]) {
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
