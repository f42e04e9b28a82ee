import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { ormPoolState, ProcessMetrics } from '../../../common/metrics';
import { connectRedis, type Redis } from '../../../common/redis';
import { testConfig, useSchemaDatabase } from '../../../test/support/database';
import { EventsMetrics } from './events-metrics';
import { JobQueues } from './job-queues';
import { OutboxRepository } from './outbox.repository';

/** The value of one series in Prometheus text, or undefined when it is absent. */
function valueOf(text: string, series: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('the events worker’s metrics on real Postgres and Redis', () => {
  const db = useSchemaDatabase('tickets');
  let redis: Redis;
  let queues: JobQueues;
  let metrics: ProcessMetrics;

  beforeAll(async () => {
    const config = testConfig(db.database);
    redis = await connectRedis(config.redis, 'events-metrics-spec');
    queues = new JobQueues(config, false, redis);
    metrics = new ProcessMetrics('tickets-events');
    new EventsMetrics(metrics, {
      outbox: () => new OutboxRepository(db.orm.em.fork()),
      queues,
      queueNames: ['webhooks'],
    });
    metrics.watchPool(ormPoolState(db.orm));
  });

  afterAll(async () => {
    await queues.close();
    redis.disconnect();
  });

  const addOutboxRow = (ageSeconds: number, published: boolean) =>
    db.database.query(
      `insert into tickets.outbox (event_id, event, venue_id, payload, created_at, published_at)
       values ($1, 'ticket.created', 1, '{}', now() - make_interval(secs => $2), $3)`,
      [randomUUID(), ageSeconds, published ? new Date() : null],
    );

  it('reads no backlog as zero pending and zero age', async () => {
    const text = await metrics.registry.metrics();
    expect(valueOf(text, 'nida_outbox_pending')).toBe(0);
    expect(valueOf(text, 'nida_outbox_oldest_seconds')).toBe(0);
  });

  it('counts unpublished events and the age of the oldest, leaving published ones out', async () => {
    await addOutboxRow(90, false);
    await addOutboxRow(5, false);
    await addOutboxRow(600, true);
    // The two outbox gauges share one query a second; a scrape a moment later reads afresh.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const text = await metrics.registry.metrics();
    expect(valueOf(text, 'nida_outbox_pending')).toBe(2);
    const oldest = valueOf(text, 'nida_outbox_oldest_seconds') ?? 0;
    expect(oldest).toBeGreaterThanOrEqual(90);
    expect(oldest).toBeLessThan(120);
  });

  it("reads the job queue's counts from bee-queue and the Postgres pool's connections", async () => {
    const text = await metrics.registry.metrics();
    expect(valueOf(text, 'nida_job_queue_jobs{queue="webhooks",state="waiting"}')).toBe(0);
    expect(valueOf(text, 'nida_job_queue_jobs{queue="webhooks",state="failed"}')).toBe(0);
    expect(valueOf(text, 'nida_postgres_pool_connections{state="in_use"}')).toBe(0);
    expect(valueOf(text, 'nida_postgres_pool_connections{state="idle"}')).toBeGreaterThanOrEqual(1);
    expect(valueOf(text, 'nida_postgres_pool_connections{state="waiting"}')).toBe(0);
    expect(valueOf(text, 'nida_sms_total{result="failed"}')).toBe(0);
  });
});
