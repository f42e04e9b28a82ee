import 'reflect-metadata';
import { useSchemaDatabase } from '../../test/support/database';
import { billingSubgraph } from './billing.subgraph';
import { PLAN_CATALOGUE } from './plan.catalogue';
import { Product } from './plan.entity';
import { CATALOGUE_FRESH_MS, PlanRepository } from './plan.repository';
import { PlanService } from './plan.service';
import { toPlanType } from './plan.type';

describe('PlanService', () => {
  const db = useSchemaDatabase(billingSubgraph.schemaModule);

  const service = () => new PlanService(new PlanRepository(db.orm.em.fork()));

  it('holds the documented CV plans with their limits', async () => {
    const plans = (await service().list(Product.CV)).map(toPlanType);
    expect(plans.map((p) => [p.key, p.cv])).toEqual([
      ['free', { cvLimit: 2, downloadLimit: 5, premiumTemplates: false, watermark: true }],
      ['pro', { cvLimit: 25, downloadLimit: 100, premiumTemplates: true, watermark: false }],
      ['business', { cvLimit: null, downloadLimit: null, premiumTemplates: true, watermark: false }],
    ]);
    expect(plans.every((p) => p.tickets === null && p.product === Product.CV)).toBe(true);
  });

  it('includes the API, SMS and WhatsApp only from the growth ticket plan up', async () => {
    const plans = (await service().list(Product.TICKETS)).map(toPlanType);
    expect(plans.map((p) => [p.key, p.tickets])).toEqual([
      ['starter', { apiAccess: false, sms: false, whatsapp: false }],
      ['growth', { apiAccess: true, sms: true, whatsapp: true }],
      ['enterprise', { apiAccess: true, sms: true, whatsapp: true }],
    ]);
    expect(plans.every((p) => p.cv === null)).toBe(true);
  });

  it('prices every plan monthly in whole dinars, free costing nothing', async () => {
    const plans = await service().list();
    expect(plans).toHaveLength(6);
    expect(plans.every((p) => Number.isInteger(p.monthlyPriceIqd) && p.monthlyPriceIqd >= 0)).toBe(true);
    expect(plans.find((p) => p.key === 'free')?.monthlyPriceIqd).toBe(0);
  });

  it('seeds idempotently: a second run adds nothing and restores edited values', async () => {
    await db.orm.em.getConnection().execute(`update billing.plans set cv_limit = 99 where key = 'free'`);
    expect(await service().seedCatalogue()).toBe(PLAN_CATALOGUE.length);
    expect(await service().seedCatalogue()).toBe(PLAN_CATALOGUE.length);
    const [{ count }] = await db.orm.em
      .getConnection()
      .execute<[{ count: string }]>('select count(*) from billing.plans');
    expect(Number(count)).toBe(6);
    expect((await service().findByKey('free'))?.cvLimit).toBe(2);
  });

  it('answers from the catalogue it read for a minute, and from the table again once it seeds', async () => {
    const pro = async () => (await service().findByKey('pro'))?.name;
    expect(await pro()).toBe('Pro');
    await db.orm.em
      .getConnection()
      .execute(`update billing.plans set name = 'Pro (edited)' where key = 'pro'`);
    const readAt = Date.now();
    const clock = jest.spyOn(Date, 'now');
    try {
      clock.mockReturnValue(readAt + CATALOGUE_FRESH_MS - 1_000);
      expect(await pro()).toBe('Pro');
      expect((await service().list(Product.CV)).map((p) => p.name)).toContain('Pro');
      clock.mockReturnValue(readAt + CATALOGUE_FRESH_MS + 1_000);
      expect(await pro()).toBe('Pro (edited)');
      await service().seedCatalogue();
      expect(await pro()).toBe('Pro');
    } finally {
      clock.mockRestore();
    }
  });

  it('keeps CV limits off ticket plans at the database level', async () => {
    await expect(
      db.orm.em.getConnection().execute(`update billing.plans set cv_limit = 3 where key = 'starter'`),
    ).rejects.toThrow(/plans_cv_fields_only_on_cv_plans/);
  });

  it('finds nothing for an unknown key', async () => {
    expect(await service().findByKey('platinum')).toBeNull();
  });
});
