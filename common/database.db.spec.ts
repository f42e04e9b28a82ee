import { setTimeout as sleep } from 'node:timers/promises';
import { createTestDatabase, testConfig, type TestDatabase } from '../test/support/database';
import { openSchema, postgresAnswering, type MikroORM, type SchemaModule } from './database';

/** A schema with no tables of its own: the checks only need a pool. */
const POOL_ONLY: SchemaModule = { schema: 'billing', entities: [], migrations: () => Promise.resolve([]) };

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

describe('postgresAnswering', () => {
  let database: TestDatabase;
  let orm: MikroORM;

  beforeAll(async () => {
    database = await createTestDatabase();
    // One pooled connection, so one long statement is a pool with every connection busy.
    orm = await openSchema(testConfig(database, { DATABASE_POOL_MAX: '1' }), POOL_ONLY);
  });

  afterAll(async () => {
    await orm.close(true);
    await database.drop();
  });

  const busy = (seconds: number): Promise<unknown> =>
    orm.em.getConnection().execute(`select pg_sleep(${seconds})`);

  it("is answered at once while the pool's own queries came back within the window, every connection busy", async () => {
    const check = postgresAnswering(orm, 5_000);
    await orm.em.getConnection().execute('select 1');
    const burst = busy(1.5);
    await sleep(50);
    expect(await timed(check)).toBeLessThan(300);
    await burst;
  });

  it('probes with a select 1 once nothing came back within the window, and so waits for a connection', async () => {
    const check = postgresAnswering(orm, 100);
    await sleep(200);
    const burst = busy(1);
    await sleep(50);
    // The probe really ran through the pool: it could only start once the long statement ended.
    expect(await timed(check)).toBeGreaterThan(700);
    await burst;
  });

  it('fails when the probe fails, once nothing came back within the window', async () => {
    const closed = await openSchema(testConfig(database), POOL_ONLY);
    const check = postgresAnswering(closed, 100);
    await closed.close(true);
    await expect(check()).rejects.toThrow();
  });
});
