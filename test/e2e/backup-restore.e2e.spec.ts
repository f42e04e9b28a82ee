import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { quoteIdentifier } from '../../common/postgres';
import { connectRedis } from '../../common/redis';
import { startEvents, type RunningEvents } from '../../subgraphs/tickets/events/events';
import { migrateAll } from '../../tools/database-setup';
import { adminQuery, createTestDatabase, type TestDatabase } from '../support/database';
import {
  cvCaller,
  hookReceiver,
  newCvAccount,
  newTicketBranch,
  platformTemplateId,
  startPlatform,
  type CvAccount,
  type Platform,
  type TicketBranch,
} from '../support/platform';
import { run } from '../support/processes';
import { WebhookReceiver } from '../support/webhook-receiver';

/** The client tools of the server's major version (scripts/setup.sh installs postgresql-client). */
const PG_BIN = process.env.PG_CLIENT_BIN ?? '/usr/bin';

/** docs/OPERATIONS.md "Backup and restore", done for real on a platform with data. */
describe('backup and restore drill', () => {
  let database: TestDatabase;
  let platform: Platform | undefined;
  let events: RunningEvents | undefined;
  let branch: TicketBranch;
  let account: CvAccount;
  const receiver = new WebhookReceiver();
  const dir = mkdtempSync(join(tmpdir(), 'nida-backup-'));
  const dump = join(dir, 'nida.dump');
  const env = { WEBHOOK_ALLOW_INSECURE: 'true', WEBHOOK_RETRY_SCHEDULE: '200ms' };

  async function startAll(): Promise<Platform> {
    platform = await startPlatform(database, env);
    events = await startEvents(platform.config);
    return platform;
  }

  async function stopAll(): Promise<void> {
    await events?.stop();
    await platform?.stop();
    events = undefined;
    platform = undefined;
  }

  const tickets = (p: Platform) => async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${p.restUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${branch.key}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  const cvThroughGateway = async (p: Platform, id: string) => {
    const response = await fetch(p.gatewayUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': account.key },
      body: JSON.stringify({ query: 'query ($id: ID!) { cv(id: $id) { id title } }', variables: { id } }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  /** Each table's row count, to compare the restored database with the one dumped. */
  const counts = async () =>
    database.query(
      `select (select count(*)::int from tickets.venues) as venues,
              (select count(*)::int from tickets.branches) as branches,
              (select count(*)::int from tickets.api_keys) as api_keys,
              (select count(*)::int from tickets.tickets) as tickets,
              (select count(*)::int from tickets.webhook_endpoints) as endpoints,
              (select count(*)::int from tickets.webhook_deliveries) as deliveries,
              (select count(*)::int from cv.cvs) as cvs,
              (select count(*)::int from billing.subscriptions) as subscriptions`,
    );

  beforeAll(async () => {
    database = await createTestDatabase();
  });

  afterAll(async () => {
    await stopAll();
    await receiver.stop();
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves the restored tickets, CV and webhook endpoint from a pg_dump restored into a fresh database', async () => {
    // A platform with data: tickets in every state, a CV, an endpoint that has delivered.
    const before = await startAll();
    branch = await newTicketBranch(before.config);
    await hookReceiver(before.config, branch.venueId, receiver, 'ticket.ready');
    const call = tickets(before);
    const made: Record<string, number> = {};
    for (const [state, action] of [
      ['waiting', null],
      ['ready', 'ready'],
      ['collected', 'collected'],
      ['cancelled', 'cancel'],
      ['to ready after the restore', null],
    ] as const) {
      const created = await call('POST', '/tickets', { external_id: `backup-${state}` });
      expect(created.status).toBe(201);
      made[state] = created.body.id as number;
      if (action !== null) expect((await call('POST', `/tickets/${made[state]}/${action}`)).status).toBe(200);
    }
    await receiver.waitFor((hooks) => hooks.some((h) => Number(h.json.data.ticket.id) === made.ready));
    const beforeStates = await Promise.all(
      Object.values(made).map(async (id) => (await call('GET', `/tickets/${id}`)).body),
    );
    account = await newCvAccount(before.config, { plan: 'pro' });
    const cv = await cvCaller(before)('POST', '/cvs', account.key, {
      title: 'Backed-up CV',
      locale: 'en',
      template_id: await platformTemplateId(database, 'classic'),
    });
    expect(cv.status).toBe(201);
    const cvId = String(cv.body.data!.id);
    const rowsBefore = await counts();
    await stopAll();

    // The drill: dump, lose the database, create it empty, restore.
    const dumped = await run(
      join(PG_BIN, 'pg_dump'),
      ['-Fc', '--no-owner', '-d', database.url, '-f', dump],
      process.env,
      120_000,
    );
    expect({ code: dumped.code, stderr: dumped.stderr }).toEqual({ code: 0, stderr: '' });
    expect(statSync(dump).size).toBeGreaterThan(0);
    await database.drop();
    await adminQuery((client) => client.query(`CREATE DATABASE ${quoteIdentifier(database.name)}`));
    expect(
      await database.query(`select count(*)::int as n from pg_namespace where nspname = 'tickets'`),
    ).toEqual([{ n: 0 }]);
    const restored = await run(
      join(PG_BIN, 'pg_restore'),
      ['--no-owner', '--exit-on-error', '-d', database.url, dump],
      process.env,
      120_000,
    );
    expect({ code: restored.code, stderr: restored.stderr }).toEqual({ code: 0, stderr: '' });
    expect(await counts()).toEqual(rowsBefore);

    // Redis holds nothing that needs a backup: the restored platform starts on an empty prefix.
    const redis = await connectRedis(before.config.redis, 'backup-drill');
    try {
      const keys = await redis.keys(`${before.config.redisPrefix}*`);
      if (keys.length > 0) await redis.del(...keys);
    } finally {
      redis.disconnect();
    }

    // The migrations came with the dump: the running build has nothing left to apply.
    const migrated = await migrateAll(before.config);
    expect(Object.values(migrated.applied).flat()).toEqual([]);

    const after = await startAll();
    const again = tickets(after);
    const afterStates = await Promise.all(
      Object.values(made).map(async (id) => (await again('GET', `/tickets/${id}`)).body),
    );
    expect(afterStates).toEqual(beforeStates);
    expect(afterStates.map((t) => t.status)).toEqual([
      'waiting',
      'ready',
      'collected',
      'cancelled',
      'waiting',
    ]);
    expect(await cvThroughGateway(after, cvId)).toEqual({
      status: 200,
      body: { data: { cv: { id: cvId, title: 'Backed-up CV' } } },
    });

    // The endpoint's secret, sealed in the dump, still opens: a ready now fires a signed webhook.
    const deliveredBefore = receiver.received.length;
    expect((await again('POST', `/tickets/${made['to ready after the restore']}/ready`)).status).toBe(200);
    await receiver.waitFor((hooks) =>
      hooks.some((h) => Number(h.json.data.ticket.id) === made['to ready after the restore']),
    );
    const fresh = receiver.received.slice(deliveredBefore);
    expect(fresh.map((h) => [h.json.event, h.verdict.ok])).toEqual([['ticket.ready', true]]);
  }, 170_000);
});
