import 'reflect-metadata';
import { statementsOf, useSchemaDatabase } from '../../test/support/database';
import { billingServices, billingSubgraph } from './billing.subgraph';

describe('SubscriptionService: a subject’s plan, subscription and usage', () => {
  const db = useSchemaDatabase(billingSubgraph.schemaModule);
  let nextId = 9_000;

  /** What one account's `plan`, `subscription` and `usage` resolve, side by side as the executor asks. */
  async function standing(services = billingServices(db.orm.em.fork()), accountId: number) {
    const [plan, subscription, downloads] = await Promise.all([
      services.subscriptions.activePlanOf('account', accountId),
      services.subscriptions.subscriptionOf('account', accountId),
      services.subscriptions.downloadsThisMonth('account', accountId),
    ]);
    return { plan: plan?.key ?? null, status: subscription?.status ?? null, downloads };
  }

  it('reads them together in one statement, and answers each case as before', async () => {
    const none = (nextId += 1);
    const active = (nextId += 1);
    const cancelled = (nextId += 1);
    const setUp = billingServices(db.orm.em.fork());
    await setUp.subscriptions.subscribe('account', active, 'pro');
    await setUp.subscriptions.meterDownload('account', active);
    await setUp.subscriptions.meterDownload('account', active);
    await setUp.subscriptions.subscribe('account', cancelled, 'free');
    await db.orm.em
      .fork()
      .execute(`update billing.subscriptions set status = 'cancelled' where subject_id = ?`, [cancelled]);

    const em = db.orm.em.fork();
    // The catalogue is read once a minute; warm it so only the subject's own reads are counted.
    await billingServices(em).plans.list();
    let answer: Awaited<ReturnType<typeof standing>> | undefined;
    const statements = await statementsOf(em, async () => {
      answer = await standing(billingServices(em), active);
    });
    expect(answer).toEqual({ plan: 'pro', status: 'active', downloads: 2 });
    expect(statements).toHaveLength(1);
    expect(await standing(undefined, none)).toEqual({ plan: null, status: null, downloads: 0 });
    expect(await standing(undefined, cancelled)).toEqual({ plan: null, status: 'cancelled', downloads: 0 });
  });

  it('answers what the same unit of work wrote since, never an older read', async () => {
    const accountId = (nextId += 1);
    const services = billingServices(db.orm.em.fork());
    expect(await standing(services, accountId)).toEqual({ plan: null, status: null, downloads: 0 });
    await services.subscriptions.subscribe('account', accountId, 'free');
    expect(await standing(services, accountId)).toEqual({ plan: 'free', status: 'active', downloads: 0 });
    await services.subscriptions.meterDownload('account', accountId);
    expect(await standing(services, accountId)).toEqual({ plan: 'free', status: 'active', downloads: 1 });
    await services.subscriptions.subscribe('account', accountId, 'business');
    await services.subscriptions.refundDownload('account', accountId);
    expect(await standing(services, accountId)).toEqual({ plan: 'business', status: 'active', downloads: 0 });
  });

  it('tells a refused download the month’s count as it stands', async () => {
    const accountId = (nextId += 1);
    const services = billingServices(db.orm.em.fork());
    await services.subscriptions.subscribe('account', accountId, 'free');
    const meters = [];
    for (let i = 0; i < 6; i += 1)
      meters.push(await services.subscriptions.meterDownload('account', accountId));
    expect(meters.map((m) => [m.allowed, m.downloads])).toEqual([
      [true, 1],
      [true, 2],
      [true, 3],
      [true, 4],
      [true, 5],
      [false, 5],
    ]);
  });
});
